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

// Whether the engine runs 4-bit weight-only (AWQ / GPTQ int4, W4A16) GEMMs
// on the scenario's GPU.
bool int4Kernels(const Scenario& s);

// The 4-bit formats a replica is tried with where the request left `weights`
// open on a 16-bit checkpoint and the engine has 4-bit kernels on the GPU:
// AWQ int4 weights with the request's KV cache, then with an FP8 one where
// formatsTried tries FP8 KV. Empty otherwise.
std::vector<Formats> int4FormatsTried(const Scenario& s);

}  // namespace caliper::serving
