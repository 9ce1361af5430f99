#pragma once
// A plausible architecture for a model known only by its size ("params_b": 7),
// so that a request without a config still gets an estimate. Pure arithmetic,
// no JSON.
#include <optional>
#include <string>

#include "caliper/model.hpp"

namespace caliper {

// Fills the architecture of `given` around a total of totalParamsB billion
// parameters (activeParamsB below ~90% of it makes a mixture of experts).
// Fields of `given` that are already set (> 0) are kept; the rest come from a
// size table fitted on published Llama / Qwen configs. extraParams absorbs the
// remainder so that countParams matches the requested total. Returns a
// sentence describing what was assumed, for the warning.
std::string assumeModelShape(ModelSpec& given, double totalParamsB, std::optional<double> activeParamsB);

}  // namespace caliper
