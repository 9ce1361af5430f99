#pragma once
// A serving engine's start-up accounting of its KV pool, shared by the memory
// breakdown (memory.kv_pool_gib and the fit verdict) and the serving figures
// (serving.kv_pool_gib): pool = fraction x GPU memory - fixed.
#include <optional>

#include "caliper/scenario.hpp"

namespace caliper::serving {

struct StartupAccounting {
    double fraction = 0;     // of the GPU's memory the engine budgets
    double fixedGiB = 0;     // what the budget loses before the pool (weights, activation peak, non-torch memory)
    double nonTorchGiB = 0;  // the non-torch part of it
    // SGLang's default fraction is (memory - reserved) / memory, its reserve
    // fixed in MiB (engine_defaults.cpp): where set, the reserve held at that
    // many GiB, not scaled with the memory.
    double reservedGiB = 0;
    double poolGiB(double capacityGiB) const { return fraction * capacityGiB - fixedGiB; }
    // The GPU memory at which the pool reaches `poolGiB` (the engine starts
    // with one request of max_model_len only from there).
    double capacityForGiB(double poolGiB) const {
        return reservedGiB > 0 ? poolGiB + fixedGiB + reservedGiB : (poolGiB + fixedGiB) / fraction;
    }
};

// vLLM, SGLang and TensorRT-LLM (nothing for the others): weights and
// activations of one GPU, the replica's tensor- and pipeline-parallel degrees.
std::optional<StartupAccounting> startupAccounting(const Scenario& s, double weightsGiB, double activationsGiB,
                                                   int tensorParallel, int pipelineParallel);

}  // namespace caliper::serving
