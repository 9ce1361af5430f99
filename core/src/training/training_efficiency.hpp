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
    std::string formula;
};

TrainingFlops trainingFlops(const Scenario& scenario, const Workload& work);

// Dense tensor rate training runs at: bf16 (fp16 without bf16), FP32
// accumulate; fp8 when the weights are fp8 and the GPU has it.
PeakRate trainingPeak(const Scenario& scenario);

double trainingMfu(const Scenario& scenario, const Plan& plan, const Workload& work);
std::string trainingMfuFormula(const Scenario& scenario, const Plan& plan);

}  // namespace caliper
