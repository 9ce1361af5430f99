// Prefill speed: prompt tokens go through the matmuls in chunks; each chunk
// is compute-bound (achieved fraction of the tensor rate) or, for short
// prompts, bound by reading the weights once per chunk.
#include <algorithm>
#include <cmath>
#include <string>

#include "speed/efficiency.hpp"
#include "caliper/units.hpp"
#include "speed/speed_parts.hpp"

namespace caliper {

namespace {

// Tokens processed per forward pass: llama.cpp n_ubatch default 512
// (common/arg.cpp); vLLM chunked prefill max_num_batched_tokens 2048
// (vLLM EngineArgs default with chunked prefill); others take the prompt whole.
constexpr double kLlamaCppUbatchTokens = 512;
constexpr double kVllmChunkTokens = 2048;
constexpr double kActivationBytes = 2.0;
// Eager attention writes the score matrix and reads it back for the softmax
// and the AV product: ~4 passes over heads x T x T 16-bit values per layer.
constexpr double kEagerScorePasses = 4.0;

double chunkTokens(Engine engine, double tokens) {
    if (runtimeOf(engine) == Engine::LlamaCpp) return std::min(tokens, kLlamaCppUbatchTokens);
    if (runtimeOf(engine) == Engine::Vllm || runtimeOf(engine) == Engine::Sglang) return std::min(tokens, kVllmChunkTokens);
    return tokens;
}

struct PrefillTimes {
    double computeS = 0;
    double weightReadS = 0;
    double scoreTrafficS = 0;
    double fixedS = 0;
    double commS = 0;
    double totalS() const { return std::max(computeS, weightReadS) + scoreTrafficS + fixedS + commS; }
};

PrefillTimes prefillTimes(const Scenario& scenario, const EngineRates& engine, const ServingLayout& layout,
                          const Workload& work) {
    const GpuSpec& gpu = scenario.gpu;
    const double prompt = double(scenario.promptTokens);
    const double tokens = layout.sequences * prompt;
    const bool eager = !scenario.flashAttention;
    PrefillTimes t;
    // Pipeline stages run one after another for a single prompt, so only
    // tensor parallelism divides the work.
    const double flops = layout.sequences * (2.0 * work.blockMatmulParams * prompt +
                                             promptAttentionFlops(work, prompt, eager) + 2.0 * work.lmHeadParams);
    const double rate = engine.prefillFraction * engine.peak.tflops * kFlopsPerTflop;
    t.computeS = rate > 0 ? flops / layout.tp / rate : 0;

    const double chunk = chunkTokens(scenario.engine, tokens);
    const double chunks = std::ceil(tokens / chunk);
    const double bandwidth = engine.bandwidthFraction * gpu.bandwidthGBps * kBytesPerGB;
    if (bandwidth > 0) {
        t.weightReadS = chunks * weightBytesPerStep(work, chunk) / layout.tp / bandwidth;
        if (eager) {
            const double scoreBytes = layout.sequences * work.layers * scenario.model.heads * prompt * prompt *
                                      kActivationBytes * kEagerScorePasses;
            t.scoreTrafficS = scoreBytes / layout.tp / bandwidth;
        }
    }
    t.fixedS = chunks * work.layers * engine.layerOverheadS;
    if (layout.tp > 1) {
        const double message = chunk * work.hidden * kActivationBytes;
        t.commS = chunks * work.layers * 2.0 * allReduceS(message, layout.tp, layout.tpLink);
    }
    if (layout.pp > 1) t.commS += chunks * (layout.pp - 1) * sendS(chunk * work.hidden * kActivationBytes, layout.stageLink);
    return t;
}

}  // namespace

void estimatePrefill(const Scenario& scenario, const EngineRates& engine, const ServingLayout& layout,
                     const Workload& work, bool withExplain, SpeedEstimate& out) {
    if (scenario.promptTokens <= 0) {
        // Pure generation from an empty context: the first token is one decode step.
        const double stepS = decodeStepS(scenario, engine, layout, work, 0.0);
        if (stepS > 0 && std::isfinite(stepS)) out.timeToFirstTokenS = stepS;
        return;
    }
    const PeakRate peak = engine.peak;
    if (peak.tflops <= 0) return;  // no compute figure: prefill unknown (speed.cpp warns)
    const PrefillTimes t = prefillTimes(scenario, engine, layout, work);
    const double totalS = t.totalS();
    if (!(totalS > 0) || !std::isfinite(totalS)) return;
    const double tokens = layout.sequences * double(scenario.promptTokens);
    out.prefillTokensPerS = layout.replicas * tokens / totalS;
    out.timeToFirstTokenS = totalS;
    if (!withExplain) return;
    out.explain.push_back({"prefill_peak_tflops", std::string("tensor rate the prompt GEMMs run at: ") + peak.name, peak.tflops});
    out.explain.push_back({"prefill_compute_fraction",
                           std::string("achieved / peak for ") + toString(scenario.engine) + " on " +
                               toString(gpuFamily(scenario.gpu)),
                           engine.prefillFraction});
    out.explain.push_back({"prefill_compute_ms",
                           std::string("(2 x block params x T + ") +
                               (scenario.flashAttention ? "2 x L x T^2 x d_attn" : "4 x L x T^2 x d_attn (no FlashAttention)") +
                               " + 2 x V x h) x batch / tp / achieved rate",
                           t.computeS * 1e3});
    out.explain.push_back({"prefill_weight_read_ms", "weights read once per chunk of the prompt / achieved bandwidth",
                           t.weightReadS * 1e3});
    if (t.commS > 0) out.explain.push_back({"prefill_comm_ms", "tensor-parallel all-reduces and stage hops", t.commS * 1e3});
    out.explain.push_back({"time_to_first_token_s", "max(compute, weight read) + fixed + communication", totalS});
}

}  // namespace caliper
