#pragma once
// What a set of owned GPUs can run: for every model, whether inference (in
// the best weight format that fits), LoRA, QLoRA and full fine-tuning fit, on
// how many of the GPUs, and how fast. Each GPU type is evaluated on its own:
// one job runs on one type of GPU.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

enum class InventoryTask { Inference, Lora, Qlora, Full };
constexpr int kInventoryTaskCount = 4;
const char* toString(InventoryTask task);

struct InventoryGroup {  // `count` GPUs of one type
    GpuSpec gpu;
    int count = 1;
};

// One task on one GPU type.
struct GroupFit {
    const GpuSpec* gpu = nullptr;
    int owned = 0;
    bool fits = false;
    std::optional<int> gpusNeeded;  // fewest of this type that fit (may exceed `owned`)
    int gpusUsed = 0;               // the plan's GPUs when it fits (gpusNeeded, or more owned ones where faster), else 0
    WeightFormat weights = WeightFormat::Bf16;
    Strategy strategy = Strategy::Single;
    bool gradientCheckpointing = false;  // training: whether the fit needs activation checkpointing
    double totalGiB = 0;  // per GPU at gpusUsed (or at the owned count when it does not fit)
    std::optional<double> decodeTokensPerS;
    std::optional<double> trainTokensPerS;
    std::optional<double> trainHours;
    std::string rejection;  // why the task cannot run on this GPU at all (checkScenario), empty otherwise
};

// One task over the whole inventory: the best GPU type (fits first, then the
// fastest), and every type's own answer.
struct TaskFit {
    GroupFit best;
    std::vector<GroupFit> byGroup;
};

struct InventoryRow {
    const ModelSpec* model = nullptr;
    double paramsB = 0;
    std::array<TaskFit, kInventoryTaskCount> tasks;
};

struct InventoryResult {
    std::vector<InventoryRow> rows;
    std::vector<Warning> notes;
};

// The request's workload for each kind of job: `inference` is a serving
// scenario; `training` a fine-tuning one whose method and weights are set
// per task. Their model and gpu fields are ignored. A training task that does
// not fit is tried again with gradient checkpointing unless the request
// chose checkpointing itself (`checkpointingChosen`).
struct InventoryWorkloads {
    Scenario inference;
    Scenario training;
    bool checkpointingChosen = false;
};

InventoryResult evaluateInventory(const InventoryWorkloads& workloads, const std::vector<InventoryGroup>& groups,
                                  const std::vector<const ModelSpec*>& models);

}  // namespace caliper
