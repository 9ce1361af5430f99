#pragma once
// Models that exist only as training-benchmark configurations (llm-foundry's
// MPT sizes, NeMo's GPT-3 sizes): their shapes come from the benchmark's own
// configuration files, so rows naming them are scored on the shape that ran
// rather than on a shape assumed from the parameter count.
#include <optional>
#include <string_view>

#include "json/json_read.hpp"

namespace caliper::io {

// The request's model object for a benchmark configuration the row names
// ("mpt-13b", "GPT3-175B"), or empty when the name is not one of them.
std::optional<Json> benchmarkModel(std::string_view rowModelName);

}  // namespace caliper::io
