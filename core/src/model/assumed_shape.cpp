// Size table and fitting for models given by parameter count alone.
#include "model/assumed_shape.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace caliper {

namespace {

// Layer shapes of published models (their config.json, see data/models.json),
// used for every model up to `upToB` billion parameters. All are Llama-like:
// RMSNorm, SwiGLU, RoPE, grouped-query attention with head_dim 128 (64 for the
// smallest). The assumption errs toward GQA, so an MHA model of the same size
// (Llama 2 7B) really needs up to 4x the KV cache estimated here.
struct SizeRow {
    double upToB;
    int hidden, heads, kvHeads, intermediate, vocab, layers;
    bool tied;
    const char* fittedOn;
};

constexpr SizeRow kSizeTable[] = {
    {0.8, 896, 14, 2, 4864, 151936, 24, true, "Qwen2.5-0.5B"},
    {2.0, 2048, 32, 8, 8192, 128256, 16, true, "Llama 3.2 1B"},
    {5.0, 3072, 24, 8, 8192, 128256, 28, true, "Llama 3.2 3B"},
    {11.0, 4096, 32, 8, 14336, 128256, 32, false, "Llama 3.1 8B"},
    {20.0, 5120, 40, 8, 13824, 152064, 48, false, "Qwen2.5-14B"},
    {45.0, 5120, 40, 8, 27648, 152064, 64, false, "Qwen2.5-32B"},
    {150.0, 8192, 64, 8, 28672, 128256, 80, false, "Llama 3.1 70B"},
    {std::numeric_limits<double>::infinity(), 16384, 128, 8, 53248, 128256, 126, false, "Llama 3.1 405B"},
};

// Routed experts each token uses when only total and active sizes are known
// (Mixtral 8x7B and 8x22B use 2).
constexpr int kAssumedExpertsPerToken = 2;
constexpr int kMaxAssumedExperts = 512;
// Below this active/total ratio the model is treated as a mixture of experts.
constexpr double kMoeActiveRatio = 0.9;

const SizeRow& rowFor(double paramsB) {
    for (const SizeRow& row : kSizeTable) {
        if (paramsB <= row.upToB) return row;
    }
    return kSizeTable[std::size(kSizeTable) - 1];
}

void setIfUnset(int& field, int value) {
    if (field <= 0) field = value;
}

void applyRow(ModelSpec& m, const SizeRow& row) {
    const bool hiddenGiven = m.hiddenSize > 0;
    setIfUnset(m.hiddenSize, row.hidden);
    setIfUnset(m.heads, hiddenGiven ? std::max(1, m.hiddenSize / 128) : row.heads);
    setIfUnset(m.kvHeads, std::min(m.heads, row.kvHeads));
    setIfUnset(m.headDim, m.hiddenSize / m.heads > 0 ? m.hiddenSize / m.heads : 128);
    setIfUnset(m.intermediateSize, hiddenGiven ? m.hiddenSize * 7 / 2 : row.intermediate);  // 14336/4096
    setIfUnset(m.vocabSize, row.vocab);
    if (m.kvHeads == m.heads) m.attention = AttentionKind::Mha;
    else if (m.kvHeads == 1) m.attention = AttentionKind::Mqa;
    else m.attention = AttentionKind::Gqa;
    m.tiedEmbeddings = m.tiedEmbeddings || row.tied;
}

// Parameters that do not grow with the layer count, and those of one layer.
double fixedParams(const ModelSpec& m) {
    ModelSpec none = m;
    none.layers = 0;
    none.extraParams = 0;
    return countParams(none).total;
}

double perLayerParams(const ModelSpec& m) {
    ModelSpec one = m;
    one.layers = 1;
    one.extraParams = 0;
    return countParams(one).total - fixedParams(m);
}

// Below the smallest row (a 0.1B model), halve the width until one layer
// fits; the row's vocabulary is kept.
bool narrowToFit(ModelSpec& m, double target) {
    bool narrowed = false;
    while (fixedParams(m) + perLayerParams(m) > target && m.hiddenSize >= 128) {
        m.hiddenSize /= 2;
        m.intermediateSize = std::max(1, m.intermediateSize / 2);
        m.heads = std::max(1, m.heads / 2);
        m.kvHeads = std::max(1, std::min(m.kvHeads, m.heads));
        narrowed = true;
    }
    return narrowed;
}

void fitDense(ModelSpec& m, double target) {
    if (m.layers <= 0) {
        const double layers = std::floor((target - fixedParams(m)) / perLayerParams(m));
        m.layers = static_cast<int>(std::clamp(layers, 1.0, 10000.0));
    }
}

// Mixtral-like: every layer MoE with kAssumedExpertsPerToken routed experts
// per token. The expert count follows from total/active, the expert width
// from the total, so the active size lands near the requested one.
bool fitMoe(ModelSpec& m, const SizeRow& row, double total, double active) {
    setIfUnset(m.layers, row.layers);
    ModelSpec attentionOnly = m;
    attentionOnly.intermediateSize = 1;
    const double base = countParams(attentionOnly).total;  // embeddings, attention, norms (+ a width-1 MLP)
    if (active <= base || total <= active) return false;
    const double experts = std::clamp(std::round(kAssumedExpertsPerToken * (total - base) / (active - base)),
                                      kAssumedExpertsPerToken + 1.0, double(kMaxAssumedExperts));
    const double layers = m.layers;
    const double routers = layers * m.hiddenSize * experts;
    const double expertWidth = std::floor((total - base - routers) / (experts * layers * 3.0 * m.hiddenSize));
    if (expertWidth < 1) return false;
    m.moe.expertsPerToken = kAssumedExpertsPerToken;
    m.moe.experts = static_cast<int>(experts);
    m.moe.expertIntermediateSize = static_cast<int>(expertWidth);
    return true;
}

}  // namespace

std::string assumeModelShape(ModelSpec& m, double totalParamsB, std::optional<double> activeParamsB) {
    const double total = totalParamsB * 1e9;
    const bool moe = activeParamsB && *activeParamsB < kMoeActiveRatio * totalParamsB;
    const SizeRow& row = rowFor(moe ? *activeParamsB : totalParamsB);
    const bool hiddenGiven = m.hiddenSize > 0;
    applyRow(m, row);
    const bool fittedMoe = moe && fitMoe(m, row, total, *activeParamsB * 1e9);
    const bool narrowed = !fittedMoe && !hiddenGiven && m.layers <= 0 && narrowToFit(m, total);
    if (!fittedMoe) fitDense(m, total);
    m.extraParams = 0;
    m.extraParams = static_cast<std::int64_t>(std::max(0.0, std::round(total - countParams(m).total)));
    m.shapeAssumed = true;
    m.confidence = "low";

    std::string text = "only the size was given: assumed a Llama-like shape fitted on " + std::string(row.fittedOn) +
                       (narrowed ? ", narrowed" : "") + " (hidden " + std::to_string(m.hiddenSize) + ", " + std::to_string(m.layers) + " layers, " +
                       std::to_string(m.heads) + " heads, " + std::to_string(m.kvHeads) + " KV heads, vocabulary " +
                       std::to_string(m.vocabSize) + ")";
    if (fittedMoe) {
        text += " with " + std::to_string(m.moe.experts) + " experts of " +
                std::to_string(m.moe.expertIntermediateSize) + ", " + std::to_string(m.moe.expertsPerToken) +
                " per token";
    }
    text += "; KV cache and speed are rough (a multi-head-attention model of this size, such as Llama 2 7B, caches 4-5x more per token)";
    return text;
}

}  // namespace caliper
