#pragma once
// The decode batch an engine actually runs: engines replay decode steps as
// CUDA graphs captured at a fixed list of batch sizes and pad a running
// batch up to the next captured size (cuda_graph.cpp).
#include "serving/engine_defaults.hpp"

namespace caliper::serving {

// The batch the GEMMs of a pure decode step run at for `decodes` running
// requests: the next captured size, or `decodes` itself where the engine
// captures every size or the batch is above its largest graph.
double cudaGraphBatch(const SchedulerDefaults& engine, double decodes);

}  // namespace caliper::serving
