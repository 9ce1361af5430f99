#pragma once
// When a scenario does not fit its GPUs, the changes that make it fit, each
// computed by re-running the memory model (not canned advice). A bigger GPU
// is the recommender's answer, not listed here.
#include <vector>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

// Empty when the scenario already fits. Changes are listed least disruptive
// first; each entry fits (fits = true) with its per-GPU total and GPU count.
std::vector<FitSuggestion> fitSuggestions(const Scenario& scenario);

}  // namespace caliper
