// KV cache (methodology §2): K and V per layer for MHA/GQA/MQA, the
// compressed latent for MLA, window-capped sliding layers, cross-attention
// caches, and how each engine lays the cache out (paged blocks, llama.cpp's
// contiguous n_ctx cells).
#include <algorithm>
#include <cmath>

#include "caliper/model/formats.hpp"
#include "caliper/units.hpp"
#include "memory/sizing.hpp"

namespace caliper::sizing {

bool deepseekV2Architecture(const ModelSpec& m) {
    return m.family.rfind("DeepSeek-V2", 0) == 0 || m.family.rfind("DeepSeek-Coder-V2", 0) == 0;
}

namespace {

// vLLM CacheConfig.DEFAULT_BLOCK_SIZE: 16 tokens per block; a sequence
// occupies whole blocks.
constexpr double kVllmBlockTokens = 16;
// TensorRT-LLM tokens_per_block default [E: 64 in current releases].
constexpr double kTrtllmBlockTokens = 64;
// llama.cpp pads n_ctx to a multiple of 256 cells (llama-context.cpp).
constexpr double kLlamaCppCtxPad = 256;
// llama.cpp n_ubatch default: also the extra cells a SWA cache keeps.
constexpr double kLlamaCppUbatch = 512;

double roundUp(double value, double step) { return std::ceil(value / step) * step; }

// Elements one layer caches per token, and whether tensor parallelism
// shards them (MLA's latent is shared by all heads, so every rank keeps it).
struct LayerCache {
    double elements = 0;
    bool shardable = true;
};

LayerCache layerCache(const Scenario& s, const ModelShape& shape) {
    const ModelSpec& m = s.model;
    if (hasCompressedAttention(m)) {
        // DeepSeek-V4: the compressed rows all layers add per token, spread
        // over the layers (one shared head: every tensor-parallel rank keeps it).
        return {compressedKvElementsPerToken(m) / std::max(1, fullAttentionLayers(m)), false};
    }
    if (m.attention == AttentionKind::Mla) {
        if (runtimeOf(s.engine) == Engine::Transformers && !deepseekV2Architecture(m)) {
            // Other MLA models' Hugging Face code (DeepSeek-V3's and its kin) is
        // read as caching decompressed K and V per head (not checked at 5.17).
            return {double(shape.heads) * (m.mla.qkNopeHeadDim + m.mla.qkRopeHeadDim + m.mla.vHeadDim), true};
        }
        // kv_lora_rank latent + one shared RoPE key (DeepSeek-V2 §2.1). The
        // serving engines cache this; so does transformers 5.17 for DeepSeek-V2
        // (models/deepseek_v2/modeling_deepseek_v2.py, DeepseekV2Attention.forward:
        // past_key_values.update(k_nope, k_pe) on the normed kv_lora_rank latent and
        // the RoPE key, both one-head tensors, then expand_kv decompresses per layer).
        // Caliper's H200 generate() runs bound it: DeepSeek-V2-Lite, 1 x 32,768
        // tokens, 5.98 GiB allocated above the weights, where decompressed K and V
        // (27 layers x 16 heads x 320 x 2 B per token) would be 8.4 GiB alone.
        return {double(m.mla.kvLoraRank + m.mla.qkRopeHeadDim), false};
    }
    // K and V of the layer the cache counts in (a sliding one where those
    // have KV heads of their own); values may be narrower than keys.
    const double kvHeads = unitKvHeads(m) != m.kvHeads ? unitKvHeads(m) : shape.kvHeads;
    const double valueDim = m.vHeadDim > 0 ? m.vHeadDim : shape.headDim;
    return {kvHeads * (shape.headDim + valueDim), true};
}

// Share of the layer's cache one tensor-parallel rank holds: KV heads are
// split, and replicated once tp exceeds them (vLLM).
double headShare(const LayerCache& cache, const ModelShape& shape, int tp) {
    if (!cache.shardable || tp <= 1) return 1.0;
    return kvHeadRankShare(shape.kvHeads, tp);
}

// KV heads of a full and of a sliding layer, where they differ: MiMo-V2-Flash
// at tp 8 keeps 1 of the 4 heads of a full layer (replicated) but 1 of the 8
// of a sliding one; Gemma 4's global layers have KV heads of their own.
struct LayerHeads {
    int full = 1, sliding = 1;
};

LayerHeads layerHeads(const ModelSpec& m, const ModelShape& shape) {
    if (fullLayerKvHeads(m) == slidingLayerKvHeads(m)) return {shape.kvHeads, shape.kvHeads};
    return {fullLayerKvHeads(m), slidingLayerKvHeads(m)};
}

struct RankShares {
    double full = 1, sliding = 1;
};

RankShares rankShares(bool shardable, const LayerHeads& heads, int tp) {
    if (!shardable || tp <= 1) return {};
    return {kvHeadRankShare(heads.full, tp), kvHeadRankShare(heads.sliding, tp)};
}

std::string rankShareText(const RankShares& r) {
    if (r.full == r.sliding) return fmt(" x %.3g per tensor-parallel rank", r.full);
    return fmt(" x %.3g per tensor-parallel rank on the full-attention layers, %.3g on the sliding ones", r.full,
               r.sliding);
}

struct CacheTokens {
    double full = 0;     // cached tokens of a full-attention layer, all sequences
    double sliding = 0;  // of a sliding-window layer
};

CacheTokens cacheTokens(const Scenario& s) {
    const double context = double(cacheContextTokens(s));
    const double batch = double(s.batch);
    const double window = s.model.slidingWindow > 0 ? s.model.slidingWindow : context;
    CacheTokens t;
    switch (runtimeOf(s.engine)) {
        case Engine::LlamaCpp: {
            // One contiguous cache of n_ctx cells shared by the parallel
            // sequences, allocated up front; SWA layers keep window x n_seq +
            // n_ubatch cells.
            t.full = roundUp(batch * context, kLlamaCppCtxPad);
            t.sliding = std::min(t.full, roundUp(std::min(context, window) * batch + kLlamaCppUbatch, kLlamaCppCtxPad));
            return t;
        }
        case Engine::Vllm:
            t.full = batch * roundUp(context, kVllmBlockTokens);
            t.sliding = batch * roundUp(std::min(context, window), kVllmBlockTokens);
            return t;
        case Engine::TensorrtLlm:
            t.full = batch * roundUp(context, kTrtllmBlockTokens);
            t.sliding = batch * roundUp(std::min(context, window), kTrtllmBlockTokens);
            return t;
        case Engine::Transformers: {
            // Exact length. A sliding layer of transformers' DynamicCache
            // (cache_utils.py DynamicSlidingWindowLayer.update, 5.x) keeps
            // `full_key_states[:, :, -sliding_window + 1:, :]`, a view of the
            // torch.cat of its past and the new states: after the prefill the
            // whole prompt's K and V stay allocated behind that view until the
            // layer's next update replaces them. At the end of the prefill
            // every sliding layer so holds the full prompt.
            t.full = batch * context;
            const double prompt = std::min(context, double(std::max<std::int64_t>(0, s.promptTokens)));
            t.sliding = batch * std::max(std::min(context, window), prompt);
            return t;
        }
        default:  // SGLang (page size 1)
            t.full = batch * context;
            t.sliding = batch * std::min(context, window);
            return t;
    }
}

struct CacheLayers {
    double full = 0, sliding = 0, cross = 0;  // on the whole model
    // KV width of a full layer relative to a sliding one: Gemma 4's global
    // layers cache num_global_key_value_heads x global_head_dim.
    double fullScale = 1;
    double weighted() const { return full * fullScale + sliding; }  // in sliding-layer units
    // The same on one tensor-parallel rank.
    double weighted(const RankShares& r) const { return full * fullScale * r.full + sliding * r.sliding; }
};

CacheLayers cacheLayers(const ModelSpec& m, const ModelShape& shape) {
    CacheLayers c;
    // Decoder-only vision models (Llama 3.2 Vision) interleave cross-attention
    // layers that cache image tokens, not text; Whisper's decoder layers
    // carry both.
    const int crossInside = m.encoderLayers == 0 ? m.crossAttentionLayers : 0;
    // Hybrid models: only the full-attention layers cache tokens.
    const double self = std::max(0, std::min(shape.layers, fullAttentionLayers(m)) - crossInside);
    c.sliding = m.slidingWindow > 0 ? std::min<double>(std::max(0, m.slidingLayers), self) : 0;
    c.full = self - c.sliding;
    c.fullScale = globalKvScale(m);
    c.cross = m.crossAttentionTokens > 0 ? m.crossAttentionLayers : 0;
    return c;
}

// Bytes per element of the linear/SSM state: vLLM and SGLang keep it in the
// model dtype (mamba_ssm_cache_dtype "auto"), llama.cpp in F32 (llama-memory-recurrent.cpp).
double linearStateElementBytes(const Scenario& s) { return runtimeOf(s.engine) == Engine::LlamaCpp ? 4.0 : 2.0; }

// Fixed state of the linear/SSM layers of all sequences on one GPU; tensor
// parallelism splits their value heads.
double linearStateBytes(const Scenario& s, const Layout& layout, double stageShare) {
    const LinearAttentionSpec& l = s.model.linear;
    if (l.layers <= 0) return 0;
    const double tpShare = layout.tp > 1 ? std::ceil(double(l.valueHeads) / layout.tp) / l.valueHeads : 1.0;
    return stageShare * l.layers * linearStateElementsPerLayer(s.model) * linearStateElementBytes(s) * tpShare *
           double(s.batch);
}

// DSA indexer keys: one index_head_dim vector per token on each layer with its
// own indexer (all attention layers, or GLM-5.2's IndexShare subset), not split
// by tensor parallelism.
double indexerBytesPerToken(const Scenario& s, const CacheLayers& layers) {
    const int attention = fullAttentionLayers(s.model);
    if (hasCompressedAttention(s.model)) {  // DeepSeek-V4: one key per csa_ratio tokens on the CSA layers
        return attention > 0 ? (layers.full + layers.sliding) / attention * compressedIndexerElementsPerToken(s.model) *
                                   kvBytesPerElement(s.kvCache)
                             : 0.0;
    }
    const double share = attention > 0 ? indexerLayers(s.model) / attention : 0.0;
    return (layers.full + layers.sliding) * share * s.model.sparse.indexHeadDim * kvBytesPerElement(s.kvCache);
}

// DeepSeek-V4's fixed cost per sequence on one GPU: the uncompressed window
// of every layer (one shared head, not split by tensor parallelism) in the KV
// format, and the compressors' FP32 running state.
double compressedStateBytes(const Scenario& s, double stageShare) {
    if (!hasCompressedAttention(s.model)) return 0;
    const double perSequence =
        compressedWindowElementsPerSequence(s.model, double(cacheContextTokens(s))) * kvBytesPerElement(s.kvCache) +
        compressorStateBytesPerSequence(s.model);
    return stageShare * perSequence * double(s.batch);
}

void explainKv(const Inputs& in, const Layout& layout, double stageShare, double crossBytes, double bytes,
               const Explain& ex) {
    const Scenario& s = *in.scenario;
    const LayerCache cache = layerCache(s, in.shape());
    const CacheLayers layers = cacheLayers(s.model, in.shape());
    const CacheTokens tokens = cacheTokens(s);
    const double elementBytes = kvBytesPerElement(s.kvCache);
    const std::string perLayer = hasCompressedAttention(s.model)
                                     ? fmt("compressed rows: %d-wide per %d tokens on %d CSA layers, per %d on %d HCA layers",
                                           s.model.headDim, s.model.compressed.csaRatio, s.model.compressed.csaLayers,
                                           s.model.compressed.hcaRatio, s.model.compressed.hcaLayers)
                                 : s.model.attention == AttentionKind::Mla
                                     ? (cache.shardable ? "MLA decompressed K and V per head" : "MLA latent + RoPE key")
                                     : s.model.vHeadDim > 0 || unitKvHeads(s.model) != s.model.kvHeads
                                     ? fmt("%d KV heads x (%.0f key + %.0f value head dim)", unitKvHeads(s.model),
                                           in.shape().headDim, valueHeadDim(s.model))
                                     : fmt("2 x %d KV heads x %.0f head dim", in.shape().kvHeads, in.shape().headDim);
    ex.add("kv_bytes_per_token",
           [&] { return fmt("%.0f elements per layer (%s) x %.4g bytes (%s) x %.0f layers%s%s%s", cache.elements, perLayer.c_str(),
               elementBytes, toString(s.kvCache), layers.full + layers.sliding,
               layers.sliding > 0
                   ? fmt(" (%.0f of them capped at the %d-token window)", layers.sliding, s.model.slidingWindow).c_str()
                   : "",
               layers.fullScale != 1 && s.model.global.headDim <= 0
                   ? fmt(", the %.0f full-attention layers %.3g times as wide (%d KV heads)", layers.full,
                         layers.fullScale, s.model.kvHeads).c_str()
               : layers.fullScale != 1
                   ? fmt(", the %.0f global layers %.3g times as wide (%d KV heads x %d head dim)", layers.full,
                         layers.fullScale, s.model.global.kvHeads > 0 ? s.model.global.kvHeads : s.model.kvHeads,
                         s.model.global.headDim).c_str()
                   : "",
               hasCompressedAttention(s.model) && s.model.sparse.indexHeadDim > 0
                   ? fmt(" + a %d-wide indexer key per %d tokens on the %d CSA layers", s.model.sparse.indexHeadDim,
                         s.model.compressed.csaRatio, s.model.compressed.csaLayers).c_str()
               : s.model.sparse.indexHeadDim > 0 && indexerLayers(s.model) < fullAttentionLayers(s.model)
                   ? fmt(" + a %d-wide sparse-attention indexer key on the %.0f layers with their own indexer",
                         s.model.sparse.indexHeadDim, indexerLayers(s.model)).c_str()
               : s.model.sparse.indexHeadDim > 0
                   ? fmt(" + a %d-wide sparse-attention indexer key per layer", s.model.sparse.indexHeadDim).c_str()
                   : ""); },
           cache.elements * elementBytes * layers.weighted() + indexerBytesPerToken(s, layers));
    const char* layout0 = s.engine == Engine::Ollama ? ", Ollama's num_ctx per sequence (not the prompt), padded to 256 cells"
                          : runtimeOf(s.engine) == Engine::LlamaCpp ? ", one n_ctx cache padded to 256 cells"
                          : runtimeOf(s.engine) == Engine::Vllm   ? ", whole 16-token blocks"
                                                       : "";
    ex.add("kv_cache_gib",
           [&] { return fmt("%.0f cached tokens per full layer (%lld sequences x %lld prompt + %lld output tokens%s) x bytes per "
               "token%s%s%s",
               tokens.full, static_cast<long long>(s.batch), static_cast<long long>(s.promptTokens),
               static_cast<long long>(s.outputTokens), layout0,
               layout.tp > 1
                   ? rankShareText(rankShares(cache.shardable, layerHeads(s.model, in.shape()), layout.tp)).c_str()
                   : "",
               stageShare < 1 ? fmt(" x %.3g of the layers on this GPU", stageShare).c_str() : "",
               crossBytes > 0 ? fmt(" + cross-attention %.3f GiB", bytesToGiB(crossBytes)).c_str() : ""); },
           bytesToGiB(bytes));
}

}  // namespace

double kvBytesPerTokenPerGpu(const Inputs& in, const Layout& layout, const Stage& stage) {
    const Scenario& s = *in.scenario;
    const LayerCache cache = layerCache(s, in.shape());
    const CacheLayers layers = cacheLayers(s.model, in.shape());
    const double stageShare = stage.layers / in.shape().stackLayers;
    const RankShares shares = rankShares(cache.shardable, layerHeads(s.model, in.shape()), layout.tp);
    return layers.weighted(shares) * stageShare * cache.elements * kvBytesPerElement(s.kvCache) +
           stageShare * indexerBytesPerToken(s, layers);
}

KvTerms kvTerms(const Scenario& s, const ModelShape& shape) {
    const LayerCache cache = layerCache(s, shape);
    const CacheLayers layers = cacheLayers(s.model, shape);
    const CacheTokens tokens = cacheTokens(s);
    KvTerms kv;
    kv.elementBytes = kvBytesPerElement(s.kvCache);
    kv.layerTokenBytes = cache.elements * kv.elementBytes;
    kv.shardable = cache.shardable;
    const LayerHeads heads = layerHeads(s.model, shape);
    kv.fullKvHeads = heads.full;
    kv.slidingKvHeads = heads.sliding;
    kv.fullTokenLayers = layers.full * layers.fullScale * tokens.full;
    kv.slidingTokenLayers = layers.sliding * tokens.sliding;
    kv.crossLayers = layers.cross;
    kv.indexerBytesPerToken = indexerBytesPerToken(s, layers);
    kv.fullTokens = tokens.full;
    if (runtimeOf(s.engine) == Engine::Vllm || runtimeOf(s.engine) == Engine::Sglang) {
        // One request of max_model_len tokens (default: prompt + output), in
        // vLLM's whole blocks (SGLang pages a token at a time).
        const double length = double(s.maxModelLen ? *s.maxModelLen : std::max<std::int64_t>(1, s.promptTokens + s.outputTokens));
        const double window = s.model.slidingWindow > 0 ? s.model.slidingWindow : length;
        const double block = runtimeOf(s.engine) == Engine::Vllm ? kVllmBlockTokens : 1;
        kv.oneFullTokens = roundUp(length, block);
        kv.oneFullTokenLayers = layers.full * layers.fullScale * kv.oneFullTokens;
        kv.oneSlidingTokenLayers = layers.sliding * roundUp(std::min(length, window), block);
    }
    return kv;
}

double oneSequenceBytes(const Inputs& in, const Layout& layout, const Stage& stage) {
    const Scenario& s = *in.scenario;
    const KvTerms& kv = in.kv();
    const double stageShare = stage.layers / in.shape().stackLayers;
    const RankShares shares = rankShares(kv.shardable, {kv.fullKvHeads, kv.slidingKvHeads}, layout.tp);
    const double selfTokenLayers = kv.oneFullTokenLayers * shares.full + kv.oneSlidingTokenLayers * shares.sliding;
    const double crossBytes = kv.crossLayers > 0 ? stageShare * kv.crossLayers * s.model.crossAttentionTokens * 2.0 *
                                                       in.shape().kvDim * kv.elementBytes * headShare({0, true}, in.shape(), layout.tp)
                                                 : 0.0;
    // The linear/SSM state is per sequence, whatever its length.
    const double stateBytes =
        s.batch > 0 ? (linearStateBytes(s, layout, stageShare) + compressedStateBytes(s, stageShare)) / double(s.batch) : 0.0;
    return stageShare * (kv.layerTokenBytes * selfTokenLayers + kv.indexerBytesPerToken * kv.oneFullTokens) +
           crossBytes + stateBytes;
}

double kvBytes(const Inputs& in, const Layout& layout, const Stage& stage, const Explain& ex) {
    if (in.training) return 0;
    const Scenario& s = *in.scenario;
    const KvTerms& kv = in.kv();
    const double stageShare = stage.layers / in.shape().stackLayers;
    const RankShares shares = rankShares(kv.shardable, {kv.fullKvHeads, kv.slidingKvHeads}, layout.tp);
    const double selfBytes =
        stageShare * kv.layerTokenBytes * (kv.fullTokenLayers * shares.full + kv.slidingTokenLayers * shares.sliding);
    // Cross-attention caches hold the encoder (or image) tokens of each
    // sequence. (Without such layers the product is +0 whatever its other,
    // finite factors: not worked out, since every plan probed comes here.)
    const double crossBytes = kv.crossLayers > 0 ? stageShare * kv.crossLayers * s.model.crossAttentionTokens *
                                                       double(s.batch) * 2.0 * in.shape().kvDim * kv.elementBytes *
                                                       headShare({0, true}, in.shape(), layout.tp)
                                                 : 0.0;
    const double indexerBytes = stageShare * kv.indexerBytesPerToken * kv.fullTokens;
    const double stateBytes = linearStateBytes(s, layout, stageShare);
    const double windowBytes = compressedStateBytes(s, stageShare);
    const double bytes = selfBytes + crossBytes + indexerBytes + stateBytes + windowBytes;
    if (ex.on()) {
        explainKv(in, layout, stageShare, crossBytes, bytes, ex);
        if (windowBytes > 0) {
            ex.add("compressed_window_gib",
                   [&] { return fmt("%d layers x %.0f-token window x %d head dim x %.4g bytes + %.0f bytes of FP32 compressor "
                                    "state, x %lld sequences (fixed, independent of context beyond the window)",
                                    fullAttentionLayers(s.model),
                                    std::min<double>(s.model.compressed.window, double(cacheContextTokens(s))),
                                    s.model.headDim, kvBytesPerElement(s.kvCache),
                                    compressorStateBytesPerSequence(s.model), static_cast<long long>(s.batch)); },
                   bytesToGiB(windowBytes));
        }
        if (stateBytes > 0) {
            ex.add("linear_state_gib",
                   [&] { return fmt("%d linear/SSM layers x %.0f state elements x %.0f bytes x %lld sequences (fixed, "
                                    "independent of context)",
                                    s.model.linear.layers, linearStateElementsPerLayer(s.model), linearStateElementBytes(s),
                                    static_cast<long long>(s.batch)); },
                   bytesToGiB(stateBytes));
        }
    }
    return bytes;
}

}  // namespace caliper::sizing
