#pragma once
// EstimateResult and errors as JSON (docs/CONTRACT.md "Result").
#include <optional>

#include "caliper/error.hpp"
#include "caliper/result.hpp"
#include "json/json_read.hpp"

namespace caliper::io {

// Rounds to 6 significant digits with exact IEEE operations only, so native
// and WASM builds print identical JSON.
double tidy(double value);
Json tidyOrNull(const std::optional<double>& value);

Json warningsToJson(const std::vector<Warning>& warnings);
Json memoryToJson(const MemoryBreakdown& memory);  // the result's "memory" object
Json servingToJson(const std::optional<ServingFigures>& figures);  // the result's "serving" object
Json resultToJson(const EstimateResult& result, const Scenario& scenario);
Json errorToJson(const Error& error);

}  // namespace caliper::io
