// The estimate of a model that is not an LLM: its pipeline's memory on the
// fewest GPUs that fit, its own figures, and the plan's cost and power.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "caliper/cost/cost.hpp"
#include "caliper/model/formats.hpp"
#include "caliper/memory/memory.hpp"
#include "memory/overhead.hpp"
#include "workloads/asr.hpp"
#include "workloads/diffusion.hpp"
#include "workloads/embedding.hpp"

namespace caliper {

namespace {

// The most GPUs one sequence-parallel DiT generation is split over: the
// published scaling rows (xDiT) stop at 8, one NVLink node.
constexpr int kMaxParallelGpus = 8;

struct Sized {
    workloads::PipelineMemory memory;
    MemoryBreakdown breakdown;
};

Sized sizeOn(const Scenario& s, const WorkloadInputs& in, int gpus) {
    const double bytes = workloads::bytesPerWeightOf(s);
    Sized out;
    switch (s.model.workload) {
        case WorkloadKind::Asr: out.memory = workloads::asrMemory(s, in, bytes); break;
        case WorkloadKind::Embedding: out.memory = workloads::embeddingMemory(s, bytes); break;
        default: out.memory = workloads::diffusionMemory(s, in, gpus, bytes); break;
    }
    out.memory.overheadGiB = sizing::kCudaContextGiB;
    MemoryBreakdown& m = out.breakdown;
    m.weightsGiB = out.memory.weightsGiB;
    m.kvCacheGiB = out.memory.kvCacheGiB;
    m.activationsGiB = out.memory.activationsGiB;
    m.overheadGiB = out.memory.overheadGiB;
    m.totalGiB = out.memory.totalGiB();
    return out;
}

std::string oneDecimal(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value);
    return text;
}

}  // namespace

bool hasPipeline(const ModelSpec& model) {
    return model.workload == WorkloadKind::Asr || model.workload == WorkloadKind::Embedding || model.workload == WorkloadKind::DiffusionImage ||
           model.workload == WorkloadKind::DiffusionVideo;
}

bool runsPipeline(const Scenario& s) { return hasPipeline(s.model) && s.task == Task::Inference; }

Warning trainingWarning(const Scenario& s) {
    return {"workload_trained_as_transformer",
            std::string("training a ") + toString(s.model.workload) +
                " model is sized as the plain transformer stack its architecture keys describe (" +
                std::to_string(s.model.layers) + " layers of width " + std::to_string(s.model.hiddenSize) +
                "); the pipeline's other components are not counted"};
}

double pipelineParams(const ModelSpec& model) {
    if (model.workload == WorkloadKind::Llm || model.workload == WorkloadKind::Embedding) return countParams(model).total;
    double total = 0;
    for (const PipelineComponent& c : model.workloadShape.components) total += static_cast<double>(c.params);
    return total;
}

WorkloadInputs workloadInputs(const Scenario& s) {
    const WorkloadShape& w = s.model.workloadShape;
    const WorkloadRequest& q = s.workloadRequest;
    WorkloadInputs in;
    in.audioSeconds = q.audioSeconds;
    in.width = q.imageWidth.value_or(w.defaultWidth);
    in.height = q.imageHeight.value_or(w.defaultHeight);
    in.steps = q.steps.value_or(w.defaultSteps);
    in.frames = s.model.workload == WorkloadKind::DiffusionVideo ? q.videoFrames.value_or(w.defaultFrames) : 1;
    return in;
}

namespace workloads {

double bytesPerWeightOf(const Scenario& s) { return weightFormatInfo(s.weights).linearBits / 8.0; }

bool shardsAcrossGpus(const ModelSpec& model) {
    return model.workload == WorkloadKind::DiffusionImage || model.workload == WorkloadKind::DiffusionVideo;
}

}  // namespace workloads

