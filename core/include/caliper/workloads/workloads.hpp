#pragma once
// Figures of the models that are not LLMs (docs/CONTRACT.md "Workloads"): speech
// recognition (real-time factor), embeddings and rerankers (tokens and
// sequences per second), image and video diffusion (seconds per image or
// clip), each from the compute and memory of its pipeline.
#include <optional>

#include "caliper/plan/estimate.hpp"
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

// True for asr, embedding and diffusion models: their memory and speed come
// from core/src/workloads/ instead of the LLM engine.
bool hasPipeline(const ModelSpec& model);

// The scenario runs through the non-LLM engine: a non-LLM model at
// inference. Training one is sized by the LLM engine on the transformer its
// LLM keys describe, with trainingWarning saying so.
bool runsPipeline(const Scenario& scenario);
Warning trainingWarning(const Scenario& scenario);

// Every parameter of the pipeline (all components of asr and diffusion
// models); countParams for LLMs and embedding models.
double pipelineParams(const ModelSpec& model);

// The request's workload keys with the model's defaults filled in.
struct WorkloadInputs {
    double audioSeconds = 30;
    int width = 0;
    int height = 0;
    int steps = 0;
    int frames = 1;
};
WorkloadInputs workloadInputs(const Scenario& scenario);

struct CostBasis;

// The whole estimate of a non-LLM scenario (hasPipeline):
// memory of every component, fit and GPUs needed, the workload's figures,
// cost and power. LLM-only figures stay null. `costs`, when given, is
// costBasis(scenario), worked out once per GPU column by a matrix (read
// only without text: the explained cost works out its own).
EstimateResult estimatePipeline(const Scenario& scenario, EstimateDetail detail, const CostBasis* costs = nullptr);

// The figure a matrix cell shows for a non-LLM model, with its unit:
// asr audio_seconds_per_s, embedding tokens_per_s, image images_per_s,
// video seconds_per_video. Empty when the plan does not run.
struct WorkloadCellFigure {
    std::optional<double> value;
    const char* unit = "";
};
WorkloadCellFigure workloadCellFigure(const ModelSpec& model, const WorkloadFigures& figures);

}  // namespace caliper
