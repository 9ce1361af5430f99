#pragma once
// Engine steps on a prepared scenario (sizing::Inputs: parameter counts,
// shape and weight bytes worked out once), so that one estimate or one
// matrix cell prepares its scenario once instead of once per step.
#include <optional>

#include "caliper/memory/memory.hpp"
#include "memory/sizing.hpp"

namespace caliper {

// The fewest GPUs of the scenario's type that fit, or empty beyond kMaxGpus.
std::optional<int> fewestGpus(const sizing::Inputs& in);

// The same count with the plan and per-GPU memory it fits with.
struct CountFit {
    int count = 0;
    Plan plan;
    MemoryBreakdown memory;
};
std::optional<CountFit> fewestGpusFit(const sizing::Inputs& in);

// Per-GPU memory under `plan`, with the explanation when asked.
MemoryEstimate estimateMemory(const sizing::Inputs& in, const Plan& plan, bool withExplain);

}  // namespace caliper
