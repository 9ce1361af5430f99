#pragma once
// The source documents' rules of thumb, computed for a scenario so a reader
// can set them beside the detailed estimate and see where they part.
#include <vector>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

// Rules that apply to the scenario's task and method, whole-model GiB.
std::vector<QuickRule> quickRules(const Scenario& scenario);

}  // namespace caliper
