// Embedding models and cross-encoder rerankers: the catalog's LLM keys
// describe the encoder; one pass over every token, the pooled vector out.
#include <string>

#include "workloads/diffusion.hpp"
#include "workloads/embedding.hpp"
#include "workloads/pipeline_rates.hpp"

namespace caliper::workloads {

namespace {

// Live activations per token at the peak of a layer, in units of hidden x
// 2 bytes (input, norm, q/k/v, attention output, MLP up and activation):
// as the speech encoder's (asr.cpp), 16.
constexpr double kActivationWidths = 16;

// BERT-style encoders (learned absolute positions: BGE-M3, XLM-R) attend in
// both directions; decoder-derived ones (Qwen3-Embedding) are causal, and
// FlashAttention skips the masked half.
bool bidirectional(const ModelSpec& m) { return m.position == PositionKind::Learned; }

}  // namespace

PipelineMemory embeddingMemory(const Scenario& s, double bytesPerWeight) {
    const ModelSpec& m = s.model;
    const ParamCounts p = countParams(m);
    PipelineMemory mem;
    // Block matmuls in the scenario's format; embeddings and norms in 16-bit.
    mem.weightsGiB = (p.linear * bytesPerWeight + (p.total - p.linear) * 2.0) / kBytesPerGiBWorkload;
    const double tokens = static_cast<double>(s.batch) * static_cast<double>(s.promptTokens);
    mem.activationsGiB = tokens * m.hiddenSize * kActivationWidths * 2.0 / kBytesPerGiBWorkload;
    return mem;
}

PipelineTime embeddingTime(const Scenario& s, bool withExplain) {
    const ModelSpec& m = s.model;
    const PipelineRates r = pipelineRates(s);
    const ParamCounts p = countParams(m);
    const double T = static_cast<double>(s.promptTokens);
    const double sequences = static_cast<double>(s.batch);
    const double width = static_cast<double>(m.heads) * m.headDim;
    const double matmulFlops = sequences * 2.0 * p.linear * T;
    const double attentionFlops = sequences * (bidirectional(m) ? 4.0 : 2.0) * m.layers * T * T * width;
    const double elementwiseBytes = sequences * elementwisePasses(s) * T * m.layers * m.hiddenSize * 2.0;
    PipelineTime t;
    t.seconds = matmulFlops / r.matmulFlopsPerS + attentionFlops / r.attentionFlopsPerS +
                elementwiseBytes / r.bandwidthBytesPerS + m.layers * r.layerOverheadS;
    if (withExplain) {
        t.explain.push_back({"embedding_batch_s",
                             std::to_string(s.batch) + " sequence(s) of " + std::to_string(s.promptTokens) +
                                 " tokens: 2 x block weights x tokens at the matmul rate + " +
                                 (bidirectional(m) ? "bidirectional" : "causal") +
                                 " attention at the FlashAttention rate + elementwise passes at memory bandwidth",
                             t.seconds});
    }
    return t;
}

}  // namespace caliper::workloads
