#pragma once
// Counts below which no plan of a scenario fits, worked out from its
// prepared figures before any plan is made: the GPU-count search
// (gpu_count.cpp) probes nothing below them.
#include "memory/sizing.hpp"

namespace caliper {

// The weights spread evenly over the GPUs, each also holding its CUDA
// context (counts from one).
double lowestPossibleCount(const sizing::Inputs& in);

// The same with every overhead a GPU of a multi-GPU plan holds (counts
// above one).
double lowestMultiGpuCount(const sizing::Inputs& in);

// `above`, a bound already known for counts above one, raised for serving
// plans that split into whole layers per pipeline stage: the fewest GPUs
// whose first stage fits. As it is where it is not above every tensor
// degree (a single stage may fit below it) or the request fixes the
// degrees, the strategy or an offload.
double lowestStagedCount(const sizing::Inputs& in, double above);

}  // namespace caliper
