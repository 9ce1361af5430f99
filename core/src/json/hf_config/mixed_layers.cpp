// Families whose layers come in two shapes: Gemma 4 (sliding-window layers
// beside global layers of another head width and KV heads; in the MoE
// variant a dense MLP beside the experts), MiMo-V2-Flash (sliding-window
// layers with more KV heads than the full-attention ones) and LFM2 (gated
// short-convolution layers beside attention layers). Defaults are those of
// the transformers config classes (Gemma4TextConfig, MiMoV2FlashConfig,
// Lfm2Config).
#include <algorithm>
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

// Entries of a per-layer list equal to `value` (MiMo's hub hybrid_layer_pattern
// and moe_layer_freq: 0/1 per layer); -1 without the list.
int countNumberInList(const ConfigView& c, const char* key, int value) {
    const Json* list = c.find({key});
    if (!list) return -1;
    if (!list->is_array()) failType("invalid_config", childPath(c.path(), key), "a list of 0 and 1 per layer", *list);
    int n = 0;
    for (const Json& item : *list) n += item.is_number_integer() && item.get<int>() == value ? 1 : 0;
    return n;
}

// A head shape the MiMo hub config may set apart for its sliding layers
// (swa_head_dim, swa_v_head_dim, swa_num_attention_heads); only the KV heads
// are modelled apart, so another value is refused rather than misread.
void requireSameAsFull(ConfigView& c, const char* swaKey, int full) {
    const int swa = c.integerOr({swaKey}, full, 1, kHfMaxHidden);
    if (swa != full) {
        fail("invalid_config", childPath(c.path(), swaKey),
             std::string(swaKey) + " " + std::to_string(swa) + " differs from the full-attention layers' " +
                 std::to_string(full) + "; only swa_num_key_value_heads may differ");
    }
}

}  // namespace

// Xiaomi MiMo-V2-Flash (transformers MiMoV2FlashConfig / MiMoV2FlashAttention,
// and the hub config.json it converts from): q/k heads of head_dim 192, values
// of v_head_dim 128 (v_proj and o_proj at that width); sliding-window layers
// (layer_types, or the hub's hybrid_layer_pattern 1 = sliding; default: full
// on layer 0 and every sixth) with swa_num_key_value_heads KV heads (the
// transformers port: twice num_key_value_heads) and a per-head attention sink;
// leading dense MLP layers (mlp_layer_types "dense" / moe_layer_freq 0), then
// routed experts without shared ones, with a DeepSeek-V3 router
// (e_score_correction_bias per expert).
void readMiMoV2Flash(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    if (!c.has("head_dim")) m.headDim = 192;
    m.vHeadDim = c.integerOr({"v_head_dim"}, 128, 1, kHfMaxHidden);
    if (m.vHeadDim == m.headDim) m.vHeadDim = 0;
    m.qkvBias = c.flag("attention_bias", false);
    m.slidingWindow = c.integerOr({"sliding_window", "sliding_window_size"}, 128, 0, kHfMaxPositions);
    int sliding = c.countInList("layer_types", "sliding_attention");
    if (sliding < 0) sliding = countNumberInList(c, "hybrid_layer_pattern", 1);
    if (sliding < 0) {
        sliding = 0;
        for (int i = 1; i < m.layers; ++i) sliding += (i + 1) % 6 != 0 ? 1 : 0;
    }
    m.slidingLayers = m.slidingWindow > 0 ? std::min(sliding, m.layers) : 0;
    const int swaKvHeads = c.integerOr({"swa_num_key_value_heads"}, 2 * m.kvHeads, 1, kHfMaxHeads);
    if (swaKvHeads > m.heads) {
        fail("invalid_config", childPath(c.path(), "swa_num_key_value_heads"),
             "swa_num_key_value_heads " + std::to_string(swaKvHeads) + " exceeds num_attention_heads " +
                 std::to_string(m.heads));
    }
    requireSameAsFull(c, "swa_num_attention_heads", m.heads);
    requireSameAsFull(c, "swa_head_dim", m.headDim);
    requireSameAsFull(c, "swa_v_head_dim", m.vHeadDim > 0 ? m.vHeadDim : m.headDim);
    if (m.slidingLayers > 0 && swaKvHeads != m.kvHeads) m.swaKvHeads = swaKvHeads;
    // Attention sinks: one per query head on the layers that carry them
    // (transformers: the sliding ones; hub: add_*_attention_sink_bias).
    const int fullLayers = m.layers - m.slidingLayers;
    const int sinkLayers = (c.flag("add_swa_attention_sink_bias", true) ? m.slidingLayers : 0) +
                           (c.flag("add_full_attention_sink_bias", false) ? fullLayers : 0);
    m.extraParams = static_cast<std::int64_t>(sinkLayers) * m.heads;
    // The hub config's MTP layers (model.mtp.layers.*: sliding attention and
    // a dense MLP, vLLM mimo_v2_mtp.py); the transformers port has none.
    m.mtpLayers = c.integerOr({"num_nextn_predict_layers"}, 0, 0, 64);
    m.mtpDense = m.mtpLayers > 0;
    m.moe.experts = c.integerOr({"n_routed_experts", "num_local_experts"}, 256, 0, kHfMaxExperts);
    if (m.moe.experts < 2) {
        m.moe.experts = 0;
        return;
    }
    m.moe.expertsPerToken = c.integerOr({"num_experts_per_tok"}, 8, 1, kHfMaxExperts);
    m.moe.expertIntermediateSize = c.integerOr({"moe_intermediate_size"}, 2048, 1, kHfMaxIntermediate);
    int dense = c.countInList("mlp_layer_types", "dense");
    if (dense < 0) dense = countNumberInList(c, "moe_layer_freq", 0);
    if (dense < 0) dense = 1;
    if (dense >= m.layers) {
        fail("invalid_config", childPath(c.path(), "mlp_layer_types"), "MiMo-V2-Flash needs at least one MoE layer");
    }
    m.moe.denseLayers = dense;
    m.extraParams += static_cast<std::int64_t>(m.layers - dense) * m.moe.experts;  // e_score_correction_bias
}

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
