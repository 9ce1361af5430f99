#pragma once
// How a scenario spreads over GPUs: strategy, TP/PP/DP degrees, nodes, and
// the fewest GPUs that fit.
#include <optional>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

constexpr int kMaxGpus = 1024;  // docs/CONTRACT.md: gpus_needed is null beyond this

// The strategy used when the request says "auto", per task, engine and count.
Strategy defaultStrategy(const Scenario& scenario, int gpuCount);

// Resolve the scenario's strategy (or the default) for gpuCount GPUs.
Plan makePlan(const Scenario& scenario, int gpuCount);

}  // namespace caliper
