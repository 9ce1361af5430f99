// estimateSpeed: picks the models that apply to the task. Inference gives
// decode, prefill and time to first token; fine-tuning and pre-training give
// training throughput.
#include "caliper/speed/speed.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "memory/sizing.hpp"
#include "speed/efficiency.hpp"
#include "speed/speed_parts.hpp"

namespace caliper {

namespace {

bool usable(const Scenario& scenario) {
    const ModelSpec& model = scenario.model;
    return model.layers > 0 && model.hiddenSize > 0 && scenario.gpu.bandwidthGBps > 0;
}

void warnLinks(const ServingLayout& layout, const Scenario& scenario, SpeedEstimate& out) {
    if (layout.tp > 1 && std::string_view(layout.tpLink.name).substr(0, 4) == "PCIe") {
        out.warnings.push_back({"tp_over_pcie", std::string("tensor parallelism over ") + layout.tpLink.name +
                                                    ": two all-reduces per layer per token slow decoding"});
    }
    if (layout.tp > std::max(1, scenario.gpu.gpusPerNode)) {
        out.warnings.push_back({"tp_across_nodes", "tensor-parallel group spans servers; keep it within one node"});
    }
    if (layout.pp > 1 && layout.microbatches == 1) {
        out.warnings.push_back({"layer_split_no_speedup",
                                "layer split runs the devices one after another: it adds memory, not decode speed"});
    }
}

}  // namespace

ServingLayout servingLayout(const Scenario& scenario, const Plan& plan) {
    ServingLayout layout;
    layout.tp = std::max(1, plan.tp);
    layout.pp = std::max(1, plan.pp);
    layout.replicas = std::max(1, plan.dp);
    const int covered = layout.tp * layout.pp * layout.replicas;
    if (covered < plan.gpuCount) {
        // A plan that names only its strategy: spread the rest the way it says.
        const int rest = plan.gpuCount / covered;
        if (plan.strategy == Strategy::Tensor) layout.tp *= rest;
        else if (plan.strategy == Strategy::Pipeline || plan.strategy == Strategy::LayerSplit) layout.pp *= rest;
        else if (plan.strategy == Strategy::Ddp) layout.replicas *= rest;
    }
    layout.sequences = std::max(1.0, double(std::max<std::int64_t>(1, scenario.batch)) / layout.replicas);
    layout.microbatches = plan.strategy == Strategy::Pipeline ? int(std::min<double>(layout.pp, layout.sequences)) : 1;
    // The links are read only where a group talks over them.
    const int perNode = std::max(1, scenario.gpu.gpusPerNode);
    if (layout.tp > 1) layout.tpLink = groupLink(scenario, layout.tp, layout.tp > perNode);
    if (layout.pp > 1) layout.stageLink = groupLink(scenario, 2, layout.tp * layout.pp > perNode);
    return layout;
}

namespace {

// llama.cpp offload: weights kept in host RAM are read by the CPU at host
// bandwidth every token. llama.cpp reaches about 3/4 of the peak there
// (llama.cpp PR #1642: M1 CPU 53.3 of 68.2 GB/s; issue #11744: dual EPYC
// Turin, Llama-3.1-70B f16 at 4.31 t/s = 608 of 819 GB/s). Prompt batches
// run the host-resident matmuls on the GPU, copying those weights over PCIe
// once per 512-token micro-batch (ggml offloads large-batch ops; llama.cpp
// n_ubatch default 512).
constexpr double kHostBandwidthFraction = 0.75;
constexpr double kPromptUbatchTokens = 512;

void addHostWork(const Scenario& s, const Plan& plan, bool withExplain, bool withWarnings, SpeedEstimate& out) {
    const sizing::Inputs in = sizing::prepare(s);
    const sizing::Layout layout = sizing::layoutOf(plan);
    const double hostBytes = sizing::offloadedWeightBytes(in, layout);
    if (hostBytes <= 0) return;
    const double batch = double(std::max<std::int64_t>(1, s.batch));
    const sizing::ModelShape& sh = in.shape;
    // Share of each MoE layer's experts a step touches (top-k of E per token).
    const double active = sh.experts > 0 ? std::min(1.0, batch * sh.topK / sh.experts) : 1.0;
    const double expertBytes = sizing::expertLayerBytes(in);
    const int moeLayers = s.model.moe.experts > 0
                              ? std::max(0, (s.model.layers - std::max(0, s.model.moe.denseLayers)) /
                                                std::max(1, s.model.moe.layerInterval))
                              : 0;
    const double untouchedPerLayer = expertBytes * moeLayers / std::max(1, sh.stackLayers) * (1 - active);
    const double readPerLayer = std::max(0.0, in.weights.layerBytes - untouchedPerLayer);
    const int cpuLayers = layout.gpuLayers >= 0 ? std::max(0, sh.stackLayers - layout.gpuLayers) : 0;
    const double head = in.weights.headBytes + in.weights.tiedHeadBytes;
    const double hostRead = cpuLayers * readPerLayer + (cpuLayers > 0 ? head : 0) + layout.cpuMoeLayers * expertBytes * active;
    const double totalRead = sh.stackLayers * readPerLayer + head;
    const double gpuShare = totalRead > 0 ? std::clamp(1 - hostRead / totalRead, 0.0, 1.0) : 1.0;
    const double hostBps = kHostBandwidthFraction * s.host.memoryBandwidthGBps * 1e9;
    if (out.decodeTokensPerS && *out.decodeTokensPerS > 0 && hostBps > 0) {
        const double stepS = batch / *out.decodeTokensPerS;
        const double hostS = hostRead / hostBps;
        out.decodeTokensPerS = batch / (stepS * gpuShare + hostS);
        if (withExplain) {
            out.explain.push_back({"decode_host_ms",
                                   sizing::fmt("%.3f GB of host-resident weights read per step at 0.75 x %.1f GB/s host "
                                               "bandwidth; the GPUs read the other %.0f%%",
                                               hostRead / 1e9, s.host.memoryBandwidthGBps, gpuShare * 100),
                                   hostS * 1e3});
        }
    }
    const double prompt = double(s.promptTokens) * batch;
    if (out.prefillTokensPerS && *out.prefillTokensPerS > 0 && prompt > 0 && s.host.pcieGBps > 0) {
        const double copies = std::ceil(prompt / kPromptUbatchTokens);
        const double copyS = copies * hostBytes / (s.host.pcieGBps * 1e9);
        const double prefillS = prompt / *out.prefillTokensPerS + copyS;
        out.prefillTokensPerS = prompt / prefillS;
        if (out.timeToFirstTokenS) *out.timeToFirstTokenS += copyS;
        if (withExplain) {
            out.explain.push_back({"prefill_host_copy_s",
                                   sizing::fmt("%.0f prompt micro-batch(es) of 512 copy %.3f GB of host-resident weights "
                                               "over PCIe at %.1f GB/s",
                                               copies, hostBytes / 1e9, s.host.pcieGBps),
                                   copyS});
        }
    }
    if (!withWarnings) return;
    out.warnings.push_back({"cpu_offload_slow", sizing::fmt("%.1f GiB of weights stay in host RAM and run on the CPU: "
                                                            "decode is bounded by host memory bandwidth",
                                                            hostBytes / (1024.0 * 1024 * 1024))});
}

SpeedEstimate speedOf(const Scenario& scenario, const Plan& plan, bool withExplain, bool withWarnings,
                      const ParamCounts* counts, const Workload* held = nullptr) {
    SpeedEstimate out;
    if (!usable(scenario)) {
        if (withWarnings) {
            out.warnings.push_back({"speed_unknown", "the model or GPU lacks the figures a speed estimate needs"});
        }
        return out;
    }
    std::optional<Workload> own;  // empty where the caller holds it (a matrix row): nothing to fill
    if (!held) own = makeWorkload(scenario, counts);
    const Workload& work = held ? *held : *own;
    if (scenario.task == Task::Inference) {
        const ServingLayout layout = servingLayout(scenario, plan);
        const EngineRates engine = engineRates(scenario.engine, scenario.weights, scenario.gpu);
        estimateDecode(scenario, engine, layout, work, withExplain, out);
        estimatePrefill(scenario, engine, layout, work, withExplain, out);
        if (withWarnings) warnLinks(layout, scenario, out);
        if (plan.gpuLayers >= 0 || plan.cpuMoeLayers > 0) addHostWork(scenario, plan, withExplain, withWarnings, out);
    } else {
        estimateTraining(scenario, plan, work, withExplain, out, withWarnings);
    }
    if (withWarnings && matmulPeak(scenario.engine, scenario.weights, scenario.gpu).tflops <= 0) {
        out.warnings.push_back({"no_tensor_rate", "the GPU has no listed compute rate: compute-bound figures are missing"});
    }
    return out;
}

}  // namespace

SpeedEstimate estimateSpeed(const Scenario& scenario, const Plan& plan, bool withExplain, const ParamCounts* counts) {
    return speedOf(scenario, plan, withExplain, true, counts);
}

SpeedEstimate speedFigures(const Scenario& scenario, const Plan& plan, const ParamCounts* counts) {
    return speedOf(scenario, plan, false, false, counts);
}

SpeedEstimate speedFigures(const Scenario& scenario, const Plan& plan, const Workload& work) {
    return speedOf(scenario, plan, false, false, nullptr, &work);
}

}  // namespace caliper
