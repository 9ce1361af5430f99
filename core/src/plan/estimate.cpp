#include "caliper/plan/estimate.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "caliper/plan/compat.hpp"
#include "caliper/cost/cost.hpp"
#include "caliper/answers/fit_suggestions.hpp"
#include "caliper/memory/memory.hpp"
#include "caliper/model/formats.hpp"
#include "caliper/plan/plan.hpp"
#include "caliper/answers/quick_rules.hpp"
#include "caliper/speed/speed.hpp"
#include "calibration/ranges.hpp"
#include "speed/comm.hpp"
#include "plan/prepared.hpp"
#include "caliper/serving/estimate_serving.hpp"
#include "caliper/workloads/workloads.hpp"
#include "plan/planner.hpp"
#include "plan/replicas.hpp"

namespace caliper {

namespace {

template <class T>
void append(std::vector<T>& to, const std::vector<T>& from) {
    to.insert(to.end(), from.begin(), from.end());
}

std::string oneDecimal(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value);
    return text;
}

void addWarningOnce(std::vector<Warning>& warnings, const Warning& w) {
    auto same = [&](const Warning& x) { return x.code == w.code && x.message == w.message; };
    if (std::none_of(warnings.begin(), warnings.end(), same)) warnings.push_back(w);
}

// Why the weights are in their format, for the weights_format term: the
// request, QLoRA's or Ollama's own default, or the checkpoint (defaultWeights).
std::string weightsFormatReason(const Scenario& s) {
    const std::string why = s.weightsWhy;
    if (s.weightsExplicit) return ": as requested";
    if (why == "weights_qlora_nf4") return ": QLoRA's 4-bit NormalFloat base with double-quantized scales (bitsandbytes)";
    if (why == "weights_ollama_library") return ": the quantization of Ollama's library tags";
    if (s.model.nativeWeights) {
        return std::string(", the checkpoint ships in ") + toString(*s.model.nativeWeights) + " (" + why + ")";
    }
    return ": 16-bit, the checkpoint's own precision";
}

// Why a plan does not fit. Memory is the usual reason; a plan whose memory
// fits fails on its layout (more GPUs than it can use: a pipeline or layer
// split has at most one stage per layer, and tensor parallelism must divide
// the heads) or on the host RAM, and saying "needs X GiB of Y" there would
// contradict the figures shown.
Warning notFitWarning(const Scenario& s, const sizing::Inputs& in, const EstimateResult& r) {
    const std::string memoryText = "needs " + oneDecimal(r.memory.totalGiB) + " GiB per GPU; " + s.gpu.name + " offers " +
                                   oneDecimal(r.usableMemoryGiB) + " GiB usable";
    if (!fitsMemory(s, r.memory)) return Warning{"does_not_fit", memoryText};
    const Plan& p = r.plan;
    const std::string count = std::to_string(p.gpuCount);
    const std::string fewest = r.gpusNeeded ? "; " + std::to_string(*r.gpusNeeded) + " fit (gpus_needed)" : "";
    if (!sizing::countUsable(in, p)) {
        const int layers = std::max(1, in.shape().stackLayers);
        if (p.pp >= layers && p.tp * p.pp * p.cp * p.dp != p.gpuCount) {
            return Warning{"does_not_fit", "the memory fits, but the plan cannot use " + count + " GPUs: it splits the model's " +
                                               std::to_string(layers) + " layers into " + std::to_string(p.pp) +
                                               " stages of at least one layer each, on " +
                                               std::to_string(p.tp * p.pp * p.cp * p.dp) + " GPUs" + fewest};
        }
        return Warning{"does_not_fit", "the memory fits, but no layout of " + count +
                                           " GPUs suits the model (tensor x pipeline x replicas must equal the count, tensor "
                                           "parallelism must divide the attention heads, a pipeline has at most one stage per layer)" +
                                           fewest};
    }
    const double hostPerNodeGiB = r.memory.cpuOffloadGiB / std::max(1, p.nodes);
    if ((s.host.ramExplicit || p.statesOnHost) && hostPerNodeGiB > hostShare(s, p.gpuCount, p.nodes).ramGib + 1e-9) {
        return Warning{"does_not_fit", "the GPUs' memory fits (" + oneDecimal(r.memory.totalGiB) + " of " +
                                           oneDecimal(r.usableMemoryGiB) + " GiB usable), the host RAM does not (host_ram_too_small)"};
    }
    return Warning{"does_not_fit", memoryText};
}

// A tensor plan asked for at a stated count that came out with no tensor
// split: no degree above 1 divides the count (within a node) and the
// attention heads and suits the KV heads (plan.cpp, largestTensorDegree),
// so the GPUs run as a pipeline of stages instead.
std::optional<Warning> tensorImpossibleWarning(const Scenario& request, const Plan& p) {
    if (request.gpuCountAuto || request.parallel.strategy != Strategy::Tensor || request.parallel.tp > 0) return std::nullopt;
    if (request.task != Task::Inference || p.gpuCount < 2 || p.tp > 1) return std::nullopt;
    const int heads = std::max(1, request.model.heads);
    const int kvHeads = request.model.kvHeads > 0 ? request.model.kvHeads : heads;
    return Warning{"tensor_parallel_impossible",
                   "tensor parallelism cannot split the model over " + std::to_string(p.gpuCount) +
                       " GPUs: its degree must divide both the GPUs of a server and the model's " + std::to_string(heads) +
                       " attention heads (and suit its " + std::to_string(kvHeads) +
                       " KV heads), and no degree above 1 does; the GPUs run as a pipeline of " + std::to_string(p.pp) +
                       " stages instead, one at a time per token"};
}

// An "auto" count is chosen within max_gpus (as a matrix cell is): a
// plan the planner could fit only above it does not fit, and no count
// within the limit does (gpus_needed null), as the cell says `no`.
bool planOverLimit(const Scenario& request, const planner::Choice& choice) {
    return request.gpuCountAuto && choice.fits && choice.plan.gpuCount > request.maxGpus;
}

// The plan the figures describe: a training plan names the loss its
// figures assume.
Plan plannedFor(const Scenario& resolvedScenario, const planner::Choice& choice) {
    Plan plan = choice.plan;
    if (resolvedScenario.task != Task::Inference) plan.lossKernel = lossKernelOf(resolvedScenario);
    return plan;
}

// Replicas hold one replica's share of the requests each (replicas.hpp).
MemoryEstimate planMemoryEstimate(const Scenario& scenario, const sizing::Inputs& in, const Plan& plan, bool explain) {
    return runsReplicas(scenario, plan)
               ? estimateMemory(replicaScenario(scenario, plan), replicaPlan(scenario, plan), explain)
               : estimateMemory(in, plan, explain);
}

// At a stated count the planner fits its plan to that count, and the
// fewest GPUs its search reports are those of that kind of plan. An "auto"
// count also weighs the plans that pay only on fewer GPUs (ZeRO-Infinity,
// the leaner losses where the engine's fits): the fewest GPUs that fit are
// the fewer of the two, as the same request with "auto" says.
std::optional<int> fewestAnyCount(const Scenario& request, std::optional<int> atCount) {
    if (request.gpuCountAuto || request.task == Task::Inference || (atCount && *atCount <= 1)) return atCount;
    Scenario any = request;
    any.gpuCountAuto = true;
    any.gpuCount = 1;
    const std::optional<int> fewest = planner::choose(any, any.maxGpus).gpusNeeded;
    return fewest && (!atCount || *fewest < *atCount) ? fewest : atCount;
}

}  // namespace

