#include "plan/workload.hpp"

#include <algorithm>
#include <cmath>

#include "caliper/model/formats.hpp"
#include "caliper/model.hpp"

namespace caliper {

namespace {

// Per-head width of the attention products. MLA (DeepSeek) attends over the
// decompressed heads: (nope + rope) for QK^T and v_head_dim for AV.
double attentionWidth(const ModelSpec& model) {
    const double heads = model.heads;
    if (model.attention == AttentionKind::Mla && model.mla.vHeadDim > 0) {
        const double qk = model.mla.qkNopeHeadDim + model.mla.qkRopeHeadDim;
        return heads * (qk + model.mla.vHeadDim) / 2.0;
    }
    const double headDim = model.headDim > 0 ? model.headDim : double(model.hiddenSize) / std::max(1, model.heads);
    // Values narrower than keys (MiMo-V2-Flash v_head_dim): QK^T at head_dim, AV at v_head_dim.
    if (model.vHeadDim > 0) return heads * (headDim + model.vHeadDim) / 2.0;
    return heads * headDim;
}

}  // namespace

Workload makeWorkload(const Scenario& scenario, const ParamCounts* counts) {
    const ModelSpec& model = scenario.model;
    const ParamCounts params = counts ? *counts : countParams(model);
    const WeightFormatInfo format = weightFormatInfo(scenario.weights);
    Workload work;
    work.layers = std::max(1, model.layers);
    work.hidden = model.hiddenSize;
    work.totalParams = params.total;
    work.expertParams = params.expert;
    work.activeParams = params.active;
    work.experts = model.moe.experts;
    work.expertsPerToken = model.moe.expertsPerToken;
    work.lmHeadParams = double(model.vocabSize) * model.hiddenSize;

    const double denseLinear = std::max(0.0, params.linear - params.expert);
    // Norm weights, biases and learned positions; towers the decoder does not
    // run per token (extraParams) are left out.
    const double otherParams =
        std::max(0.0, params.total - params.linear - params.embedding - double(model.extraParams));
    work.denseWeightBytes = (denseLinear * format.linearBits + (work.lmHeadParams + otherParams) * format.embeddingBits) / 8.0;
    work.expertWeightBytes = params.expert * format.linearBits / 8.0;
    const double expertShare = work.experts > 0 ? double(work.expertsPerToken) / work.experts : 0.0;
    work.blockMatmulParams = denseLinear + params.expert * expertShare;
    work.weightCount = work.blockMatmulParams + work.lmHeadParams;

    work.attentionWidth = attentionWidth(model);
    work.kvBytesPerToken = kvBytesPerToken16(model) * kvBytesPerElement(scenario.kvCache) / 2.0;
    if (model.slidingWindow > 0 && model.slidingLayers > 0) {
        work.slidingLayerShare = std::min(1.0, double(model.slidingLayers) / work.layers);
        work.slidingWindow = model.slidingWindow;
    }
    if (globalAttentionLayers(model) > 0) {
        const double headDim = model.headDim > 0 ? model.headDim : double(model.hiddenSize) / std::max(1, model.heads);
        work.globalWidthScale = model.global.headDim / headDim;  // same query heads, wider heads
    }
    // Full layers caching a different KV width than sliding ones (Gemma 4's
    // global shape, MiMo-V2-Flash's sliding-layer KV heads).
    if (kvScaledLayers(model) > 0) work.globalKvScale = globalKvScale(model);
    if (hasCompressedAttention(model)) {
        const CompressedAttentionSpec& c = model.compressed;
        const double elementBytes = kvBytesPerElement(scenario.kvCache);
        work.compressedWindow = c.window;
        work.csaLayers = c.csaLayers;
        work.csaRatio = c.csaRatio;
        work.hcaLayers = c.hcaLayers;
        work.hcaRatio = c.hcaRatio;
        work.indexTopk = model.sparse.indexTopk;
        work.indexWidth = double(model.sparse.indexHeads) * model.sparse.indexHeadDim;
        work.rowBytes = model.headDim * elementBytes;
        work.indexKeyBytes = model.sparse.indexHeadDim * elementBytes;
    }
    return work;
}

double expertsTouched(int experts, int expertsPerToken, double tokens) {
    if (experts <= 0 || expertsPerToken <= 0 || tokens <= 0) return 0;
    const double k = std::min(expertsPerToken, experts);
    return experts * (1.0 - std::pow(1.0 - k / experts, tokens));
}

double weightBytesPerStep(const Workload& work, double tokens) {
    if (work.experts <= 0) return work.denseWeightBytes + work.expertWeightBytes;
    const double touched = expertsTouched(work.experts, work.expertsPerToken, std::max(1.0, tokens));
    return work.denseWeightBytes + work.expertWeightBytes * touched / work.experts;
}

namespace {

// DeepSeek-V4: rows each kind of layer attends to at context `c`.
struct CompressedRows {
    double window = 0;   // per layer, all layers
    double csa = 0;      // top-k compressed rows per CSA layer
    double csaKeys = 0;  // indexer keys scored per CSA layer
    double hca = 0;      // compressed rows per HCA layer
};

CompressedRows compressedRows(const Workload& work, double c) {
    CompressedRows r;
    r.window = std::min(c, work.compressedWindow);
    r.csaKeys = work.csaRatio > 0 ? c / work.csaRatio : 0;
    r.csa = work.indexTopk > 0 ? std::min(r.csaKeys, work.indexTopk) : r.csaKeys;
    r.hca = work.hcaRatio > 0 ? c / work.hcaRatio : 0;
    return r;
}

double compressedKvRead(const Workload& work, double c) {
    const CompressedRows r = compressedRows(work, c);
    return work.layers * r.window * work.rowBytes + work.csaLayers * (r.csa * work.rowBytes + r.csaKeys * work.indexKeyBytes) +
           work.hcaLayers * r.hca * work.rowBytes;
}

// Sum over positions i = 1..T of min(i / ratio, cap): the rows a causal
// prompt's tokens attend to in all.
double cappedRowSum(double tokens, double ratio, double cap) {
    if (ratio <= 0) return 0;
    if (cap <= 0 || tokens <= ratio * cap) return tokens * tokens / (2.0 * ratio);
    return ratio * cap * cap / 2.0 + cap * (tokens - ratio * cap);
}

// Context each layer sees: window-capped on sliding layers; the global layers
// weighted by `globalScale`, their size relative to a sliding layer.
double effectiveContext(const Workload& work, double context, double globalScale = 1) {
    if (work.slidingLayerShare <= 0) return context;
    const double capped = std::min(context, work.slidingWindow);
    return (1.0 - work.slidingLayerShare) * globalScale * context + work.slidingLayerShare * capped;
}

}  // namespace

double kvBytesRead(const Workload& work, double context) {
    if (work.compressedWindow > 0) return compressedKvRead(work, std::max(0.0, context));
    // kvBytesPerToken sums every layer, so the weighted context is normalised
    // by the layers' weights (1 unless global layers are shaped apart).
    const double s = work.slidingLayerShare;
    const double weights = s > 0 ? (1.0 - s) * work.globalKvScale + s : 1.0;
    return work.kvBytesPerToken / weights * effectiveContext(work, std::max(0.0, context), work.globalKvScale);
}

KvRead kvBytesReadByKind(const Workload& work, double context) {
    const double s = work.slidingLayerShare;
    const double tokens = std::max(0.0, context);
    if (work.compressedWindow > 0) return {compressedKvRead(work, tokens), 0.0};
    if (s <= 0) return {work.kvBytesPerToken * tokens, 0.0};
    // The two terms of effectiveContext, each over the layers' weights.
    const double perWeight = work.kvBytesPerToken / ((1.0 - s) * work.globalKvScale + s);
    return {perWeight * (1.0 - s) * work.globalKvScale * tokens, perWeight * s * std::min(tokens, work.slidingWindow)};
}

KvRead kvBytesPerTokenByKind(const Workload& work) {
    const double s = work.slidingLayerShare;
    if (s <= 0) return {work.kvBytesPerToken, 0.0};
    const double perWeight = work.kvBytesPerToken / ((1.0 - s) * work.globalKvScale + s);
    return {perWeight * (1.0 - s) * work.globalKvScale, perWeight * s};
}

KvRankShare kvRankShare(const ModelSpec& model, int tp) {
    if (model.attention == AttentionKind::Mla) return {};
    return {kvHeadRankShare(fullLayerKvHeads(model), tp), kvHeadRankShare(slidingLayerKvHeads(model), tp)};
}

double kvBytesReadOnRank(const Workload& work, const KvRankShare& share, double context) {
    const KvRead read = kvBytesReadByKind(work, context);
    return read.full * share.full + read.sliding * share.sliding;
}

double attentionFlopsPerToken(const Workload& work, double context) {
    if (work.compressedWindow > 0) {
        // QK^T and AV over the rows each layer attends to, plus the indexer's
        // scores (one product) over all its keys on the CSA layers.
        const CompressedRows r = compressedRows(work, std::max(0.0, context));
        const double rows = work.layers * r.window + work.csaLayers * r.csa + work.hcaLayers * r.hca;
        return 4.0 * work.attentionWidth * rows + 2.0 * work.indexWidth * work.csaLayers * r.csaKeys;
    }
    // QK^T and AV: 2 FLOPs per multiply-add, two products, per layer.
    return 4.0 * work.layers * work.attentionWidth * effectiveContext(work, std::max(0.0, context), work.globalWidthScale);
}

double promptAttentionFlops(const Workload& work, double tokens, bool fullMatrix) {
    // Causal: token i attends to i earlier tokens, T^2/2 per product; eager
    // attention computes the masked half as well.
    if (work.compressedWindow > 0) {
        // The same terms summed over the prompt's positions (no eager path:
        // the compressed layout runs only in its own kernels).
        const double window = cappedRowSum(tokens, 1.0, work.compressedWindow);
        const double csa = cappedRowSum(tokens, work.csaRatio, work.indexTopk);
        const double hca = cappedRowSum(tokens, work.hcaRatio, 0);
        const double keys = cappedRowSum(tokens, work.csaRatio, 0);
        return 4.0 * work.attentionWidth * (work.layers * window + work.csaLayers * csa + work.hcaLayers * hca) +
               2.0 * work.indexWidth * work.csaLayers * keys;
    }
    const double perPair = 4.0 * work.layers * work.attentionWidth;
    if (fullMatrix) return perPair * tokens * tokens;
    const double causal = perPair * tokens * tokens / 2.0;
    if (work.slidingLayerShare <= 0) return causal;
    const double global = work.globalWidthScale;  // global layers' width relative to sliding ones
    const double window = work.slidingWindow;
    const double windowed = tokens <= window ? causal : perPair * (tokens * window - window * window / 2.0);
    if (global == 1 && tokens <= window) return causal;
    return (1.0 - work.slidingLayerShare) * global * causal + work.slidingLayerShare * windowed;
}

}  // namespace caliper
