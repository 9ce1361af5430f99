// ModelSpec -> the catalog's model shape, with the computed listing keys.
#include <cmath>

#include "json/catalog/model_json.hpp"
#include "caliper/workloads/workloads.hpp"
#include "json/catalog/workload_shape_json.hpp"

namespace caliper::io {

namespace {

const char* attentionName(AttentionKind kind) {
    switch (kind) {
        case AttentionKind::Mha: return "mha";
        case AttentionKind::Mqa: return "mqa";
        case AttentionKind::Mla: return "mla";
        case AttentionKind::Gqa: break;
    }
    return "gqa";
}

const char* positionName(PositionKind kind) {
    switch (kind) {
        case PositionKind::Alibi: return "alibi";
        case PositionKind::Learned: return "learned";
        case PositionKind::Relative: return "relative";
        case PositionKind::Rope: break;
    }
    return "rope";
}

// Billions to three decimals, as the catalog writes them (8.03 -> "8.03").
double billions(double params) { return std::round(params / 1e6) / 1e3; }

Json nullableCount(std::int64_t value) { return value > 0 ? Json(value) : Json(nullptr); }

Json moeJson(const MoeSpec& moe) {
    if (moe.experts <= 0) return nullptr;
    Json j{{"experts", moe.experts}, {"experts_per_token", moe.expertsPerToken},
           {"shared_experts", moe.sharedExperts}, {"expert_intermediate_size", moe.expertIntermediateSize},
           {"dense_layers", moe.denseLayers}, {"layer_interval", moe.layerInterval}};
    if (moe.sharedExpertIntermediateSize > 0) j["shared_expert_intermediate_size"] = moe.sharedExpertIntermediateSize;
    if (moe.sharedExpertGate) j["shared_expert_gate"] = true;
    if (moe.peftFrozenExperts) j["peft_all_linear_experts"] = "frozen";
    return j;
}

Json mlaJson(const ModelSpec& m) {
    if (m.attention != AttentionKind::Mla) return nullptr;
    return Json{{"kv_lora_rank", m.mla.kvLoraRank}, {"q_lora_rank", m.mla.qLoraRank},
                {"qk_nope_head_dim", m.mla.qkNopeHeadDim}, {"qk_rope_head_dim", m.mla.qkRopeHeadDim},
                {"v_head_dim", m.mla.vHeadDim}};
}

Json linearJson(const LinearAttentionSpec& l) {
    if (l.layers <= 0) return nullptr;
    if (l.kind == LinearKind::ShortConv) {
        return Json{{"kind", "short_conv"}, {"layers", l.layers}, {"ffn_only_layers", l.ffnOnlyLayers},
                    {"conv_kernel", l.convKernel}};
    }
    return Json{{"kind", l.kind == LinearKind::Mamba2 ? "mamba2" : "gated_deltanet"}, {"layers", l.layers},
                {"ffn_only_layers", l.ffnOnlyLayers}, {"key_heads", l.keyHeads}, {"value_heads", l.valueHeads},
                {"key_head_dim", l.keyHeadDim}, {"value_head_dim", l.valueHeadDim}, {"conv_kernel", l.convKernel}};
}

Json sparseJson(const SparseAttentionSpec& x) {
    if (x.indexHeads <= 0) return nullptr;
    Json j{{"index_heads", x.indexHeads}, {"index_head_dim", x.indexHeadDim}, {"index_topk", x.indexTopk}};
    if (x.indexLayers > 0) j["index_layers"] = x.indexLayers;
    return j;
}

}  // namespace

Json modelToJson(const ModelSpec& m) {
    const ParamCounts params = countParams(m);
    Json j{{"id", m.id}, {"name", m.name}, {"hf_id", m.hfId}, {"family", m.family}, {"aliases", m.aliases},
           {"modality", m.modality}, {"release_year", nullableCount(m.releaseYear)}, {"license", m.license},
           {"native_dtype", m.nativeDtype},
           {"native_weights", m.nativeWeights ? Json(toString(*m.nativeWeights)) : Json(nullptr)},
           {"params_b", billions(params.total)},
           {"active_params_b", billions(params.active)}, {"params_exact", nullableCount(m.paramsExact)},
           {"layers", m.layers}, {"hidden_size", m.hiddenSize}, {"intermediate_size", m.intermediateSize},
           {"heads", m.heads}, {"kv_heads", m.kvHeads}, {"head_dim", m.headDim}, {"vocab_size", m.vocabSize},
           {"max_context", nullableCount(m.maxContext)}, {"attention", attentionName(m.attention)},
           {"mlp", m.mlp == MlpKind::Plain ? "plain" : "gated"},
           {"norm", m.norm == NormKind::LayerNorm ? "layernorm" : "rmsnorm"}, {"position", positionName(m.position)},
           {"qkv_bias", m.qkvBias}, {"attn_out_bias", m.attnOutBias}, {"mlp_bias", m.mlpBias}, {"qk_norm", m.qkNorm},
           {"tied_embeddings", m.tiedEmbeddings}, {"parallel_block", m.parallelBlock},
           {"embedding_norm", m.embeddingNorm}, {"norms_per_layer", m.normsPerLayer},
           {"sliding_window", nullableCount(m.slidingWindow)}, {"sliding_window_layers", m.slidingLayers},
           {"moe", moeJson(m.moe)}, {"mla", mlaJson(m)}, {"cross_attention_layers", m.crossAttentionLayers},
           {"cross_attention_tokens", m.crossAttentionTokens}, {"encoder_layers", m.encoderLayers},
           {"extra_params", m.extraParams},
           {"kv_bytes_per_token", static_cast<std::int64_t>(std::llround(kvBytesPerToken16(m)))},
           {"confidence", m.confidence}, {"sources", m.sources}, {"notes", m.notes}};
    if (!m.releaseDate.empty()) j["release_date"] = m.releaseDate;
    if (!m.notesZh.empty()) j["notes_zh"] = m.notesZh;
    j["linear_attention"] = linearJson(m.linear);
    j["sparse_attention"] = sparseJson(m.sparse);
    j["attn_output_gate"] = m.attnOutputGate;
    j["mtp_layers"] = m.mtpLayers;
    if (m.mtpDense) j["mtp_dense"] = true;
    if (m.vHeadDim > 0) j["v_head_dim"] = m.vHeadDim;
    if (m.swaKvHeads > 0) j["swa_kv_heads"] = m.swaKvHeads;
    if (m.global.headDim > 0) {
        j["global_attention"] = Json{{"head_dim", m.global.headDim}, {"kv_heads", m.global.kvHeads}, {"k_eq_v", m.global.kEqV}};
    }
    if (hasCompressedAttention(m)) {
        const CompressedAttentionSpec& c = m.compressed;
        j["compressed_attention"] = Json{{"window", c.window},       {"q_lora_rank", c.qLoraRank}, {"o_lora_rank", c.oLoraRank},
                                         {"o_groups", c.oGroups},    {"csa_layers", c.csaLayers},  {"csa_ratio", c.csaRatio},
                                         {"hca_layers", c.hcaLayers}, {"hca_ratio", c.hcaRatio},   {"hc_mult", c.hcMult},
                                         {"hash_layers", c.hashLayers}};
    }
    if (hasPipeline(m)) {  // a pipeline's size is all its components
        j["params_b"] = billions(pipelineParams(m));
        j["active_params_b"] = j["params_b"];
    }
    writeWorkload(m, j);
    if (m.shapeAssumed) j["shape_assumed"] = true;
    return j;
}

}  // namespace caliper::io
