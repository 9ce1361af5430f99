#pragma once
// Structure-aware mutation of "<call>\n<request>" inputs for
// fuzz_estimate_paths: keys the request format knows, set to valid values and
// their edges, so most mutants pass the parser and reach the engine.
#include <random>
#include <string>
#include <string_view>

#include "caliper/catalog.hpp"

namespace caliper::fuzz {

// The mutated text, or "" when the input is not a request to mutate
// (the caller then falls back to libFuzzer's byte-level mutation).
std::string mutateRequest(const Catalog& catalog, std::string_view text, std::mt19937& rng);

}  // namespace caliper::fuzz
