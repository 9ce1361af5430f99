#pragma once
// Image and video diffusion pipelines (diffusion.cpp).
#include "workloads/pipeline.hpp"

namespace caliper::workloads {

constexpr double kBytesPerGiBWorkload = 1073741824.0;

struct DiffusionSize {
    double spatialTokens = 0;   // latent patches per frame
    double latentFrames = 1;
    double imageTokens = 0;     // spatial x latent frames
    double sequenceTokens = 0;  // image tokens + text tokens the denoiser attends over
    double outputFrames = 1;
};

DiffusionSize diffusionSize(const ModelSpec& model, const WorkloadInputs& in);
PipelineMemory diffusionMemory(const Scenario& s, const WorkloadInputs& in, int gpus, double bytesPerWeight);
PipelineTime diffusionTime(const Scenario& s, const WorkloadInputs& in, int gpus, bool withExplain);
double componentParamsOf(const ModelSpec& model, ComponentRole role);

}  // namespace caliper::workloads
