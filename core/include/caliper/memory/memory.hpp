#pragma once
// Per-GPU memory of a scenario under a plan, term by term.
#include <vector>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

struct MemoryEstimate {
    MemoryBreakdown memory;
    std::vector<ExplainTerm> explain;
    std::vector<Warning> warnings;
};

// withExplain = false skips the explanation text (the matrix needs figures only).
MemoryEstimate estimateMemory(const Scenario& scenario, const Plan& plan, bool withExplain = true);

// GiB of one GPU the scenario may fill: vLLM/SGLang cap the pool at
// gpu_memory_utilization, others keep a headroom.
double usableMemoryGiB(const Scenario& scenario);

bool fitsMemory(const Scenario& scenario, const MemoryBreakdown& memory);

}  // namespace caliper