EstimateResult estimatePipeline(const Scenario& s, EstimateDetail detail, const CostBasis* costs) {
    EstimateResult r;
    const WorkloadInputs in = workloadInputs(s);
    if (detail.text) {
        r.modelId = s.model.id;
        r.gpuId = s.gpu.id;
        r.gpuName = s.gpu.name;
    }
    r.paramsB = pipelineParams(s.model) / 1e9;
    r.activeParamsB = r.paramsB;
    r.gpuMemoryGiB = s.gpu.memoryGib;
    r.usableMemoryGiB = usableMemoryGiB(s);

    // Speech models run one replica per GPU; diffusion models may split one
    // generation over several (sharded weights, sequence parallel).
    // The last split probed is kept: an "auto" count is sized on it again.
    Sized probed;
    int probedOver = 0;
    for (int n = 1; n <= kMaxParallelGpus; ++n) {
        if (n > 1 && !workloads::shardsAcrossGpus(s.model)) break;
        probed = sizeOn(s, in, n);
        probedOver = n;
        if (fitsMemory(s, probed.breakdown)) {
            r.gpusNeeded = n;
            break;
        }
    }
    const int count = s.gpuCountAuto ? r.gpusNeeded.value_or(1) : s.gpuCount;
    r.plan.gpuCount = count;
    r.plan.strategy = count == 1 ? Strategy::Single : workloads::shardsAcrossGpus(s.model) ? Strategy::Fsdp : Strategy::Ddp;
    r.plan.dp = workloads::shardsAcrossGpus(s.model) ? 1 : count;
    const int splitOver = workloads::shardsAcrossGpus(s.model) ? count : 1;
    r.memory = splitOver == probedOver ? probed.breakdown : sizeOn(s, in, splitOver).breakdown;
    r.fits = fitsMemory(s, r.memory);
    // No measured memory band covers these pipelines (ranges.cpp bands come
    // from LLM rows), so a plan that fits is never "tight": the verdict is
    // the fit itself, as the matrix cell's status and tight flag say.
    r.fitVerdict = r.fits ? "fits" : "no";
    if (!r.fits && detail.text) {
        r.warnings.push_back({"does_not_fit", "needs " + oneDecimal(r.memory.totalGiB) + " GiB per GPU; " + s.gpu.name +
                                                  " offers " + oneDecimal(r.usableMemoryGiB) + " GiB usable"});
    }
    if (detail.explain) {
        r.explain.push_back({"weights_gib", "every component's parameters x bytes per weight (text encoders and VAE "
                                            "in 16-bit), sharded over the GPUs of a sequence-parallel run",
                             r.memory.weightsGiB});
        r.explain.push_back({"activations_gib", "the larger of the denoiser's or encoder's live activations and the "
                                                "VAE decoder's working set at this size",
                             r.memory.activationsGiB});
        r.explain.push_back({"overhead_gib", "CUDA context per process", r.memory.overheadGiB});
    }
    if (!r.fits) return r;

    const workloads::PipelineTime time =
        s.model.workload == WorkloadKind::Asr         ? workloads::asrTime(s, in, detail.explain)
        : s.model.workload == WorkloadKind::Embedding ? workloads::embeddingTime(s, detail.explain)
                                                      : workloads::diffusionTime(s, in, count, detail.explain);
    if (time.seconds > 0 && std::isfinite(time.seconds)) {
        const double batch = static_cast<double>(s.batch);
        if (s.model.workload == WorkloadKind::Asr) {
            AsrFigures a;
            a.realtimeFactor = time.seconds / in.audioSeconds;
            a.audioSecondsPerS = count * batch * in.audioSeconds / time.seconds;  // replicas add up
            r.workloadFigures.asr = a;
        } else if (s.model.workload == WorkloadKind::Embedding) {
            const double tokens = batch * static_cast<double>(s.promptTokens);
            r.workloadFigures.embedding = EmbeddingFigures{count * tokens / time.seconds, count * batch / time.seconds};
        } else if (s.model.workload == WorkloadKind::DiffusionImage) {
            r.workloadFigures.image = ImageFigures{time.seconds, batch / time.seconds};
        } else {
            r.workloadFigures.video = VideoFigures{time.seconds};
        }
    }
    if (detail.text && !(time.seconds > 0 && std::isfinite(time.seconds))) {
        r.warnings.push_back({"unknown_compute_rate", s.gpu.name + " has no known tensor rate for this format; "
                                                      "the workload's speed is unknown"});
    }
    for (const ExplainTerm& t : time.explain) {
        if (std::isfinite(t.value)) r.explain.push_back(t);
    }

    const CostEstimate cost = detail.text ? estimateCost(s, r.plan, SpeedEstimate{}, detail.explain)
                              : costs     ? costFigures(s, *costs, r.plan, SpeedEstimate{})
                                          : costFigures(s, r.plan, SpeedEstimate{});
    r.usdPerHour = cost.usdPerHour;
    r.purchaseUsd = cost.purchaseUsd;
    r.purchaseCny = cost.purchaseCny;
    r.powerW = cost.powerW;
    r.priceYear = cost.priceYear;
    for (const ExplainTerm& t : cost.explain) r.explain.push_back(t);
    for (const Warning& w : cost.warnings) r.warnings.push_back(w);
    return r;
}

WorkloadCellFigure workloadCellFigure(const ModelSpec& model, const WorkloadFigures& f) {
    switch (model.workload) {
        case WorkloadKind::Asr:
            return {f.asr ? std::optional<double>(f.asr->audioSecondsPerS) : std::nullopt, "audio_seconds_per_s"};
        case WorkloadKind::Embedding:
            return {f.embedding ? std::optional<double>(f.embedding->tokensPerS) : std::nullopt, "tokens_per_s"};
        case WorkloadKind::DiffusionImage:
            return {f.image ? std::optional<double>(f.image->imagesPerS) : std::nullopt, "images_per_s"};
        case WorkloadKind::DiffusionVideo:
            return {f.video ? std::optional<double>(f.video->secondsPerVideo) : std::nullopt, "seconds_per_video"};
        case WorkloadKind::Llm: break;
    }
    return {};
}

}  // namespace caliper
