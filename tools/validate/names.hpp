#pragma once
// Finds the catalog model and GPU a validation row names in free text:
// "meta-llama/Llama-3.1-405B (pre-training)", "Llama 2 70B class (GPTQ 4-bit)",
// "NVIDIA A100 (80GB assumed; not stated)", "Apple M2 Max (30-core GPU)".
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caliper/catalog.hpp"

namespace caliper::io {

// Spellings to try, most specific first: the whole name, the name without
// its parenthesised notes, Hugging Face ids and quoted names inside it, the
// notes themselves, and the name without qualifier words (-Chat, class, -style).
std::vector<std::string> modelNameCandidates(std::string_view name);

// The name with the organisation of each Hugging Face id dropped
// ("unsloth/Mistral-7B-v0.2" -> "Mistral-7B-v0.2"): who uploaded the weights
// says nothing about the framework that ran them.
std::string withoutOrganisations(std::string_view name);

// The catalog model the name means, or null. When paramsB is given, a match
// more than kParamsTolerance away from it is refused (a different model).
const ModelSpec* findRowModel(const Catalog& catalog, std::string_view name, std::optional<double> paramsB);

// True when the row names no particular GPU ("any (estimator)", "n/a", "").
bool namesNoGpu(std::string_view name);

// The catalog GPU the name means, or null. A memory size stated in the name
// ("80GB", "32 GB") must agree with the card's.
const GpuSpec* findRowGpu(const Catalog& catalog, std::string_view name);

// The count a GPU name starts with ("2x RTX 3090" -> 2), if any.
std::optional<int> countInGpuName(std::string_view name);

// The largest-memory NVIDIA card of the catalog (any vendor when none): for
// rows without a GPU, whose per-GPU memory does not depend on the card.
const GpuSpec* largestGpu(const Catalog& catalog);

}  // namespace caliper::io
