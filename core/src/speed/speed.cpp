// estimateSpeed: picks the models that apply to the task. Inference gives
// decode, prefill and time to first token; fine-tuning and pre-training give
// training throughput.
#include "caliper/speed/speed.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "speed/efficiency.hpp"
#include "speed/speed_parts.hpp"

namespace caliper {

namespace {

bool usable(const Scenario& scenario) {
    const ModelSpec& model = scenario.model;
    return model.layers > 0 && model.hiddenSize > 0 && scenario.gpu.bandwidthGbps > 0;
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
    const int perNode = std::max(1, scenario.gpu.gpusPerNode);
    layout.tpLink = groupLink(scenario.gpu, layout.tp, layout.tp > perNode);
    layout.stageLink = groupLink(scenario.gpu, 2, layout.tp * layout.pp > perNode);
    return layout;
}

SpeedEstimate estimateSpeed(const Scenario& scenario, const Plan& plan, bool withExplain) {
    SpeedEstimate out;
    if (!usable(scenario)) {
        out.warnings.push_back({"speed_unknown", "the model or GPU lacks the figures a speed estimate needs"});
        return out;
    }
    const Workload work = makeWorkload(scenario);
    if (scenario.task == Task::Inference) {
        const ServingLayout layout = servingLayout(scenario, plan);
        estimateDecode(scenario, layout, work, withExplain, out);
        estimatePrefill(scenario, layout, work, withExplain, out);
        warnLinks(layout, scenario, out);
    } else {
        estimateTraining(scenario, plan, work, withExplain, out);
    }
    if (matmulPeak(scenario.engine, scenario.weights, scenario.gpu).tflops <= 0) {
        out.warnings.push_back({"no_tensor_rate", "the GPU has no listed compute rate: compute-bound figures are missing"});
    }
    return out;
}

}  // namespace caliper
