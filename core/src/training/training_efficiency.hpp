#pragma once
// Training FLOPs per token and model-FLOPs utilisation (MFU) from published
// tables (Megatron-LM, MosaicML llm-foundry, Llama 3), by GPU generation,
// model width, cluster size, sequence length, engine and method.
#include <string>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"
#include "speed/efficiency.hpp"
#include "plan/workload.hpp"

namespace caliper {

struct TrainingFlops {
    double modelPerToken = 0;     // 6N + causal attention (4N for LoRA/QLoRA): what MFU counts
    double hardwarePerToken = 0;  // plus the recomputed forward under gradient checkpointing
    double attentionShare = 0;    // share of the hardware FLOPs in attention scores (what ring attention hides under)
};

TrainingFlops trainingFlops(const Scenario& scenario, const Workload& work);
// trainingFlops' count in words, for the explanation only (a matrix
// evaluates it for every candidate plan and reads no text).
std::string trainingFlopsFormula(const Scenario& scenario);

// Dense tensor rate training runs at: bf16 (fp16 without bf16), FP32
// accumulate; fp8 when the weights are fp8 and the GPU has it.
PeakRate trainingPeak(const Scenario& scenario);

// MFU against trainingPeak(): the base fraction of the GPU generation,
// engine, width, cluster size and sequence, with FP8 speeding up the linear
// layers only (attentionShare of the hardware FLOPs stays 16-bit) and routed
// experts' narrow GEMMs slowing theirs.
double trainingMfu(const Scenario& scenario, const Plan& plan, const Workload& work, double attentionShare);
std::string trainingMfuFormula(const Scenario& scenario, const Plan& plan);

}  // namespace caliper
