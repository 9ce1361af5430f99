// Families whose layers come in two shapes: Gemma 4 (sliding-window layers
// beside global layers of another head width and KV heads; in the MoE
// variant a dense MLP beside the experts) and LFM2 (gated short-convolution
// layers beside attention layers). Defaults are those of the transformers
// config classes (Gemma4TextConfig, Lfm2Config).
#include <cmath>

#include "json/hf_config/config_view.hpp"

namespace caliper::io {

namespace {

// Layers named `value` in layer_types; without the list Gemma4TextConfig's
// default: every sixth layer global, the last one always global.
int gemma4SlidingLayers(const ConfigView& c, int layers) {
    const int listed = c.countInList("layer_types", "sliding_attention");
    if (listed >= 0) return listed;
    int sliding = 0;
    for (int i = 0; i + 1 < layers; ++i) sliding += (i + 1) % 6 != 0 ? 1 : 0;
    return sliding;
}

}  // namespace

// Gemma 4 text (transformers Gemma4TextAttention / Gemma4TextDecoderLayer):
// four norms and per-head q/k norms per layer; global layers use
// global_head_dim and, where keys double as values (attention_k_eq_v, no
// v_proj), num_global_key_value_heads. enable_moe_block adds, beside the
// dense MLP, a router (proj, a hidden-wide scale, a per-expert scale), the
// experts and three more norms.
void readGemma4Text(ConfigView& c, ModelSpec& m) {
    if (c.integerOr({"hidden_size_per_layer_input"}, 0, 0, kHfMaxHidden) > 0 ||
        c.integerOr({"num_kv_shared_layers"}, 0, 0, kHfMaxLayers) > 0) {
        fail("invalid_config", childPath(c.path(), "hidden_size_per_layer_input"),
             "Gemma 4 per-layer embeddings and KV-sharing layers (E2B, E4B) are not modelled; the 26B-A4B and 31B "
             "configs are");
    }
    readGemmaDecoder(c, m, 262144);
    m.qkvBias = m.attnOutBias = c.flag("attention_bias", false);
    m.slidingWindow = c.integerOr({"sliding_window"}, 512, 0, kHfMaxPositions);
    m.slidingLayers = m.slidingWindow > 0 ? gemma4SlidingLayers(c, m.layers) : 0;
    const bool kEqV = c.flag("attention_k_eq_v", false);
    const int globalHeadDim = c.integerOr({"global_head_dim"}, 512, 1, kHfMaxHidden);
    const int globalKvHeads = kEqV ? c.integerOr({"num_global_key_value_heads"}, m.kvHeads, 1, kHfMaxHeads) : m.kvHeads;
    if (m.slidingWindow > 0 && (globalHeadDim != m.headDim || globalKvHeads != m.kvHeads || kEqV)) {
        m.global = {globalHeadDim, globalKvHeads, kEqV};
    }
    if (!c.flag("enable_moe_block", false)) return;
    m.moe.experts = c.need({"num_experts"}, kHfMaxExperts);
    m.moe.expertsPerToken = c.need({"top_k_experts"}, kHfMaxExperts);
    m.moe.expertIntermediateSize = c.need({"moe_intermediate_size"}, kHfMaxIntermediate);
    c.throwIfMissing();
    m.moe.sharedExperts = 1;  // the dense MLP, always on
    m.moe.sharedExpertIntermediateSize = m.intermediateSize;
    m.normsPerLayer = 7;  // + post_feedforward_layernorm_1/_2, pre_feedforward_layernorm_2
    m.extraParams += static_cast<std::int64_t>(m.layers) * (m.hiddenSize + m.moe.experts);  // router scale, per_expert_scale
}

// Gemma 4 multimodal config: the decoder in text_config, the vision encoder
// counted from vision_config (the audio encoder of the E models is refused
// with them above).
void readGemma4(ConfigView& c, ModelSpec& m) {
    ConfigView text = c.nested("text_config");
    readGemma4Text(text, m);
    if (!c.has("vision_config")) return;
    m.extraParams += gemma4VisionParams(c.nested("vision_config"), m.hiddenSize);
    m.modality = "vision";
}

// LFM2 (transformers Lfm2ShortConv / Lfm2DecoderLayer): "conv" layers hold a
// gated depthwise convolution (in_proj hidden -> 3 hidden, conv1d of
// conv_L_cache taps, out_proj), the others GQA attention with q/k norms; every
// layer a SwiGLU MLP whose width block_auto_adjust_ff_dim shrinks to 2/3,
// scaled by block_ffn_dim_multiplier and rounded up to block_multiple_of.
void readLfm2(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.tiedByDefault = c.flag("tie_embedding", true);
    keys.intermediate = {"block_ff_dim", "intermediate_size"};
    readDecoder(c, m, keys);
    m.qkNorm = true;
    if (c.flag("block_auto_adjust_ff_dim", true)) {
        std::int64_t ff = 2 * std::int64_t(m.intermediateSize) / 3;
        const Json* multiplier = c.find({"block_ffn_dim_multiplier"});
        if (multiplier) {
            if (!multiplier->is_number()) {
                failType("invalid_config", childPath(c.path(), "block_ffn_dim_multiplier"), "a number", *multiplier);
            }
            const int multipleOf = c.integerOr({"block_multiple_of"}, 256, 1, kHfMaxIntermediate);
            ff = static_cast<std::int64_t>(multiplier->get<double>() * double(ff));
            ff = multipleOf * ((ff + multipleOf - 1) / multipleOf);
        }
        if (ff < 1 || ff > kHfMaxIntermediate) {
            fail("invalid_config", childPath(c.path(), "block_ff_dim"), "the adjusted MLP width is out of range");
        }
        m.intermediateSize = static_cast<int>(ff);
    }
    int convLayers = c.countInList("layer_types", "conv");
    if (convLayers < 0) {  // early configs list the attention layers instead
        const Json* idxs = c.find({"full_attn_idxs"});
        if (!idxs || !idxs->is_array()) {
            fail("invalid_config", childPath(c.path(), "layer_types"), "config.json lacks layer_types and full_attn_idxs");
        }
        convLayers = m.layers - static_cast<int>(idxs->size());
    }
    if (convLayers < 0 || convLayers >= m.layers) {
        fail("invalid_config", childPath(c.path(), "layer_types"), "LFM2 needs at least one attention layer");
    }
    if (convLayers == 0) return;
    m.linear.kind = LinearKind::ShortConv;
    m.linear.layers = convLayers;
    m.linear.convKernel = c.integerOr({"conv_L_cache"}, 3, 2, 64);
    m.linear.valueHeads = m.hiddenSize;  // channels, width 1
    m.linear.valueHeadDim = 1;
    if (c.flag("conv_bias", false)) {  // in_proj, conv1d and out_proj biases
        m.extraParams += static_cast<std::int64_t>(convLayers) * 5 * m.hiddenSize;
    }
}

}  // namespace caliper::io
