// Exact parameter counts and 16-bit KV-cache bytes per token from a model's
// architecture. The layout follows the Hugging Face implementations (weights
// as stored in the published checkpoints); tests check the totals against the
// exact safetensors counts of the catalog.
#include <algorithm>
#include <cmath>

#include "caliper/model.hpp"

namespace caliper {

namespace {

constexpr double kBytes16 = 2.0;  // one 16-bit KV element

struct Block {  // parameters of one sub-block
    double total = 0;    // weights, biases and norm vectors
    double linear = 0;   // matrix weights only (what quantizers convert)
    double largest = 0;  // biggest single matrix
};

void addMatrix(Block& b, double rows, double cols) {
    const double n = rows * cols;
    b.total += n;
    b.linear += n;
    b.largest = std::max(b.largest, n);
}

double headDimOf(const ModelSpec& m) {
    if (m.headDim > 0) return m.headDim;
    return m.heads > 0 ? static_cast<double>(m.hiddenSize) / m.heads : 0.0;
}

// One norm module: RMSNorm has a weight vector, LayerNorm a weight and a bias.
double normParams(const ModelSpec& m) {
    return (m.norm == NormKind::LayerNorm ? 2.0 : 1.0) * m.hiddenSize;
}

// DeepSeek multi-head latent attention: queries through an optional low-rank
// bottleneck, keys and values through one shared latent (kv_lora_rank) plus a
// shared RoPE key; RMSNorm vectors on both latents.
Block mlaAttention(const ModelSpec& m) {
    const MlaSpec& a = m.mla;
    const double hidden = m.hiddenSize;
    const double heads = m.heads;
    const double qkHeadDim = a.qkNopeHeadDim + a.qkRopeHeadDim;
    Block b;
    if (a.qLoraRank > 0) {
        addMatrix(b, hidden, a.qLoraRank);
        b.total += a.qLoraRank;  // q_a_layernorm
        addMatrix(b, a.qLoraRank, heads * qkHeadDim);
    } else {
        addMatrix(b, hidden, heads * qkHeadDim);
    }
    addMatrix(b, hidden, a.kvLoraRank + a.qkRopeHeadDim);
    b.total += a.kvLoraRank;  // kv_a_layernorm
    addMatrix(b, a.kvLoraRank, heads * (a.qkNopeHeadDim + a.vHeadDim));
    addMatrix(b, heads * a.vHeadDim, hidden);
    if (m.attnOutBias) b.total += hidden;
    return b;
}

// Multi-head, grouped-query or multi-query attention: q, k, v, o projections
// of the given head widths and KV heads; without v_proj where keys and values
// share one projection (Gemma 4 attention_k_eq_v). Values may be narrower
// than keys (MiMo-V2-Flash): v_proj and o_proj then use the value width.
Block attention(const ModelSpec& m, double headDim, double kvHeads, bool kEqV, double vHeadDim) {
    const double hidden = m.hiddenSize;
    const double qDim = m.heads * headDim;
    const double kDim = kvHeads * headDim;
    const double vDim = kEqV ? 0.0 : kvHeads * vHeadDim;
    Block b;
    addMatrix(b, hidden, m.attnOutputGate ? 2 * qDim : qDim);  // the gate doubles q_proj's output
    addMatrix(b, hidden, kDim);
    if (!kEqV) addMatrix(b, hidden, vDim);
    addMatrix(b, m.heads * vHeadDim, hidden);
    if (m.qkvBias) b.total += qDim + kDim + vDim;
    if (m.attnOutBias) b.total += hidden;
    if (m.qkNorm) b.total += 2 * headDim;  // per-head q_norm and k_norm vectors
    return b;
}

Block attention(const ModelSpec& m) {
    if (m.attention == AttentionKind::Mla) return mlaAttention(m);
    return attention(m, headDimOf(m), m.kvHeads, false, valueHeadDim(m));
}

// A global layer of a stack whose global layers are shaped differently (Gemma 4).
Block globalAttention(const ModelSpec& m) {
    const double kvHeads = m.global.kvHeads > 0 ? m.global.kvHeads : m.kvHeads;
    return attention(m, m.global.headDim, kvHeads, m.global.kEqV, m.global.headDim);
}

// A sliding-window layer with KV heads of its own (MiMo-V2-Flash).
Block slidingAttention(const ModelSpec& m) {
    return attention(m, headDimOf(m), m.swaKvHeads, false, valueHeadDim(m));
}

// Sliding-window layers whose KV heads differ from kv_heads.
bool swaShaped(const ModelSpec& m) {
    return m.swaKvHeads > 0 && m.slidingWindow > 0 && m.slidingLayers > 0 && m.attention != AttentionKind::Mla;
}

int swaShapedLayers(const ModelSpec& m) {
    return swaShaped(m) ? std::min(m.slidingLayers, fullAttentionLayers(m)) : 0;
}

// Gated MLP (SwiGLU/GeGLU: gate, up, down) or plain two-matrix MLP.
Block mlp(const ModelSpec& m, double inner) {
    const double hidden = m.hiddenSize;
    Block b;
    if (m.mlp == MlpKind::Gated) addMatrix(b, hidden, inner);
    addMatrix(b, hidden, inner);
    addMatrix(b, inner, hidden);
    if (m.mlpBias) b.total += (m.mlp == MlpKind::Gated ? 2 * inner : inner) + hidden;
    return b;
}

// Gated DeltaNet (transformers Qwen3NextGatedDeltaNet), Mamba-2
// (NemotronHMamba2Mixer, GraniteMoeHybridMambaLayer) or gated short
// convolution (Lfm2ShortConv) mixer of one layer.
Block linearMixer(const ModelSpec& m) {
    const LinearAttentionSpec& l = m.linear;
    const double hidden = m.hiddenSize;
    const double keyDim = double(l.keyHeads) * l.keyHeadDim;
    const double valueDim = double(l.valueHeads) * l.valueHeadDim;
    const double convChannels = 2 * keyDim + valueDim;  // x (or v), B and C (or q and k)
    Block b;
    if (l.kind == LinearKind::ShortConv) {
        addMatrix(b, hidden, 3 * valueDim);       // in_proj: B, C, x
        b.total += valueDim * l.convKernel;       // depthwise conv1d (LFM2 conv_bias false)
    } else if (l.kind == LinearKind::GatedDeltaNet) {
        addMatrix(b, hidden, 2 * keyDim + 2 * valueDim);  // in_proj_qkvz
        addMatrix(b, hidden, 2.0 * l.valueHeads);         // in_proj_ba
        b.total += convChannels * l.convKernel;           // conv1d, no bias
        b.total += 2.0 * l.valueHeads + l.valueHeadDim;   // dt_bias, A_log, gated RMSNorm (per head dim)
    } else {
        addMatrix(b, hidden, 2 * valueDim + 2 * keyDim + l.valueHeads);  // in_proj: z, x, B, C, dt
        b.total += convChannels * (l.convKernel + 1);                    // conv1d with bias
        b.total += 3.0 * l.valueHeads + valueDim;                        // dt_bias, A_log, D, gated RMSNorm
    }
    addMatrix(b, valueDim, hidden);  // out_proj
    return b;
}

// DSA lightning indexer: wq_b from the query latent, wk, its LayerNorm and
// the per-head weights_proj (DeepSeek-V3.2 inference/model.py Indexer).
Block sparseIndexer(const ModelSpec& m) {
    const SparseAttentionSpec& x = m.sparse;
    Block b;
    if (x.indexHeads <= 0) return b;
    const double qIn = m.mla.qLoraRank > 0 ? m.mla.qLoraRank : m.hiddenSize;
    addMatrix(b, qIn, double(x.indexHeads) * x.indexHeadDim);
    addMatrix(b, m.hiddenSize, x.indexHeadDim);
    b.total += 2.0 * x.indexHeadDim;
    addMatrix(b, m.hiddenSize, x.indexHeads);
    return b;
}

// One DeepSeek-V4 attention block of compress ratio `ratio` (0 = window
// only), as aiconfigurator sizes its weights (operators/dsv4.rs
// weight_bytes, commit 095f58a5): wq_a, wq_b, the shared K=V projection wkv,
// the grouped output LoRA (o_groups blocks of heads x head_dim / o_groups ->
// o_lora_rank, then o_groups x o_lora_rank -> hidden) and the per-head
// attention sink; with a compressor (wkv and wgate, coff 2 on the overlapping
// ratio-4 one) and its position bias; on ratio-4 layers the indexer's wq_b,
// its own compressor, weights_proj and position bias. Its norm vectors
// (q_norm, kv_norm) are left out, as aiconfigurator does (< 3,000 per layer).
Block compressedAttention(const ModelSpec& m, int ratio) {
    const CompressedAttentionSpec& x = m.compressed;
    const double hidden = m.hiddenSize;
    const double headDim = headDimOf(m);
    const double qDim = double(m.heads) * headDim;
    Block b;
    addMatrix(b, hidden, x.qLoraRank);
    addMatrix(b, x.qLoraRank, qDim);
    addMatrix(b, hidden, headDim);
    const double groups = std::max(1, x.oGroups);
    for (int g = 0; g < int(groups); ++g) addMatrix(b, qDim / groups, x.oLoraRank);
    addMatrix(b, groups * x.oLoraRank, hidden);
    b.total += m.heads;  // attn_sink
    if (ratio > 0) {
        const double coff = ratio == x.csaRatio ? 2.0 : 1.0;
        addMatrix(b, hidden, coff * headDim);  // compressor wkv
        addMatrix(b, hidden, coff * headDim);  // compressor wgate
        b.total += ratio * coff * headDim;     // compressor position bias (ape)
    }
    if (ratio > 0 && ratio == x.csaRatio && m.sparse.indexHeads > 0) {
        const double indexDim = double(m.sparse.indexHeads) * m.sparse.indexHeadDim;
        addMatrix(b, x.qLoraRank, indexDim);                  // indexer wq_b
        addMatrix(b, hidden, 2.0 * m.sparse.indexHeadDim);    // indexer compressor wkv
        addMatrix(b, hidden, 2.0 * m.sparse.indexHeadDim);    // indexer compressor wgate
        b.total += hidden * m.sparse.indexHeads;              // weights_proj (kept in BF16)
        b.total += ratio * 2.0 * m.sparse.indexHeadDim;       // its position bias
    }
    return b;
}

// Manifold-constrained hyper-connections of one decoder block: two mixers
// (attention and FFN), each a (2 + hc_mult) x hc_mult by hc_mult x hidden map
// plus its bias and 3 scales (aiconfigurator operators/mhc.rs weight_bytes).
double hyperConnectionParams(const ModelSpec& m) {
    const double hc = m.compressed.hcMult;
    if (hc <= 0) return 0;
    const double mix = (2.0 + hc) * hc;
    return 2.0 * (mix * hc * m.hiddenSize + mix + 3.0);
}

int windowOnlyLayers(const ModelSpec& m) {
    return std::max(0, fullAttentionLayers(m) - m.compressed.csaLayers - m.compressed.hcaLayers);
}

double sharedExpertSize(const ModelSpec& m) {
    return m.moe.sharedExpertIntermediateSize > 0 ? m.moe.sharedExpertIntermediateSize : m.moe.expertIntermediateSize;
}

void accumulate(ParamCounts& c, const Block& b, double times) {
    c.total += b.total * times;
    c.linear += b.linear * times;
    if (times > 0) c.largestLinear = std::max(c.largestLinear, b.largest);
}

// Decoder layers (and encoder layers of the same shape): attention, norms and
// a dense or mixture-of-experts MLP. Returns the routed parameters one token
// uses, for the active count.
double addLayers(ParamCounts& c, const ModelSpec& m) {
    const Block attn = attention(m);
    const double norms = m.normsPerLayer * normParams(m);
    const int moeLayers = moeLayerCount(m);
    const int denseLayers = ffnLayers(m) - moeLayers;
    const int globalLayers = globalAttentionLayers(m);
    const int swaLayers = swaShapedLayers(m);
    const int selfAttentionLayers = fullAttentionLayers(m) + m.encoderLayers - globalLayers - swaLayers;

    if (hasCompressedAttention(m)) {  // DeepSeek-V4: blocks by compress ratio; indexers inside
        accumulate(c, compressedAttention(m, 0), windowOnlyLayers(m));
        accumulate(c, compressedAttention(m, m.compressed.csaRatio), m.compressed.csaLayers);
        accumulate(c, compressedAttention(m, m.compressed.hcaRatio), m.compressed.hcaLayers);
        c.total += hyperConnectionParams(m) * m.layers;
    } else {
        accumulate(c, attn, selfAttentionLayers);
        accumulate(c, sparseIndexer(m), indexerLayers(m));
    }
    if (globalLayers > 0) accumulate(c, globalAttention(m), globalLayers);
    if (swaLayers > 0) accumulate(c, slidingAttention(m), swaLayers);
    if (m.linear.layers > 0) accumulate(c, linearMixer(m), m.linear.layers);
    c.total += norms * (m.layers + m.encoderLayers);
    accumulate(c, mlp(m, m.intermediateSize), denseLayers + m.encoderLayers);
    if (m.encoderLayers > 0 && m.crossAttentionLayers > 0) {  // cross blocks inside decoder layers
        accumulate(c, attention(m), m.crossAttentionLayers);
        c.total += normParams(m) * m.crossAttentionLayers;
    }
    if (moeLayers == 0) return 0;

    const Block expert = mlp(m, m.moe.expertIntermediateSize);
    const double router = static_cast<double>(m.hiddenSize) * m.moe.experts;
    c.total += router * moeLayers;
    accumulate(c, mlp(m, sharedExpertSize(m)), static_cast<double>(m.moe.sharedExperts) * moeLayers);
    const double routed = static_cast<double>(m.moe.experts) * moeLayers;
    accumulate(c, expert, routed);
    c.expert = expert.linear * routed;
    const double routedTotal = expert.total * routed;
    const double routedActive = expert.total * m.moe.expertsPerToken * static_cast<double>(moeLayers);
    return routedActive - routedTotal;  // negative: what a token does not touch
}

// One multi-token-prediction module (DeepSeek-V3 sec. 2.2, Qwen3-Next mtp.*):
// a full-attention decoder layer with the model's (MoE) MLP, the 2h -> h
// projection and its norms. Embedding and output head are shared with the
// model (DeepSeek's checkpoint stores copies of both; not counted).
// MiMo-V2-Flash's modules (vLLM mimo_v2_mtp.py MiMoV2MTPLayer) use the
// sliding layers' attention (swa_num_key_value_heads) and a dense MLP of
// intermediate_size (mtpDense).
double mtpModuleParams(const ModelSpec& m) {
    const double hidden = m.hiddenSize;
    // DeepSeek-V4's MTP layer keeps the window only (the last compress_ratios entry, 0).
    const Block attn = hasCompressedAttention(m) ? compressedAttention(m, 0) : swaShaped(m) ? slidingAttention(m) : attention(m);
    double p = attn.total + (hasCompressedAttention(m) ? hyperConnectionParams(m) : sparseIndexer(m).total) +
               m.normsPerLayer * normParams(m);
    if (m.moe.experts > 0 && !m.mtpDense) {
        p += mlp(m, m.moe.expertIntermediateSize).total * m.moe.experts +
             mlp(m, sharedExpertSize(m)).total * m.moe.sharedExperts + hidden * m.moe.experts;
    } else {
        p += mlp(m, m.intermediateSize).total;
    }
    return p + 2 * hidden * hidden + 3 * normParams(m);  // eh_proj; enorm, hnorm, final norm
}

}  // namespace

int fullAttentionLayers(const ModelSpec& m) {
    return std::max(0, m.layers - m.linear.ffnOnlyLayers - m.linear.layers);
}

double indexerLayers(const ModelSpec& m) {
    if (m.sparse.indexHeads <= 0) return 0;
    const int attention = fullAttentionLayers(m);
    return m.sparse.indexLayers > 0 ? std::min(m.sparse.indexLayers, attention) : attention;
}

int globalAttentionLayers(const ModelSpec& m) {
    if (m.global.headDim <= 0 || m.attention == AttentionKind::Mla) return 0;
    const int sliding = m.slidingWindow > 0 ? std::max(0, m.slidingLayers) : 0;
    return std::max(0, fullAttentionLayers(m) - sliding);
}

double globalKvScale(const ModelSpec& m) {
    // Same head widths on both kinds of layer, so only the KV heads differ.
    if (globalAttentionLayers(m) <= 0) return swaShaped(m) ? double(m.kvHeads) / m.swaKvHeads : 1.0;
    const double base = double(std::max(1, m.kvHeads)) * headDimOf(m);
    const double global = double(m.global.kvHeads > 0 ? m.global.kvHeads : m.kvHeads) * m.global.headDim;
    return base > 0 ? global / base : 1.0;
}

int kvScaledLayers(const ModelSpec& m) {
    if (globalAttentionLayers(m) > 0) return globalAttentionLayers(m);
    return swaShaped(m) ? std::max(0, fullAttentionLayers(m) - m.slidingLayers) : 0;
}

double valueHeadDim(const ModelSpec& m) { return m.vHeadDim > 0 ? m.vHeadDim : headDimOf(m); }

int unitKvHeads(const ModelSpec& m) { return swaShaped(m) ? m.swaKvHeads : m.kvHeads; }

int fullLayerKvHeads(const ModelSpec& m) {
    if (globalAttentionLayers(m) > 0 && m.global.kvHeads > 0) return m.global.kvHeads;
    return std::max(1, m.kvHeads > 0 ? m.kvHeads : m.heads);
}

int slidingLayerKvHeads(const ModelSpec& m) {
    return swaShaped(m) ? m.swaKvHeads : std::max(1, m.kvHeads > 0 ? m.kvHeads : m.heads);
}

double kvHeadRankShare(int kvHeads, int tp) {
    if (tp <= 1 || kvHeads <= 0) return 1.0;
    return std::ceil(double(kvHeads) / tp) / kvHeads;
}

int ffnLayers(const ModelSpec& m) { return m.linear.ffnOnlyLayers > 0 ? m.linear.ffnOnlyLayers : m.layers; }

// Layers with a routed-expert MLP: after the leading dense layers, every
// layerInterval-th layer (Llama 4 Maverick: the odd ones).
int moeLayerCount(const ModelSpec& m) {
    if (m.moe.experts <= 0) return 0;
    const int interval = std::max(1, m.moe.layerInterval);
    const int candidates = ffnLayers(m) - std::max(0, m.moe.denseLayers);
    return candidates > 0 ? candidates / interval : 0;
}

ParamCounts countParams(const ModelSpec& m) {
    ParamCounts c;
    const double activeCorrection = addLayers(c, m);
    c.mtp = m.mtpLayers * mtpModuleParams(m);

    const double table = static_cast<double>(m.vocabSize) * m.hiddenSize;
    c.embedding = table * (m.tiedEmbeddings ? 1 : 2);
    if (m.position == PositionKind::Learned) c.embedding += static_cast<double>(m.maxContext) * m.hiddenSize;
    c.total += c.embedding;
    if (m.embeddingNorm) c.total += normParams(m);
    c.total += normParams(m);  // final norm
    c.total += static_cast<double>(m.extraParams);
    c.active = c.total + activeCorrection;
    return c;
}

bool hasCompressedAttention(const ModelSpec& m) { return m.compressed.window > 0; }

double compressedKvElementsPerToken(const ModelSpec& m) {
    const CompressedAttentionSpec& x = m.compressed;
    if (!hasCompressedAttention(m)) return 0;
    const double headDim = headDimOf(m);
    return (x.csaRatio > 0 ? x.csaLayers * headDim / x.csaRatio : 0.0) +
           (x.hcaRatio > 0 ? x.hcaLayers * headDim / x.hcaRatio : 0.0);
}

double compressedIndexerElementsPerToken(const ModelSpec& m) {
    const CompressedAttentionSpec& x = m.compressed;
    if (!hasCompressedAttention(m) || x.csaRatio <= 0 || m.sparse.indexHeads <= 0) return 0;
    return x.csaLayers * double(m.sparse.indexHeadDim) / x.csaRatio;
}

double compressedWindowElementsPerSequence(const ModelSpec& m, double contextTokens) {
    if (!hasCompressedAttention(m)) return 0;
    return fullAttentionLayers(m) * std::min(double(m.compressed.window), std::max(0.0, contextTokens)) * headDimOf(m);
}

double compressorStateBytesPerSequence(const ModelSpec& m) {
    const CompressedAttentionSpec& x = m.compressed;
    if (!hasCompressedAttention(m)) return 0;
    constexpr double kFp32 = 4.0;
    const double headDim = headDimOf(m);
    const double csa = 2.0 * x.csaRatio * 2.0 * headDim * kFp32 +
                       (m.sparse.indexHeads > 0 ? 2.0 * x.csaRatio * 2.0 * m.sparse.indexHeadDim * kFp32 : 0.0);
    const double hca = 2.0 * x.hcaRatio * 1.0 * headDim * kFp32;
    return x.csaLayers * csa + x.hcaLayers * hca;
}

double kvBytesPerToken16(const ModelSpec& m) {
    // DeepSeek-V4: the compressed history and the indexer keys grow with the
    // context; the window is a fixed amount per sequence (not counted here).
    if (hasCompressedAttention(m)) {
        return (compressedKvElementsPerToken(m) + compressedIndexerElementsPerToken(m)) * kBytes16;
    }
    // Only full-attention layers cache tokens; linear/SSM layers keep a fixed state.
    const double attentionLayers = fullAttentionLayers(m);
    // A DSA indexer caches one index_head_dim key per token on each layer that has one.
    const double indexer = indexerLayers(m) * m.sparse.indexHeadDim * kBytes16;
    if (m.attention == AttentionKind::Mla) {
        // One compressed latent plus one shared RoPE key per layer (DeepSeek-V2 paper, sec. 2.1).
        return attentionLayers * (m.mla.kvLoraRank + m.mla.qkRopeHeadDim) * kBytes16 + indexer;
    }
    // Decoder-only cross-attention layers cache image tokens, not text tokens.
    const int crossOnly = m.encoderLayers == 0 ? m.crossAttentionLayers : 0;
    const double kvLayers = std::max(0.0, attentionLayers - crossOnly);
    // Global layers of their own shape (Gemma 4), or full layers beside
    // sliding ones with KV heads of their own (MiMo-V2-Flash), cache their
    // own K and V width; perLayer is a sliding layer's then.
    const double scaledLayers = kvScaledLayers(m);
    const double perLayer = unitKvHeads(m) * (headDimOf(m) + valueHeadDim(m)) * kBytes16;  // K and V
    return (kvLayers - scaledLayers + scaledLayers * globalKvScale(m)) * perLayer + indexer;
}

// Recurrent state value_heads x key_head_dim x value_head_dim (Gated DeltaNet's
// S; Mamba-2's nheads x head_dim x d_state) plus conv_kernel - 1 past inputs
// of the convolution's channels (vLLM MambaStateShapeCalculator); a short
// convolution keeps only the past inputs (vLLM ShortConv: (L_cache - 1) x hidden).
double linearStateElementsPerLayer(const ModelSpec& m) {
    const LinearAttentionSpec& l = m.linear;
    if (l.layers <= 0) return 0;
    const double keyDim = double(l.keyHeads) * l.keyHeadDim;
    const double valueDim = double(l.valueHeads) * l.valueHeadDim;
    if (l.kind == LinearKind::ShortConv) return std::max(0, l.convKernel - 1) * valueDim;
    return double(l.valueHeads) * l.keyHeadDim * l.valueHeadDim + std::max(0, l.convKernel - 1) * (2 * keyDim + valueDim);
}

double linearStateBytesPerSequence16(const ModelSpec& m) {
    return m.linear.layers * linearStateElementsPerLayer(m) * kBytes16;
}

}  // namespace caliper
