// 2025-2026 families: GLM-4.5 MoE, hybrid linear attention (Qwen3-Next,
// Qwen3.5: Gated DeltaNet; Nemotron-H: Mamba-2), DeepSeek Sparse Attention
// (DeepSeek-V3.2, GLM-5), MiniMax-M2, Qwen3-VL and Kimi K2.5 (nested
// text_config), and the MoE keys of configs of unknown families.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "json/hf_config/config_view.hpp"

namespace caliper::io {

namespace {

int moeLayersOf(const ModelSpec& m) { return moeLayerCount(m); }

// DeepSeek-style routed + shared experts behind leading dense layers.
void readDeepSeekMoe(ConfigView& c, ModelSpec& m) {
    m.moe.experts = c.need({"n_routed_experts"}, kHfMaxExperts);
    m.moe.expertsPerToken = c.need({"num_experts_per_tok"}, kHfMaxExperts);
    m.moe.expertIntermediateSize = c.need({"moe_intermediate_size"}, kHfMaxIntermediate);
    c.throwIfMissing();
    m.moe.sharedExperts = c.integerOr({"n_shared_experts"}, 0, 0, kHfMaxExperts);
    m.moe.denseLayers = c.integerOr({"first_k_dense_replace"}, 0, 0, m.layers - 1);
    m.moe.layerInterval = c.integerOr({"moe_layer_freq"}, 1, 1, kHfMaxLayers);
    if (c.text("topk_method") == "noaux_tc" || c.text("scoring_func") == "sigmoid") {
        m.extraParams += static_cast<std::int64_t>(moeLayersOf(m)) * m.moe.experts;  // e_score_correction_bias
    }
}

// GLM-4.5 / 4.6 (transformers Glm4MoeForCausalLM): GQA with q/k/v biases,
// optional q/k norms, DeepSeek-style experts with a routing bias; the extra
// layer num_nextn_predict_layers is the MTP module.
void readGlm4Moe(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    m.qkvBias = c.flag("attention_bias", false);
    m.qkNorm = c.flag("use_qk_norm", false);
    readDeepSeekMoe(c, m);
    m.extraParams = static_cast<std::int64_t>(moeLayersOf(m)) * m.moe.experts;  // routing bias, always present
    m.mtpLayers = c.integerOr({"num_nextn_predict_layers"}, 0, 0, 64);
}

// DeepSeek MLA plus the DeepSeek Sparse Attention indexer (DeepSeek-V3.2,
// GLM-5 glm_moe_dsa).
void readSparseMla(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    readMlaDims(c, m);
    m.qkvBias = m.attnOutBias = false;
    setAttentionKind(m);
    if (c.has("index_n_heads")) {
        m.sparse.indexHeads = c.need({"index_n_heads"}, kHfMaxHeads);
        m.sparse.indexHeadDim = c.need({"index_head_dim"}, kHfMaxHidden);
        m.sparse.indexTopk = c.integerOr({"index_topk"}, 2048, 1, kHfMaxPositions);
        c.throwIfMissing();
        // GLM-5.2 IndexShare: only the "full" entries of indexer_types carry an
        // indexer; "shared" layers reuse the previous one's top-k.
        const int own = c.countInList("indexer_types", "full");
        if (own > 0 && own < fullAttentionLayers(m)) m.sparse.indexLayers = own;
    }
    if (c.has("n_routed_experts")) readDeepSeekMoe(c, m);
    m.mtpLayers = c.integerOr({"num_nextn_predict_layers"}, 0, 0, 64);
}

// DeepSeek-V4 (DeepseekV4ForCausalLM): one shared K=V head of head_dim,
// queries through q_lora_rank, a grouped output LoRA, and per layer a
// compress ratio (compress_ratios, one entry per layer then the MTP
// layers'): 0 = the sliding_window only, the small ratio with an indexer
// (CSA), the large one without (HCA). MoE on every layer.
void readDeepSeekV4(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.intermediate = {"moe_intermediate_size"};
    readDecoder(c, m, keys);
    CompressedAttentionSpec& x = m.compressed;
    x.window = c.need({"sliding_window"}, kHfMaxPositions);
    x.qLoraRank = c.need({"q_lora_rank"}, kHfMaxHidden);
    x.oLoraRank = c.need({"o_lora_rank"}, kHfMaxHidden);
    x.oGroups = c.need({"o_groups"}, kHfMaxHeads);
    m.sparse.indexHeads = c.need({"index_n_heads"}, kHfMaxHeads);
    m.sparse.indexHeadDim = c.need({"index_head_dim"}, kHfMaxHidden);
    c.throwIfMissing();
    m.sparse.indexTopk = c.integerOr({"index_topk"}, 512, 1, kHfMaxPositions);
    x.hcMult = c.integerOr({"hc_mult"}, 0, 0, 64);
    const Json* ratios = c.find({"compress_ratios"});
    const std::string at = c.path() + "/compress_ratios";
    if (!ratios || !ratios->is_array() || ratios->size() < std::size_t(m.layers)) {
        fail("invalid_config", at, "DeepSeek-V4 needs compress_ratios with one entry per layer");
    }
    std::map<std::int64_t, int> layersByRatio;  // nonzero ratios and their layer counts
    for (int i = 0; i < m.layers; ++i) {
        const Json& r = (*ratios)[std::size_t(i)];
        const std::int64_t ratio = r.is_number_integer() ? r.get<std::int64_t>() : -1;
        if (ratio < 0 || ratio == 1 || ratio > kHfMaxPositions) {
            fail("invalid_config", at + "/" + std::to_string(i), "a compress ratio is 0 or an integer of at least 2");
        }
        if (ratio > 0) ++layersByRatio[ratio];
    }
    if (layersByRatio.size() != 2) {
        fail("invalid_config", at,
             "compress_ratios needs 0 and exactly two other values (DeepSeek-V4: 4 with an indexer, 128 without)");
    }
    x.csaRatio = int(layersByRatio.begin()->first);  // the smaller ratio carries the indexer
    x.csaLayers = layersByRatio.begin()->second;
    x.hcaRatio = int(layersByRatio.rbegin()->first);
    x.hcaLayers = layersByRatio.rbegin()->second;
    m.sparse.indexLayers = x.csaLayers;
    m.moe.experts = c.need({"n_routed_experts"}, kHfMaxExperts);
    m.moe.expertsPerToken = c.need({"num_experts_per_tok"}, kHfMaxExperts);
    m.moe.expertIntermediateSize = m.intermediateSize;
    c.throwIfMissing();
    m.moe.sharedExperts = c.integerOr({"n_shared_experts"}, 0, 0, kHfMaxExperts);
    x.hashLayers = c.integerOr({"num_hash_layers"}, 0, 0, m.layers);
    m.mtpLayers = c.integerOr({"num_nextn_predict_layers"}, 0, 0, 64);
}

// Qwen3-Next / Qwen3.5 text: Gated DeltaNet on the linear layers, gated full
// attention (q_proj doubled) with q/k norms on every full_attention_interval-th
// layer; MoE with a gated shared expert.
void readQwenHybrid(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.intermediateRequired = !c.has("num_experts");
    readDecoder(c, m, keys);
    m.qkNorm = true;
    m.qkvBias = c.flag("attention_bias", false);
    m.attnOutputGate = c.flag("attn_output_gate", true);
    int linear = c.countInList("layer_types", "linear_attention");
    if (linear < 0) {
        const int interval = c.integerOr({"full_attention_interval"}, 4, 1, kHfMaxLayers);
        linear = m.layers - m.layers / interval;
    }
    m.linear.kind = LinearKind::GatedDeltaNet;
    m.linear.layers = linear;
    m.linear.keyHeads = c.need({"linear_num_key_heads"}, kHfMaxHeads);
    m.linear.valueHeads = c.need({"linear_num_value_heads"}, kHfMaxHeads);
    m.linear.keyHeadDim = c.need({"linear_key_head_dim"}, kHfMaxHidden);
    m.linear.valueHeadDim = c.need({"linear_value_head_dim"}, kHfMaxHidden);
    m.linear.convKernel = c.integerOr({"linear_conv_kernel_dim"}, 4, 1, 64);
    c.throwIfMissing();
    m.mtpLayers = c.integerOr({"mtp_num_hidden_layers", "num_nextn_predict_layers"}, 0, 0, 64);
    if (!c.has("num_experts")) return;
    m.moe.experts = c.need({"num_experts"}, kHfMaxExperts);
    m.moe.expertsPerToken = c.need({"num_experts_per_tok"}, kHfMaxExperts);
    m.moe.expertIntermediateSize = c.need({"moe_intermediate_size"}, kHfMaxIntermediate);
    c.throwIfMissing();
    if (m.intermediateSize <= 0) m.intermediateSize = m.moe.expertIntermediateSize;  // unused: every layer MoE
    const int shared = c.integerOr({"shared_expert_intermediate_size"}, 0, 0, kHfMaxIntermediate);
    m.moe.sharedExperts = shared / m.moe.expertIntermediateSize;
    if (shared > 0) m.extraParams += static_cast<std::int64_t>(m.hiddenSize) * moeLayersOf(m);  // shared_expert_gate
    m.moe.sharedExpertGate = shared > 0;
}

// Nemotron-H: one mixer or one MLP per block as hybrid_override_pattern
// spells it (M = Mamba-2, * = attention, - = MLP, E = MoE) or, in newer
// configs (Nemotron 3 Ultra), as the layers_block_type list; squared-ReLU MLPs.
std::string nemotronPattern(const ConfigView& c, int layers) {
    const Json* list = c.find({"layers_block_type"});
    if (!c.has("hybrid_override_pattern") && list && list->is_array()) {
        std::string pattern;
        for (const Json& block : *list) {
            const std::string kind = block.is_string() ? block.get<std::string>() : "";
            const char letter = kind == "mamba" ? 'M' : kind == "attention" ? '*' : kind == "moe" ? 'E' : kind == "mlp" ? '-' : '?';
            if (letter == '?') {
                fail("invalid_config", c.path() + "/layers_block_type",
                     "expected mamba, attention, moe or mlp for each layer");
            }
            pattern += letter;
        }
        if (static_cast<int>(pattern.size()) != layers) {
            fail("invalid_config", c.path() + "/layers_block_type", "expected one entry per layer");
        }
        return pattern;
    }
    const std::string pattern = c.text("hybrid_override_pattern");
    if (static_cast<int>(pattern.size()) != layers) {
        fail("invalid_config", c.path() + "/hybrid_override_pattern", "expected one letter per layer");
    }
    return pattern;
}

void readNemotronH(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    const Json* blocks = c.find({"layers_block_type"});
    if (blocks && blocks->is_array() && !blocks->empty() && blocks->size() <= static_cast<std::size_t>(kHfMaxLayers)) {
        keys.layersDefault = static_cast<std::int64_t>(blocks->size());  // Nemotron 3 Ultra omits num_hidden_layers
    }
    readDecoder(c, m, keys);
    m.headDim = c.integerOr({"head_dim", "attention_head_dim"}, m.hiddenSize / m.heads, 1, kHfMaxHidden);
    m.mlp = MlpKind::Plain;
    m.normsPerLayer = 1;
    m.qkvBias = m.attnOutBias = c.flag("attention_bias", false);
    const std::string pattern = nemotronPattern(c, m.layers);
    int mamba = 0, ffn = 0, moe = 0;
    for (char letter : pattern) {
        mamba += letter == 'M';
        ffn += letter == '-' || letter == 'E';
        moe += letter == 'E';
    }
    m.linear.kind = LinearKind::Mamba2;
    m.linear.layers = mamba;
    m.linear.ffnOnlyLayers = ffn;
    m.linear.keyHeads = c.need({"n_groups"}, kHfMaxHeads);
    m.linear.valueHeads = c.need({"mamba_num_heads"}, kHfMaxHeads);
    m.linear.keyHeadDim = c.need({"ssm_state_size"}, kHfMaxHidden);
    m.linear.valueHeadDim = c.need({"mamba_head_dim"}, kHfMaxHidden);
    m.linear.convKernel = c.integerOr({"conv_kernel"}, 4, 1, 64);
    m.mtpLayers = c.integerOr({"num_nextn_predict_layers"}, 0, 0, 64);
    c.throwIfMissing();
    if (moe == 0) return;
    m.moe.experts = c.need({"n_routed_experts"}, kHfMaxExperts);
    m.moe.expertsPerToken = c.need({"num_experts_per_tok"}, kHfMaxExperts);
    m.moe.expertIntermediateSize = c.need({"moe_intermediate_size"}, kHfMaxIntermediate);
    c.throwIfMissing();
    const int shared = c.integerOr({"moe_shared_expert_intermediate_size"}, 0, 0, kHfMaxIntermediate);
    m.moe.sharedExperts = shared / m.moe.expertIntermediateSize;
    m.extraParams += static_cast<std::int64_t>(moe) * m.moe.experts;  // e_score_correction_bias
    // LatentMoE (Nemotron 3 Super/Ultra): routed experts work in a
    // moe_latent_size-wide space between a down and an up projection of the
    // hidden state. An expert of width I at latent L weighs (and costs) what
    // one of width I x L / H does at hidden H, so it is stored that way; the
    // shared expert stays at full width and the two projections per MoE block
    // are extra parameters every token uses.
    const int latent = c.integerOr({"moe_latent_size"}, 0, 0, kHfMaxHidden);
    if (latent > 0 && latent != m.hiddenSize) {
        const std::int64_t scaled = static_cast<std::int64_t>(m.moe.expertIntermediateSize) * latent;
        m.moe.expertIntermediateSize = static_cast<int>(std::max<std::int64_t>(1, (scaled + m.hiddenSize / 2) / m.hiddenSize));
        m.moe.sharedExperts = shared > 0 ? 1 : 0;
        m.moe.sharedExpertIntermediateSize = shared;
        m.extraParams += static_cast<std::int64_t>(moe) * 2 * m.hiddenSize * latent;
    }
}

// MiniMax-M2: every layer MoE (num_local_experts of intermediate_size), q/k
// RMSNorm over all heads (qk_norm_type per_layer) and a routing bias.
void readMiniMaxM2(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    m.moe.experts = c.need({"num_local_experts"}, kHfMaxExperts);
    m.moe.expertsPerToken = c.need({"num_experts_per_tok"}, kHfMaxExperts);
    c.throwIfMissing();
    m.moe.expertIntermediateSize = m.intermediateSize;
    m.extraParams += static_cast<std::int64_t>(m.layers) *
                     (static_cast<std::int64_t>(m.heads + m.kvHeads) * m.headDim + m.moe.experts);
}

void readQwen3VlText(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    m.qkNorm = true;
    m.qkvBias = c.flag("attention_bias", false);
    if (!c.has("num_experts")) return;
    m.moe.experts = c.need({"num_experts"}, kHfMaxExperts);
    m.moe.expertsPerToken = c.need({"num_experts_per_tok"}, kHfMaxExperts);
    m.moe.expertIntermediateSize = c.need({"moe_intermediate_size"}, kHfMaxIntermediate);
    c.throwIfMissing();
}

// Qwen3-VL / Qwen3.5 vision tower (transformers Qwen3VLVisionModel): Conv3d
// patch embedding, learned positions, ViT blocks with biases, the patch
// merger and one post-shuffle-norm merger per DeepStack layer.
std::int64_t qwenVisionParams(const ConfigView& v) {
    const Json& j = v.json();
    auto get = [&](const char* key, std::int64_t fallback) {
        auto it = j.find(key);
        return it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
    };
    const std::int64_t h = get("hidden_size", 0), i = get("intermediate_size", 0), p = get("patch_size", 16);
    const std::int64_t merge = get("spatial_merge_size", 2), out = get("out_hidden_size", 0);
    if (h <= 0 || i <= 0 || out <= 0 || h > kHfMaxHidden || i > kHfMaxIntermediate || out > kHfMaxHidden) return 0;
    const std::int64_t hm = h * merge * merge;
    std::int64_t n = get("in_channels", 3) * get("temporal_patch_size", 2) * p * p * h + h;
    n += get("num_position_embeddings", 0) * h;
    n += std::min<std::int64_t>(get("depth", 0), kHfMaxLayers) * (4 * h + 4 * h * h + 4 * h + 2 * h * i + i + h);
    const std::int64_t merger = hm * hm + hm + hm * out + out;
    auto deep = j.find("deepstack_visual_indexes");
    const std::int64_t deepstack = deep != j.end() && deep->is_array() ? static_cast<std::int64_t>(deep->size()) : 0;
    return n + 2 * h + merger + deepstack * (2 * hm + merger);
}

void withQwenVision(ConfigView& c, ModelSpec& m, void (*text)(ConfigView&, ModelSpec&)) {
    ConfigView t = c.nested("text_config");
    text(t, m);
    if (!t.has("tie_word_embeddings")) m.tiedEmbeddings = c.flag("tie_word_embeddings", false);  // kept at the top level
    if (c.has("vision_config")) {
        m.extraParams += qwenVisionParams(c.nested("vision_config"));
        m.modality = "vision";
    }
}

void readQwen3Vl(ConfigView& c, ModelSpec& m) { withQwenVision(c, m, readQwen3VlText); }
void readQwen35(ConfigView& c, ModelSpec& m) { withQwenVision(c, m, readQwenHybrid); }

// Granite 4.0 hybrid (GraniteMoeHybrid): Mamba-2 or attention per layer as
// layer_types lists them, each followed by the always-on shared MLP
// (shared_intermediate_size) and, in the MoE sizes, routed experts of
// intermediate_size.
void readGraniteHybrid(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.intermediateRequired = false;
    keys.tiedByDefault = true;
    readDecoder(c, m, keys);
    m.qkvBias = m.attnOutBias = c.flag("attention_bias", false);
    const int mamba = c.countInList("layer_types", "mamba");
    if (mamba > 0) {
        m.linear.kind = LinearKind::Mamba2;
        m.linear.layers = mamba;
        m.linear.keyHeads = c.integerOr({"mamba_n_groups"}, 1, 1, kHfMaxHeads);
        m.linear.valueHeads = c.need({"mamba_n_heads"}, kHfMaxHeads);
        m.linear.keyHeadDim = c.need({"mamba_d_state"}, kHfMaxHidden);
        m.linear.valueHeadDim = c.need({"mamba_d_head"}, kHfMaxHidden);
        m.linear.convKernel = c.integerOr({"mamba_d_conv"}, 4, 1, 64);
    }
    const int width = c.integerOr({"intermediate_size"}, 0, 0, kHfMaxIntermediate);
    const int shared = c.integerOr({"shared_intermediate_size"}, width, 0, kHfMaxIntermediate);
    const int experts = c.integerOr({"num_local_experts"}, 0, 0, kHfMaxExperts);
    if (experts >= 2 && width > 0) {
        m.moe.experts = experts;
        m.moe.expertsPerToken = c.need({"num_experts_per_tok"}, kHfMaxExperts);
        m.moe.expertIntermediateSize = width;
        m.moe.sharedExperts = shared / width;
        m.intermediateSize = width;  // unused: every layer MoE
    } else {
        m.intermediateSize = shared > 0 ? shared : width;
    }
    c.throwIfMissing();
    if (m.intermediateSize <= 0) fail("invalid_config", c.path() + "/shared_intermediate_size", "config.json lacks the MLP width");
}

// Kimi K2.5: the Kimi K2 (DeepSeek-V3) text model in text_config; the MoonViT
// tower is not read (warned by the caller as not counted).
void readKimiK25(ConfigView& c, ModelSpec& m) {
    ConfigView t = c.nested("text_config");
    readSparseMla(t, m);
    if (c.has("vision_config")) m.modality = "vision";
}

}  // namespace

FamilyReader hybridFamilyReader(const std::string& modelType) {
    static const std::map<std::string, FamilyReader> kFamilies = {
        {"glm4_moe", readGlm4Moe},        {"deepseek_v32", readSparseMla},    {"glm_moe_dsa", readSparseMla},
        {"qwen3_next", readQwenHybrid},   {"qwen3_5_text", readQwenHybrid},   {"qwen3_5_moe_text", readQwenHybrid},
        {"qwen3_5", readQwen35},          {"qwen3_5_moe", readQwen35},        {"nemotron_h", readNemotronH},
        {"minimax_m2", readMiniMaxM2},    {"qwen3_vl", readQwen3Vl},          {"qwen3_vl_moe", readQwen3Vl},
        {"qwen3_vl_text", readQwen3VlText}, {"qwen3_vl_moe_text", readQwen3VlText}, {"kimi_k25", readKimiK25},
        {"granitemoehybrid", readGraniteHybrid}, {"gemma4", readGemma4},     {"gemma4_text", readGemma4Text},
        {"lfm2", readLfm2},               {"mimo_v2_flash", readMiMoV2Flash},
        {"deepseek_v4", readDeepSeekV4},
    };
    auto it = kFamilies.find(modelType);
    return it == kFamilies.end() ? nullptr : it->second;
}

// Keys that mark a mixture-of-experts config in the families that use them.
// Dense configs often carry the keys at 0 ("num_local_experts": 0), so an
// expert count of at least 2 is what marks a mixture of experts.
bool hasMoeKeys(const ConfigView& c) {
    for (const char* key : {"n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts"}) {
        auto it = c.json().find(key);
        if (it != c.json().end() && it->is_number_integer() && it->get<std::int64_t>() >= 2) return true;
    }
    return false;
}

// Reads the experts of an unknown family from the spellings the known ones
// use; returns what it assumed, for the warning.
std::string readMoeByKeys(ConfigView& c, ModelSpec& m) {
    m.moe.experts = c.need({"n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts"}, kHfMaxExperts);
    m.moe.expertsPerToken = c.need({"num_experts_per_tok", "moe_k", "moe_topk", "experts_per_token"}, kHfMaxExperts);
    c.throwIfMissing();
    std::string widthKey = "moe_intermediate_size";
    if (c.has("moe_intermediate_size")) {
        m.moe.expertIntermediateSize = c.need({"moe_intermediate_size"}, kHfMaxIntermediate);
    } else {
        m.moe.expertIntermediateSize = m.intermediateSize;  // Mixtral convention
        widthKey = "intermediate_size";
    }
    const int sharedWidth = c.integerOr({"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"}, 0, 0,
                                        kHfMaxIntermediate);
    m.moe.sharedExperts = sharedWidth > 0 ? sharedWidth / std::max(1, m.moe.expertIntermediateSize)
                                          : c.integerOr({"n_shared_experts", "num_shared_experts", "moe_num_shared_experts"},
                                                        0, 0, kHfMaxExperts);
    m.moe.denseLayers = c.integerOr({"first_k_dense_replace", "moe_layer_start_index"}, 0, 0, m.layers - 1);
    return std::to_string(m.moe.experts) + " experts (" + std::to_string(m.moe.expertsPerToken) + " per token, width " +
           std::to_string(m.moe.expertIntermediateSize) + " from " + widthKey + "), " +
           std::to_string(m.moe.sharedExperts) + " shared, " + std::to_string(m.moe.denseLayers) +
           " leading dense layers";
}

}  // namespace caliper::io