PlannedMemory planMemory(const Scenario& request) {
    if (runsPipeline(request) || (request.serving.disaggregated && request.task == Task::Inference)) {
        const EstimateResult r = estimate(request, EstimateDetail{false, false, false, false});
        return {r.plan, r.memory, r.fits};
    }
    const planner::Choice choice = planner::choose(request, request.maxGpus);
    const Scenario scenario = planner::resolved(request, choice);
    const sizing::Inputs in = sizing::prepare(scenario);
    PlannedMemory out;
    out.plan = plannedFor(scenario, choice);
    out.memory = planMemoryEstimate(scenario, in, out.plan, false).memory;
    out.fits = fitsMemory(scenario, out.memory) && choice.fits && !planOverLimit(request, choice);
    return out;
}

EstimateResult estimate(const Scenario& request, EstimateDetail detail) {
    // Speech, embedding and diffusion models have their own engine
    // (core/src/workloads) and figures.
    if (runsPipeline(request)) return estimatePipeline(request, detail);
    // A stated prefill/decode split: its decode replica, with both pools' figures.
    if (request.serving.disaggregated && request.task == Task::Inference) return estimateDisaggregated(request, detail);
    EstimateResult r;
    // The planner resolves the open knobs (count, strategy, checkpointing);
    // every figure below describes its plan, on the resolved scenario.
    planner::Choice choice = planner::choose(request, request.maxGpus);
    const Scenario scenario = planner::resolved(request, choice);
    const sizing::Inputs in = sizing::prepare(scenario);
    r.modelId = scenario.model.id;
    r.paramsB = in.counts().total / 1e9;
    r.activeParamsB = in.counts().active / 1e9;
    r.gpuId = scenario.gpu.id;
    r.gpuName = scenario.gpu.name;
    r.gpuMemoryGiB = scenario.gpu.memoryGib;
    r.usableMemoryGiB = usableMemoryGiB(scenario);

    r.gpusNeeded = choice.gpusNeeded;
    if (detail.fewestAnyCount) r.gpusNeeded = fewestAnyCount(request, choice.gpusNeeded);
    const bool overLimit = planOverLimit(request, choice);
    const int fewestAboveLimit =
        choice.gpusNeeded && *choice.gpusNeeded > request.maxGpus ? *choice.gpusNeeded : choice.plan.gpuCount;
    if (overLimit) r.gpusNeeded.reset();
    r.plan = plannedFor(scenario, choice);
    if (r.plan.nodes > 1) {
        // Every group that crosses a node boundary talks over this link (comm.cpp).
        const Link link = groupLink(scenario, r.plan.gpuCount, true);
        r.interNode = InterNodeLink{scenario.interconnect.interNode, link.name, link.busGBps};
    }
    r.weights = scenario.weights;
    r.planWhy.push_back(scenario.weightsWhy);
    for (const char* why : choice.why) r.planWhy.push_back(why);
    if (scenario.weightsExplicit && runsWeightOnly(scenario)) r.planWhy.push_back("weights_weight_only");
    if (detail.explain) {
        r.explain.push_back(ExplainTerm{
            "weights_format",
            std::string(toString(scenario.weights)) + weightsFormatReason(scenario) +
                (runsWeightOnly(scenario) ? "; no tensor cores for it on this GPU: weight-only, dequantized to 16-bit in the GEMM" : ""),
            weightFormatInfo(scenario.weights).linearBits});
    }

    const MemoryEstimate memory = planMemoryEstimate(scenario, in, r.plan, detail.explain);
    if (detail.explain && runsReplicas(scenario, r.plan)) {
        r.explain.push_back(ExplainTerm{"replicas",
                                        "copies of the model serving separate requests, each on " +
                                            std::to_string(r.plan.gpuCount / r.plan.dp) +
                                            " GPU(s): throughput sums over them, a request's latency is one replica's",
                                        double(r.plan.dp)});
    }
    r.memory = memory.memory;
    r.fits = fitsMemory(scenario, r.memory) && choice.fits && !overLimit;
    append(r.explain, memory.explain);

    std::vector<Warning> warnings = compatibilityWarnings(scenario, r.plan);
    if (scenario.model.workload != WorkloadKind::Llm) warnings.push_back(trainingWarning(scenario));
    append(warnings, memory.warnings);
    if (r.plan.layersOnHost) {
        const int layers = std::max(1, in.shape().stackLayers);
        warnings.push_back(Warning{"ollama_layers_on_cpu",
                                   "the model does not fit the GPUs' memory: Ollama keeps " + std::to_string(r.plan.gpuLayers) +
                                       " of " + std::to_string(layers) + " layers there and runs the rest on the CPU (" +
                                       oneDecimal(r.memory.cpuOffloadGiB) + " GiB in host RAM), much slower than on the GPU"});
    }
    const double hostPerNodeGiB = r.memory.cpuOffloadGiB / std::max(1, r.plan.nodes);
    // A plan on part of a server with the default RAM has its share (hostShare).
    const HostShare host = hostShare(scenario, r.plan.gpuCount, r.plan.nodes);
    const std::string hostText =
        host.rented ? oneDecimal(host.ramGib) + " GiB, the share of " + std::to_string(host.gpusOnNode) + " GPUs of the " +
                          oneDecimal(scenario.host.ramGib) + " GiB a server holds for " + std::to_string(host.gpusPerServer)
                    : "host.ram_gib is " + oneDecimal(host.ramGib);
    // The planner's own ZeRO-Offload is bounded by the assumed RAM too.
    if ((scenario.host.ramExplicit || r.plan.statesOnHost) && hostPerNodeGiB > host.ramGib + 1e-9) {
        warnings.push_back(Warning{"host_ram_too_small", "needs " + oneDecimal(hostPerNodeGiB) +
                                                             " GiB of host RAM per node for offloaded weights or states; " +
                                                             hostText});
    } else if (!scenario.host.ramExplicit && r.fits && hostPerNodeGiB > host.ramGib + 1e-9) {
        // The machine's RAM was assumed, not stated: the plan is not refused
        // on it, but the reader is told it needs more than the assumption.
        warnings.push_back(Warning{"host_ram_assumed", "keeps " + oneDecimal(hostPerNodeGiB) +
                                                           " GiB per node in host RAM, above the " +
                                                           oneDecimal(host.ramGib) + " GiB assumed (" +
                                                           scenario.host.basis +
                                                           (host.rented ? "; " + hostText : std::string()) +
                                                           "); state host.ram_gib to judge the fit"});
    }
    if (detail.explain && r.memory.cpuOffloadGiB > 0) {
        r.explain.push_back(ExplainTerm{"host_ram_gib",
                                        std::string("host RAM of each node (") +
                                            (scenario.host.ramExplicit ? "as given"
                                             : host.rented             ? scenario.host.basis + std::string("; ") + hostText
                                                                       : scenario.host.basis) +
                                            "); the plan keeps " + oneDecimal(hostPerNodeGiB) + " GiB there",
                                        host.ramGib});
    }
    if (overLimit) {
        warnings.push_back(Warning{"over_max_gpus", "the fewest GPUs of this type that fit is " +
                                                        std::to_string(fewestAboveLimit) + ", above max_gpus " +
                                                        std::to_string(request.maxGpus) + ": no count within the limit fits"});
    } else if (!r.fits) {
        warnings.push_back(notFitWarning(scenario, in, r));
    }
    if (r.fits && !scenario.gpuCountAuto && r.plan.gpuCount < scenario.gpuCount && runsReplicas(scenario, r.plan)) {
        warnings.push_back(Warning{"gpus_idle", std::to_string(scenario.gpuCount - r.plan.gpuCount) + " of " +
                                                    std::to_string(scenario.gpuCount) + " GPUs idle: " +
                                                    std::to_string(r.plan.dp) + " replicas of " +
                                                    std::to_string(r.plan.gpuCount / r.plan.dp) +
                                                    " GPUs use " + std::to_string(r.plan.gpuCount)});
    }
    if (const std::optional<Warning> w = tensorImpossibleWarning(request, r.plan)) warnings.push_back(*w);

    // Speed and cost describe a plan that runs; a plan that does not fit has none.
    if (r.fits) {
        const SpeedEstimate speed = estimateSpeed(scenario, r.plan, detail.explain);
        r.decodeTokensPerS = speed.decodeTokensPerS;
        r.prefillTokensPerS = speed.prefillTokensPerS;
        r.timeToFirstTokenS = speed.timeToFirstTokenS;
        r.trainTokensPerS = speed.trainTokensPerS;
        r.trainTflopsPerGpu = speed.trainTflopsPerGpu;
        r.trainMfu = speed.trainMfu;
        append(r.explain, speed.explain);
        append(warnings, speed.warnings);

        const CostEstimate cost = estimateCost(scenario, r.plan, speed, detail.explain);
        r.usdPerHour = cost.usdPerHour;
        r.trainHours = cost.trainHours;
        r.gpuHours = cost.gpuHours;
        r.costUsd = cost.costUsd;
        r.usdPerMillionTokens = cost.usdPerMillionTokens;
        r.purchaseUsd = cost.purchaseUsd;
        r.purchaseCny = cost.purchaseCny;
        r.powerW = cost.powerW;
        r.energyKwh = cost.energyKwh;
        r.priceYear = cost.priceYear;
        append(r.explain, cost.explain);
        append(warnings, cost.warnings);
    }
    // Continuous batching runs whenever weights and activations leave the KV
    // pool room for one request: more concurrent requests than it holds queue.
    // llama.cpp allocates its whole context (-c) at load and admits nothing
    // more: a plan that does not fit fails to load, and serves no one.
    const bool loads = r.fits || runtimeOf(scenario.engine) != Engine::LlamaCpp;
    if (continuousBatching(scenario) && loads) {
        r.serving = estimateServing(scenario, r.plan, r.memory, detail.explain ? &r.explain : nullptr, &warnings);
        if (r.serving && r.fits) priceServing(*r.serving, r.usdPerHour, r.powerW.value_or(0));
        if (r.serving && !r.fits) {
            const CostEstimate cost = estimateCost(scenario, r.plan, SpeedEstimate{}, false);
            priceServing(*r.serving, cost.usdPerHour, cost.powerW.value_or(0));
        }
    }
    for (const Warning& w : warnings) addWarningOnce(r.warnings, w);
    if (detail.quickRules) r.quickRules = quickRules(scenario);
    if (detail.suggestions && !r.fits) r.suggestions = fitSuggestions(request);
    applyCalibrationBands(scenario, r);
    return r;
}

}  // namespace caliper
