// What owned GPUs can run: each model x task x GPU type is sized at the
// fewest GPUs that fit and compared with the count owned.
#include "caliper/answers/inventory.hpp"

#include "caliper/plan/estimate.hpp"
#include "caliper/plan/plan.hpp"
#include "caliper/answers/limits.hpp"
#include "caliper/error.hpp"

namespace caliper {

const char* toString(InventoryTask task) {
    switch (task) {
        case InventoryTask::Inference: return "inference";
        case InventoryTask::Lora: return "lora";
        case InventoryTask::Qlora: return "qlora";
        case InventoryTask::Full: return "full";
    }
    return "";
}

namespace {

// Each cell needs figures only, not rules of thumb or fit suggestions.
constexpr EstimateDetail kFiguresOnly{false, false};

// Sizes one scenario on one GPU type; `fits` compares with the count owned.
GroupFit sizeOn(Scenario s, const InventoryGroup& group) {
    GroupFit fit;
    fit.gpu = &group.gpu;
    fit.owned = group.count;
    fit.weights = s.weights;
    fit.gradientCheckpointing = s.task != Task::Inference && s.gradientCheckpointing;
    s.gpuCountAuto = true;
    // The planner may run a model that fits on fewer GPUs on more of them
    // where that is faster per GPU (tensor parallelism over every GPU
    // instead of a pipeline): never on more than are owned.
    s.maxGpus = group.count;
    if (std::optional<Error> rejected = scenarioError(s)) {
        fit.rejection = std::move(rejected->message);
        return fit;
    }
    EstimateResult r = estimate(s, kFiguresOnly);
    fit.gpusNeeded = r.gpusNeeded;
    fit.fits = r.gpusNeeded && *r.gpusNeeded <= group.count;
    if (!fit.gpusNeeded) {
        // No count within the owned ones fits (the estimate's max_gpus): the
        // fewest that fit at all still tells how many more to buy.
        Scenario any = s;
        any.maxGpus = kMaxGpus;
        fit.gpusNeeded = estimate(any, kFiguresOnly).gpusNeeded;
    }
    if (!fit.fits) {
        // Show the per-GPU memory with every owned GPU, the closest it gets.
        s.gpuCountAuto = false;
        s.gpuCount = group.count;
        r = estimate(s, kFiguresOnly);
        fit.totalGiB = r.memory.totalGiB;
        fit.strategy = r.plan.strategy;
        fit.gradientCheckpointing = s.task != Task::Inference && r.plan.gradientCheckpointing;
        return fit;
    }
    fit.gpusUsed = r.plan.gpuCount;  // the plan the figures describe (may be above the fewest)
    fit.strategy = r.plan.strategy;
    // The planner's choice where the request leaves checkpointing "auto".
    fit.gradientCheckpointing = s.task != Task::Inference && r.plan.gradientCheckpointing;
    fit.totalGiB = r.memory.totalGiB;
    fit.decodeTokensPerS = s.task == Task::Inference ? r.decodeTokensPerS : std::nullopt;
    fit.trainTokensPerS = s.task == Task::Inference ? std::nullopt : r.trainTokensPerS;
    fit.trainHours = r.trainHours;
    return fit;
}

Scenario onGpu(Scenario s, const ModelSpec& model, const GpuSpec& gpu) {
    s.model = model;
    s.gpu = gpu;
    adaptToGpu(s);
    return s;
}

// Inference in the request's format when it names one, else the best format
// of the engine's ladder (limits.hpp: 16-bit, fp8 where the GPU runs it,
// 8-bit, 4-bit, ...) whose fewest GPUs fit the owned count.
GroupFit inferenceFit(const Scenario& workload, const ModelSpec& model, const InventoryGroup& group) {
    Scenario s = onGpu(workload, model, group.gpu);
    if (workload.weightsExplicit) return sizeOn(s, group);
    std::optional<GroupFit> first;
    for (WeightFormat format : weightFormatLadder(s)) {
        s.weights = format;
        GroupFit fit = sizeOn(s, group);
        if (fit.fits) return fit;
        if (!first && fit.rejection.empty()) first = fit;  // the release format, when nothing fits
    }
    return first ? *first : sizeOn(onGpu(workload, model, group.gpu), group);
}

// Fitting beats not fitting; among fits the faster, then the fewer GPUs.
bool better(const GroupFit& a, const GroupFit& b) {
    if (a.fits != b.fits) return a.fits;
    if (!a.fits) return a.gpusNeeded && (!b.gpusNeeded || *a.gpusNeeded < *b.gpusNeeded);
    const double speedA = a.decodeTokensPerS.value_or(a.trainTokensPerS.value_or(0));
    const double speedB = b.decodeTokensPerS.value_or(b.trainTokensPerS.value_or(0));
    if (speedA != speedB) return speedA > speedB;
    return a.gpusUsed < b.gpusUsed;
}

GroupFit trainingFit(const InventoryWorkloads& workloads, InventoryTask task, const ModelSpec& model,
                     const InventoryGroup& group) {
    Scenario s = workloads.training;
    s.task = Task::Finetune;
    s.method = task == InventoryTask::Full ? Method::Full : task == InventoryTask::Lora ? Method::Lora : Method::Qlora;
    s.weightsExplicit = false;
    if (task == InventoryTask::Qlora) {
        // QLoRA's recipe: NF4 with double quantization, gradient checkpointing
        // always on (QLoRA paper §2-3).
        s.weights = WeightFormat::Nf4Dq;
        s.gradientCheckpointing = true;
    }
    GroupFit fit = sizeOn(onGpu(s, model, group.gpu), group);
    if (!fit.rejection.empty() || s.gradientCheckpointing || workloads.checkpointingChosen) return fit;
    // Recomputing activations trades ~1/3 more compute for storing one input
    // per layer (methodology §4.2): the usual step when it saves GPUs. Chosen
    // by the GPU count each way needs, not by the count owned, so owning more
    // GPUs never changes how a model that fits is run.
    s.gradientCheckpointing = true;
    GroupFit checkpointed = sizeOn(onGpu(s, model, group.gpu), group);
    const bool fewerGpus =
        checkpointed.gpusNeeded && (!fit.gpusNeeded || *checkpointed.gpusNeeded < *fit.gpusNeeded);
    return fewerGpus ? checkpointed : fit;
}

TaskFit taskFit(const InventoryWorkloads& workloads, InventoryTask task, const ModelSpec& model,
                const std::vector<InventoryGroup>& groups) {
    TaskFit out;
    for (const InventoryGroup& group : groups) {
        out.byGroup.push_back(task == InventoryTask::Inference ? inferenceFit(workloads.inference, model, group)
                                                               : trainingFit(workloads, task, model, group));
        if (out.byGroup.size() == 1 || better(out.byGroup.back(), out.best)) out.best = out.byGroup.back();
    }
    return out;
}

}  // namespace

InventoryResult evaluateInventory(const InventoryWorkloads& workloads, const std::vector<InventoryGroup>& groups,
                                  const std::vector<const ModelSpec*>& models) {
    InventoryResult result;
    if (groups.size() > 1) {
        result.notes.push_back({"mixed_inventory",
                                "each GPU type is evaluated on its own: a job runs on GPUs of one type; splitting one "
                                "model across unlike GPUs is not modeled"});
    }
    for (const ModelSpec* model : models) {
        InventoryRow row;
        row.model = model;
        row.paramsB = countParams(*model).total / 1e9;
        for (int t = 0; t < kInventoryTaskCount; ++t) {
            row.tasks[t] = taskFit(workloads, static_cast<InventoryTask>(t), *model, groups);
        }
        result.rows.push_back(std::move(row));
    }
    return result;
}

}  // namespace caliper
