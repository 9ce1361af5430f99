#pragma once
// The weight and KV-cache formats a serving replica is tried with: the
// request's, and FP8 where the request left a 16-bit format open and the GPU
// converts FP8 in hardware. `caliper serve` and the matrix's users-at-SLO
// cells search the same ones (serving_formats.cpp says why each).
#include <vector>

#include "caliper/scenario.hpp"

namespace caliper::serving {

struct Formats {
    WeightFormat weights;
    KvFormat kv;
};

// The request's formats first; then FP8 KV, FP8 weights, and both, each
// where it applies. The last entry sets every open format to FP8.
std::vector<Formats> formatsTried(const Scenario& s);

}  // namespace caliper::serving
