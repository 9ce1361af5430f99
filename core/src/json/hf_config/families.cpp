// Current decoder families: Llama-like, Qwen, Gemma, DeepSeek, gpt-oss,
// Llama 4, GLM. Defaults are those of the transformers config classes.
#include <map>

#include "json/hf_config/config_view.hpp"

namespace caliper::io {

void readGemmaDecoder(ConfigView& c, ModelSpec& m, std::int64_t vocabDefault) {
    DecoderKeys keys;
    keys.tiedByDefault = true;
    keys.vocabDefault = vocabDefault;
    readDecoder(c, m, keys);
    if (m.maxContext == 0) m.maxContext = 131072;
    if (!c.has("head_dim")) m.headDim = 256;
    m.normsPerLayer = 4;
    m.qkNorm = true;
}

namespace {

// A sliding window on every layer (Mistral v0.1, Phi-3), unless Qwen-style
// use_sliding_window switches it off.
void slidingOnAllLayers(ConfigView& c, ModelSpec& m) {
    if (!c.flag("use_sliding_window", true)) return;
    m.slidingWindow = c.integerOr({"sliding_window"}, 0, 0, kHfMaxPositions);
    m.slidingLayers = m.slidingWindow > 0 ? m.layers : 0;
}

// Layers whose layer_types entry is "sliding_attention"; without the list,
// every `period`-th layer is global (period 2: alternating).
int slidingLayerCount(const ConfigView& c, int layers, int period) {
    const int listed = c.countInList("layer_types", "sliding_attention");
    if (listed >= 0) return listed;
    return period > 0 ? layers - layers / period : 0;
}

void readMoeCounts(ConfigView& c, ModelSpec& m, const KeyNames& experts, const KeyNames& width) {
    m.moe.experts = c.need(experts, kHfMaxExperts);
    m.moe.expertsPerToken = c.need({"num_experts_per_tok", "experts_per_token"}, kHfMaxExperts);
    m.moe.expertIntermediateSize = c.need(width, kHfMaxIntermediate);
    c.throwIfMissing();
}

int moeLayers(const ModelSpec& m) {
    return (m.layers - m.moe.denseLayers) / std::max(1, m.moe.layerInterval);
}

void readLlama(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    m.qkvBias = m.attnOutBias = c.flag("attention_bias", false);
    m.mlpBias = c.flag("mlp_bias", false);
    slidingOnAllLayers(c, m);
}

// Mistral3ForConditionalGeneration (Mistral Small 3.1/3.2, Ministral 3,
// Devstral Small 2): a Mistral or Ministral 3 decoder in text_config (its own
// tie_word_embeddings: Ministral 3 3B ties) beside a Pixtral encoder.
void readMistral3(ConfigView& c, ModelSpec& m) {
    ConfigView text = c.nested("text_config");
    readLlama(text, m);
    if (!c.has("vision_config")) return;
    const int merge = c.integerOr({"spatial_merge_size"}, 2, 1, 64);
    m.extraParams += pixtralVisionParams(c.nested("vision_config"), m.hiddenSize, merge,
                                         c.flag("multimodal_projector_bias", false));
    m.modality = "vision";
}

void readMixtral(ConfigView& c, ModelSpec& m) {
    readLlama(c, m);
    readMoeCounts(c, m, {"num_local_experts"}, {"intermediate_size"});
}

// Qwen2: q/k/v biases; sliding window only when use_sliding_window is true,
// then on the layers above max_window_layers.
void readQwen2(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    m.qkvBias = true;
    if (c.flag("use_sliding_window", false)) {
        m.slidingWindow = c.integerOr({"sliding_window"}, 0, 0, kHfMaxPositions);
        const int full = c.integerOr({"max_window_layers"}, m.layers, 0, kHfMaxLayers);
        m.slidingLayers = m.slidingWindow > 0 ? std::max(0, m.layers - full) : 0;
    }
}

// Qwen1.5/Qwen2 MoE: shared experts given as one total width plus a scalar
// gate per MoE layer (the H-wide shared_expert_gate, counted in extraParams).
void readQwen2Moe(ConfigView& c, ModelSpec& m) {
    readQwen2(c, m);
    readMoeCounts(c, m, {"num_experts"}, {"moe_intermediate_size"});
    m.moe.layerInterval = c.integerOr({"decoder_sparse_step"}, 1, 1, kHfMaxLayers);
    const int shared = c.integerOr({"shared_expert_intermediate_size"}, 0, 0, kHfMaxIntermediate);
    m.moe.sharedExperts = shared / m.moe.expertIntermediateSize;
    if (shared > 0) m.extraParams += static_cast<std::int64_t>(m.hiddenSize) * moeLayers(m);
    m.moe.sharedExpertGate = shared > 0;
    // transformers 5.17's conversion_mapping._MODEL_TO_CONVERSION_PATTERN maps
    // the other Qwen2-style MoE types onto "qwen2_moe" but has no entry for
    // qwen2_moe itself, and PEFT 0.21 (_convert_peft_config_moe) converts only
    // the types found there (plus mixtral, which it adds): "all-linear" then
    // adapts nn.Linear modules only, and the 3D experts and the router
    // (Qwen2MoeTopKRouter, not an nn.Linear) stay frozen.
    m.moe.peftFrozenExperts = true;
}

void readQwen3(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    m.qkNorm = true;
    m.qkvBias = c.flag("attention_bias", false);
}

void readQwen3Moe(ConfigView& c, ModelSpec& m) {
    readQwen3(c, m);
    readMoeCounts(c, m, {"num_experts"}, {"moe_intermediate_size"});
    m.moe.layerInterval = c.integerOr({"decoder_sparse_step"}, 1, 1, kHfMaxLayers);
}

// Gemma 1/2: GeGLU, tied embeddings by default; Gemma 2 adds post-attention
// and post-MLP norms (4 per layer) and a window on every other layer.
void readGemma(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.tiedByDefault = true;
    readDecoder(c, m, keys);
}

void readGemma2(ConfigView& c, ModelSpec& m) {
    readGemma(c, m);
    m.normsPerLayer = 4;
    m.slidingWindow = c.integerOr({"sliding_window"}, 4096, 0, kHfMaxPositions);  // Gemma2Config default
    m.slidingLayers = m.slidingWindow > 0 ? slidingLayerCount(c, m.layers, 2) : 0;
}

// Gemma 3 text: 4 norms and q/k norms per layer; 5 local layers per global
// one. Gemma3TextConfig defaults fill what the multimodal configs omit
// (vocab_size 262,208 embedding rows, 131,072 positions).
void readGemma3Text(ConfigView& c, ModelSpec& m) {
    readGemmaDecoder(c, m, 262208);
    m.slidingWindow = c.integerOr({"sliding_window"}, 4096, 0, kHfMaxPositions);
    const int period = c.integerOr({"sliding_window_pattern"}, 6, 1, kHfMaxLayers);
    m.slidingLayers = m.slidingWindow > 0 ? slidingLayerCount(c, m.layers, period) : 0;
}

void readGemma3(ConfigView& c, ModelSpec& m) {
    ConfigView text = c.nested("text_config");
    readGemma3Text(text, m);
    if (c.has("vision_config")) {
        m.extraParams += siglipTowerParams(c.nested("vision_config"), m.hiddenSize);
        m.modality = "vision";
    }
}

// DeepSeek-V2/V3 and Kimi K2: latent attention, leading dense layers, routed
// plus shared experts; "noaux_tc" routing adds a per-expert bias vector.
void readDeepSeek(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    readMlaDims(c, m);
    setAttentionKind(m);
    if (!c.has("n_routed_experts")) return;
    readMoeCounts(c, m, {"n_routed_experts"}, {"moe_intermediate_size"});
    m.moe.sharedExperts = c.integerOr({"n_shared_experts"}, 0, 0, kHfMaxExperts);
    m.moe.denseLayers = c.integerOr({"first_k_dense_replace"}, 0, 0, m.layers - 1);
    m.moe.layerInterval = c.integerOr({"moe_layer_freq"}, 1, 1, kHfMaxLayers);
    if (c.text("topk_method") == "noaux_tc") {
        m.extraParams += static_cast<std::int64_t>(moeLayers(m)) * m.moe.experts;  // e_score_correction_bias
    }
}

void readPhi3(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    slidingOnAllLayers(c, m);
}

// gpt-oss: biases on attention and experts, a learned sink per head and a
// bias per expert in the router (both in extraParams), alternating windows.
void readGptOss(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    m.qkvBias = m.attnOutBias = c.flag("attention_bias", true);
    m.mlpBias = true;
    readMoeCounts(c, m, {"num_local_experts"}, {"intermediate_size"});
    m.slidingWindow = c.integerOr({"sliding_window"}, 0, 0, kHfMaxPositions);
    m.slidingLayers = m.slidingWindow > 0 ? slidingLayerCount(c, m.layers, 2) : 0;
    m.extraParams += static_cast<std::int64_t>(m.layers) * (m.heads + m.moe.experts);
}

// Llama 4: MoE with one shared expert on every interleave_moe_layer_step-th
// layer, dense layers of intermediate_size_mlp, chunked attention on three of
// four layers; the vision encoder is counted in extraParams.
void readLlama4(ConfigView& c, ModelSpec& m) {
    ConfigView text = c.nested("text_config");
    DecoderKeys keys;
    keys.intermediate = {"intermediate_size_mlp", "intermediate_size"};
    readDecoder(text, m, keys);
    readMoeCounts(text, m, {"num_local_experts"}, {"intermediate_size"});
    m.moe.sharedExperts = 1;
    m.moe.layerInterval = text.integerOr({"interleave_moe_layer_step"}, 1, 1, kHfMaxLayers);
    m.slidingWindow = text.integerOr({"attention_chunk_size"}, 0, 0, kHfMaxPositions);
    const int globalEvery = text.integerOr({"no_rope_layer_interval"}, 4, 1, kHfMaxLayers);
    m.slidingLayers = m.slidingWindow > 0 ? m.layers - m.layers / globalEvery : 0;
    if (c.has("vision_config")) {
        m.extraParams += llama4VisionParams(c.nested("vision_config"), m.hiddenSize);
        m.modality = "vision";
    }
}

// Llama 3.2 Vision (mllama): cross-attention layers listed among the text
// layers; the text model embeds 8 extra image tokens, and each
// cross-attention layer adds q/k norms and two scalar gates (extraParams
// with the vision tower). Cross-attention caches one image: tiles x tokens.
void readMllama(ConfigView& c, ModelSpec& m) {
    ConfigView text = c.nested("text_config");
    readDecoder(text, m);
    auto cross = text.json().find("cross_attention_layers");
    m.crossAttentionLayers = cross != text.json().end() && cross->is_array() ? static_cast<int>(cross->size()) : 0;
    if (m.crossAttentionLayers > m.layers) {
        fail("invalid_config", text.path() + "/cross_attention_layers", "more cross-attention layers than layers");
    }
    constexpr int kImageTokenRows = 8;  // MllamaTextModel: vocab_size + 8 embedding rows
    m.extraParams += static_cast<std::int64_t>(kImageTokenRows) * m.hiddenSize +
                     static_cast<std::int64_t>(m.crossAttentionLayers) * (2 * m.headDim + 2);
    if (c.has("vision_config")) {
        ConfigView vision = c.nested("vision_config");
        m.extraParams += mllamaVisionParams(vision, m.hiddenSize);
        m.crossAttentionTokens = mllamaImageTokens(vision);
        m.modality = "vision";
    }
}

// GLM-4 in transformers: q/k/v biases; glm4 adds post-attention and post-MLP
// norms (4 per layer).
void readGlm(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    m.qkvBias = c.flag("attention_bias", true);
}

void readGlm4(ConfigView& c, ModelSpec& m) {
    readGlm(c, m);
    m.normsPerLayer = 4;
}

}  // namespace

FamilyReader familyReader(const std::string& modelType) {
    static const std::map<std::string, FamilyReader> kFamilies = {
        {"llama", readLlama},          {"mistral", readLlama},         {"yi", readLlama},
        {"ministral3", readLlama},     {"mistral3", readMistral3},
        {"mixtral", readMixtral},      {"qwen2", readQwen2},           {"qwen2_moe", readQwen2Moe},
        {"qwen3", readQwen3},          {"qwen3_moe", readQwen3Moe},    {"gemma", readGemma},
        {"gemma2", readGemma2},        {"gemma3", readGemma3},         {"gemma3_text", readGemma3Text},
        {"deepseek_v2", readDeepSeek}, {"deepseek_v3", readDeepSeek},  {"kimi_k2", readDeepSeek},
        {"phi3", readPhi3},            {"gpt_oss", readGptOss},        {"llama4", readLlama4},
        {"llama4_text", readLlama4},   {"glm", readGlm},               {"glm4", readGlm4},
        {"chatglm", readChatGlm},      {"gpt_neox", readGptNeox},      {"bloom", readBloom},
        {"falcon", readFalcon},        {"refinedweb", readFalcon},     {"refinedwebmodel", readFalcon},
        {"rw", readFalcon},            {"gptj", readGptJ},             {"gpt_bigcode", readGptBigCode},
        {"qwen", readQwenV1},          {"baichuan", readBaichuan},     {"t5", readT5},
        {"mt5", readT5},               {"whisper", readWhisper},       {"mllama", readMllama},
    };
    auto it = kFamilies.find(modelType);
    return it == kFamilies.end() ? nullptr : it->second;
}

}  // namespace caliper::io
