#pragma once
// The flash-attention default of a scenario's GPU, engine and model: part of
// adaptToGpu; the matrix calls it again per row, as Ollama's default depends
// on the model's architecture (scenario.cpp).
#include "caliper/scenario.hpp"

namespace caliper {

void adaptFlashAttention(Scenario& scenario);

}  // namespace caliper
