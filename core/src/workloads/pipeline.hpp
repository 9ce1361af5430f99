#pragma once
// Time and memory of one asr or diffusion scenario on `gpus` GPUs of its
// type (diffusion: sequence parallel with sharded weights; asr: replicas).
#include <vector>

#include "caliper/result.hpp"
#include "caliper/workloads/workloads.hpp"

namespace caliper::workloads {

struct PipelineMemory {  // per GPU, GiB
    double weightsGiB = 0;
    double kvCacheGiB = 0;
    double activationsGiB = 0;
    double overheadGiB = 0;
    double totalGiB() const { return weightsGiB + kvCacheGiB + activationsGiB + overheadGiB; }
};

struct PipelineTime {
    double seconds = 0;  // wall time of one batch (asr: of `batch` streams of audio_seconds each)
    std::vector<ExplainTerm> explain;
};

PipelineMemory pipelineMemory(const Scenario& s, const WorkloadInputs& in, int gpus);
PipelineTime pipelineTime(const Scenario& s, const WorkloadInputs& in, int gpus, bool withExplain);

// Diffusion: the GPU counts a sequence-parallel run may use (1, 2, 4, 8);
// asr: replicas, so one GPU decides the fit.
bool shardsAcrossGpus(const ModelSpec& model);

}  // namespace caliper::workloads

namespace caliper::workloads {

// Bytes per weight of the scenario's format (denoiser / speech networks).
double bytesPerWeightOf(const Scenario& s);

}  // namespace caliper::workloads
