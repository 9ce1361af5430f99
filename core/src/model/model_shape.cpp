// The architecture figures of the memory model: linear weights by tensor
// group (for llama.cpp's per-tensor quantization rules), the matrix widths
// LoRA adapts, and the sizes of the units that sharded training gathers.
// Layer layout as in model_params.cpp (Hugging Face implementations).
#include <algorithm>

#include "memory/sizing.hpp"

namespace caliper::sizing {

namespace {

struct AttentionDims {
    LinearGroups groups;  // one layer
    double loraDims = 0;  // sum of (d_in + d_out) of its matrices
};

void addMatrix(AttentionDims& a, double& group, double dIn, double dOut) {
    group += dIn * dOut;
    a.loraDims += dIn + dOut;
}

AttentionDims attentionDims(const ModelSpec& m, const ModelShape& s) {
    AttentionDims a;
    if (m.attention == AttentionKind::Mla) {
        const MlaSpec& x = m.mla;
        const double qk = x.qkNopeHeadDim + x.qkRopeHeadDim;
        if (x.qLoraRank > 0) {
            addMatrix(a, a.groups.other, s.hidden, x.qLoraRank);
            addMatrix(a, a.groups.other, x.qLoraRank, s.heads * qk);
        } else {
            addMatrix(a, a.groups.q, s.hidden, s.heads * qk);
        }
        addMatrix(a, a.groups.other, s.hidden, x.kvLoraRank + x.qkRopeHeadDim);
        addMatrix(a, a.groups.v, x.kvLoraRank, s.heads * (x.qkNopeHeadDim + x.vHeadDim));  // attn_kv_b
        addMatrix(a, a.groups.o, s.heads * x.vHeadDim, s.hidden);
        return a;
    }
    if (hasCompressedAttention(m)) {
        // DeepSeek-V4 (model_params.cpp compressedAttention): wq_a and wq_b
        // through q_lora_rank, one shared K=V projection, the grouped output
        // LoRA (wo_a: o_groups blocks of q_dim / o_groups x o_lora_rank; wo_b).
        // Compressors and indexers (under 1% of a layer) are spread by the
        // scaling to countParams' total.
        const CompressedAttentionSpec& x = m.compressed;
        addMatrix(a, a.groups.other, s.hidden, x.qLoraRank);
        addMatrix(a, a.groups.other, x.qLoraRank, s.qDim);
        addMatrix(a, a.groups.k, s.hidden, s.headDim);
        addMatrix(a, a.groups.o, s.qDim, x.oLoraRank);
        addMatrix(a, a.groups.o, double(x.oGroups) * x.oLoraRank, s.hidden);
        return a;
    }
    // Values narrower than keys (MiMo-V2-Flash v_head_dim) narrow v_proj and o_proj.
    const double vDim = m.vHeadDim > 0 ? double(s.kvHeads) * m.vHeadDim : s.kvDim;
    const double oIn = m.vHeadDim > 0 ? double(s.heads) * m.vHeadDim : s.qDim;
    addMatrix(a, a.groups.q, s.hidden, s.qDim);
    addMatrix(a, a.groups.k, s.hidden, s.kvDim);
    addMatrix(a, a.groups.v, s.hidden, vDim);
    addMatrix(a, a.groups.o, oIn, s.hidden);
    return a;
}

// Adds `times` MLPs of inner size `inner` to the groups; returns their LoRA dims.
double addMlp(LinearGroups& g, const ModelShape& s, double inner, double times) {
    const double matrix = s.hidden * inner * times;
    if (s.gated) g.gate += matrix;
    g.up += matrix;
    g.down += matrix;
    return (s.gated ? 3.0 : 2.0) * (s.hidden + inner) * times;
}

void scaleGroups(LinearGroups& g, double factor) {
    for (double* x : {&g.q, &g.k, &g.v, &g.o, &g.gate, &g.up, &g.down, &g.other, &g.expert}) *x *= factor;
}

ModelShape scalars(const ModelSpec& m) {
    ModelShape s;
    s.hidden = std::max(1, m.hiddenSize);
    s.vocab = std::max(0, m.vocabSize);
    s.heads = std::max(1, m.heads);
    s.kvHeads = std::max(1, m.kvHeads > 0 ? m.kvHeads : m.heads);
    s.headDim = m.headDim > 0 ? m.headDim : s.hidden / s.heads;
    s.qDim = s.heads * s.headDim;
    s.kvDim = s.kvHeads * s.headDim;
    s.layers = std::max(1, m.layers);
    s.stackLayers = s.layers + std::max(0, m.encoderLayers);
    s.ffn = std::max(0, m.intermediateSize);
    s.expertFfn = std::max(0, m.moe.expertIntermediateSize);
    s.sharedExpertFfn = m.moe.sharedExpertIntermediateSize > 0 ? m.moe.sharedExpertIntermediateSize : s.expertFfn;
    s.experts = std::max(0, m.moe.experts);
    s.topK = std::max(0, m.moe.expertsPerToken);
    s.sharedExperts = std::max(0, m.moe.sharedExperts);
    s.gated = m.mlp == MlpKind::Gated;
    return s;
}

// Fills the tensor groups and LoRA widths of every block linear layer.
void addLinearLayers(const ModelSpec& m, ModelShape& s) {
    const AttentionDims attn = attentionDims(m, s);
    LinearGroups g = attn.groups;
    // Hybrid stacks: attention on the full-attention layers only; the
    // linear/SSM mixers (in_proj, out_proj) go to "other", scaled below.
    const int globalLayers = globalAttentionLayers(m);
    // Sliding layers with KV heads of their own (MiMo-V2-Flash swa_num_key_value_heads).
    const int swaLayers = unitKvHeads(m) != m.kvHeads ? std::min(m.slidingLayers, fullAttentionLayers(m)) : 0;
    const double attentionLayers = fullAttentionLayers(m) + std::max(0, m.encoderLayers) - globalLayers - swaLayers;
    scaleGroups(g, attentionLayers);
    double lora = attn.loraDims * attentionLayers;
    // q: h -> qDim, v: h -> kvDim (LoRA adds r (d_in + d_out) to each).
    const double valueOut = m.vHeadDim > 0 ? double(s.kvHeads) * m.vHeadDim : s.kvDim;
    s.loraDimsQueryValue = (2 * s.hidden + s.qDim + valueOut) * attentionLayers;
    if (swaLayers > 0) {
        ModelShape narrow = s;
        narrow.kvHeads = unitKvHeads(m);
        narrow.kvDim = narrow.kvHeads * narrow.headDim;
        AttentionDims sliding = attentionDims(m, narrow);
        scaleGroups(sliding.groups, swaLayers);
        g.q += sliding.groups.q;
        g.k += sliding.groups.k;
        g.v += sliding.groups.v;
        g.o += sliding.groups.o;
        lora += sliding.loraDims * swaLayers;
        s.loraDimsQueryValue += (2 * s.hidden + s.qDim + double(narrow.kvHeads) * valueHeadDim(m)) * swaLayers;
    }
    if (globalLayers > 0) {  // global layers of their own head width and KV heads (Gemma 4)
        ModelShape wide = s;
        wide.headDim = m.global.headDim;
        wide.kvHeads = m.global.kvHeads > 0 ? m.global.kvHeads : s.kvHeads;
        wide.qDim = wide.heads * wide.headDim;
        wide.kvDim = wide.kvHeads * wide.headDim;
        AttentionDims global = attentionDims(m, wide);
        if (m.global.kEqV) {  // no v_proj
            global.loraDims -= wide.hidden + wide.kvDim;
            global.groups.v = 0;
        }
        scaleGroups(global.groups, globalLayers);
        g.q += global.groups.q;
        g.k += global.groups.k;
        g.v += global.groups.v;
        g.o += global.groups.o;
        g.other += global.groups.other;
        lora += global.loraDims * globalLayers;
        const double value = m.global.kEqV ? 0 : wide.hidden + wide.kvDim;
        s.loraDimsQueryValue += (wide.hidden + wide.qDim + value) * globalLayers;
    }
    if (m.linear.layers > 0) {
        const bool conv = m.linear.kind == LinearKind::ShortConv;  // in_proj yields B, C and x
        const double in = conv ? 3.0 * m.linear.valueHeads * m.linear.valueHeadDim
                               : double(m.linear.keyHeads) * m.linear.keyHeadDim * 2 +
                                     double(m.linear.valueHeads) * m.linear.valueHeadDim * 2;
        const double out = double(m.linear.valueHeads) * m.linear.valueHeadDim;
        g.other += (s.hidden * in + out * s.hidden) * m.linear.layers;
        lora += (s.hidden + in + out + s.hidden) * m.linear.layers;
    }
    if (m.encoderLayers > 0 && m.crossAttentionLayers > 0) {  // Whisper-style cross blocks
        g.other += attn.groups.total() * m.crossAttentionLayers;
        lora += attn.loraDims * m.crossAttentionLayers;
    }
    s.loraDimsAttention = lora;
    const int moeLayers = moeLayerCount(m);
    s.moeLayers = moeLayers;
    s.loraDimsDenseMlp = addMlp(g, s, s.ffn, ffnLayers(m) - moeLayers + std::max(0, m.encoderLayers));
    if (moeLayers > 0) {
        const LinearGroups before = g;
        s.loraDimsRoutedExperts = addMlp(g, s, s.expertFfn, double(s.experts) * moeLayers);
        g.expert = (g.gate - before.gate) + (g.up - before.up) + (g.down - before.down);
        // The shared experts are one MLP as wide as all of them together
        // (transformers' Qwen2MoeSparseMoeBlock.shared_expert of
        // shared_expert_intermediate_size; DeepseekV2Moe.shared_experts of
        // moe_intermediate_size x n_shared_experts): one module per matrix for
        // LoRA, r (h + n f) each rather than n r (h + f). Same weights either way.
        LinearGroups shared = g;
        addMlp(g, s, s.sharedExpertFfn, double(s.sharedExperts) * moeLayers);
        if (s.sharedExperts > 0) {
            s.loraDimsSharedExperts = addMlp(shared, s, s.sharedExpertFfn * s.sharedExperts, moeLayers);
            // Qwen2-MoE's shared_expert_gate, nn.Linear(h, 1) (its weights are extra_params).
            if (m.moe.sharedExpertGate) s.loraDimsSharedExperts += (s.hidden + 1.0) * moeLayers;
        }
    }
    s.groups = g;
    s.loraDimsAllLinear = lora + s.loraDimsDenseMlp + s.loraDimsRoutedExperts + s.loraDimsSharedExperts;
}

}  // namespace

ModelShape modelShape(const ModelSpec& m, const ParamCounts& counts) {
    ModelShape s = scalars(m);
    addLinearLayers(m, s);
    // countParams is the reference for the total; the groups give the split.
    const double sum = s.groups.total();
    if (sum > 0 && counts.linear > 0) scaleGroups(s.groups, counts.linear / sum);
    s.largestLinear = counts.largestLinear;
    s.largestModule = std::max(counts.largestLinear, s.vocab * s.hidden);
    s.otherParams = std::max(0.0, counts.total - counts.linear - counts.embedding);
    const double blockParams = counts.total - counts.embedding - double(std::max<std::int64_t>(0, m.extraParams));
    s.layerParams = std::max(0.0, blockParams) / s.stackLayers;
    return s;
}

}  // namespace caliper::sizing
