// Decode speed: each step streams the weights (MoE: the experts the batch
// touches) and every sequence's KV cache, or is limited by matmul throughput
// at large batch, plus a fixed per-layer cost and tensor-parallel all-reduces.
#include <algorithm>
#include <cmath>
#include <string>

#include "caliper/engine/formats.hpp"
#include "engine/efficiency.hpp"
#include "engine/speed_parts.hpp"

namespace caliper {

namespace {

// Generation is averaged over this many points of the growing context
// (midpoint rule; the step time is piecewise linear in the context).
constexpr int kContextSamples = 16;
// Activations cross the tensor-parallel all-reduce and stage boundaries in 16 bits.
constexpr double kActivationBytes = 2.0;

struct StageTimes {
    double memoryS = 0;
    double computeS = 0;
    double unpackS = 0;
    double fixedS = 0;
    double commS = 0;
    double totalS() const { return std::max({memoryS, computeS, unpackS}) + fixedS + commS; }
};

// One pipeline stage (1/pp of the layers, 1/tp of each) over `sequences`.
StageTimes stageTimes(const Scenario& scenario, const ServingLayout& layout, const Workload& work,
                      double context, double sequences) {
    const GpuSpec& gpu = scenario.gpu;
    const double shards = double(layout.tp) * layout.pp;
    StageTimes t;
    const double bytes = (weightBytesPerStep(work, sequences) + sequences * kvBytesRead(work, context)) / shards;
    const double bandwidth = decodeBandwidthFraction(scenario.engine, scenario.weights, gpu) * gpu.bandwidthGbps * 1e9;
    t.memoryS = bandwidth > 0 ? bytes / bandwidth : 0;

    const double flops =
        sequences * (2.0 * (work.blockMatmulParams + work.lmHeadParams) + attentionFlopsPerToken(work, context)) / shards;
    const double rate = decodeComputeFraction(scenario.engine, scenario.weights, gpu) *
                        matmulPeak(scenario.engine, scenario.weights, gpu).tflops * 1e12;
    t.computeS = rate > 0 ? flops / rate : 0;

    const double ops = dequantOpsPerWeight(scenario.weights, gpu);
    if (ops > 0 && gpu.fp32Tflops && *gpu.fp32Tflops > 0) {
        t.unpackS = work.weightCount * ops / shards / (*gpu.fp32Tflops * 1e12);
    }
    const double stageLayers = double(work.layers) / layout.pp;
    t.fixedS = stageLayers * decodeLayerOverheadS(scenario.engine, scenario.weights, gpu);
    if (layout.tp > 1) {
        // Two all-reduces per layer (after attention and after the MLP).
        const double message = sequences * work.hidden * kActivationBytes;
        t.commS = stageLayers * 2.0 * allReduceS(message, layout.tp, layout.tpLink);
    }
    return t;
}

double stepFromStage(const ServingLayout& layout, const Workload& work, double stageS) {
    const double microSequences = layout.sequences / layout.microbatches;
    const double hopS = layout.pp > 1 ? (layout.pp - 1) * sendS(microSequences * work.hidden * kActivationBytes,
                                                               layout.stageLink)
                                      : 0;
    return layout.pp * stageS + hopS;
}

void explainStep(const Scenario& scenario, const ServingLayout& layout, const Workload& work, double context,
                 SpeedEstimate& out) {
    const double microSequences = layout.sequences / layout.microbatches;
    const StageTimes t = stageTimes(scenario, layout, work, context, microSequences);
    const double fraction = decodeBandwidthFraction(scenario.engine, scenario.weights, scenario.gpu);
    out.explain.push_back({"decode_weight_read_gb",
                           "weights read per step: dense + lm_head + touched experts E(1-(1-k/E)^B), in the format's "
                           "bytes, whole model",
                           weightBytesPerStep(work, microSequences) / 1e9});
    out.explain.push_back({"decode_kv_read_gb", "KV bytes per token x average context x sequences",
                           microSequences * kvBytesRead(work, context) / 1e9});
    out.explain.push_back({"decode_bandwidth_fraction",
                           std::string("achieved / peak bandwidth for ") + toString(scenario.engine) + " on " +
                               toString(gpuFamily(scenario.gpu)),
                           fraction});
    out.explain.push_back({"decode_memory_ms", "bytes per GPU / (fraction x bandwidth_gbps), per stage", t.memoryS * 1e3});
    out.explain.push_back({"decode_compute_ms", "(2 x active params + attention) x batch / achieved tensor rate, per stage",
                           t.computeS * 1e3});
    out.explain.push_back({"decode_fixed_ms", "layers per stage x per-layer overhead (launches, sync)", t.fixedS * 1e3});
    if (t.commS > 0) out.explain.push_back({"decode_tp_comm_ms", "2 all-reduces per layer x (latency + size / busbw)", t.commS * 1e3});
}

}  // namespace

double decodeStepS(const Scenario& scenario, const ServingLayout& layout, const Workload& work, double context) {
    const double microSequences = layout.sequences / layout.microbatches;
    const StageTimes t = stageTimes(scenario, layout, work, context, microSequences);
    return stepFromStage(layout, work, t.totalS());
}

void estimateDecode(const Scenario& scenario, const ServingLayout& layout, const Workload& work, SpeedEstimate& out) {
    const double prompt = double(std::max<std::int64_t>(0, scenario.promptTokens));
    const double output = double(std::max<std::int64_t>(1, scenario.outputTokens));
    const int samples = int(std::min<double>(kContextSamples, output));
    double totalS = 0;
    for (int i = 0; i < samples; ++i) {
        const double context = prompt + (i + 0.5) * output / samples;
        totalS += decodeStepS(scenario, layout, work, context);
    }
    const double meanStepS = totalS / samples;
    if (!(meanStepS > 0) || !std::isfinite(meanStepS)) return;
    out.decodeTokensPerS = layout.replicas * layout.sequences / meanStepS;
    explainStep(scenario, layout, work, prompt + output / 2.0, out);
    out.explain.push_back({"decode_step_ms",
                           "average over the generation (context prompt..prompt+output) of pp x stage time + hops",
                           meanStepS * 1e3});
    out.explain.push_back({"decode_tokens_per_s", "replicas x sequences / step time", *out.decodeTokensPerS});
}

}  // namespace caliper
