#pragma once
// The KV pool a serving engine allocates at start-up, as its log reports it:
// GiB per GPU, tokens it holds, and requests of max_model_len it can run.
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"
#include "serving/step_model.hpp"

namespace caliper::serving {

struct KvPool {
    double poolGiB = 0;          // per GPU ("Available KV cache memory")
    double nonTorchGiB = 0;      // what the profile subtracts besides weights and activations
    double bytesPerToken = 0;    // one token's KV on one GPU
    double tokens = 0;           // per attention group ("GPU KV cache size: N tokens")
    double maxModelLen = 0;
    double maxConcurrency = 0;   // tokens / max_model_len, per replica (all attention groups)
};

KvPool kvPool(const Scenario& scenario, const StepModel& model, const MemoryBreakdown& memory);

// Tokens one request holds in the pool, in whole blocks: prompt + output where
// the engine reserves them at admission, prompt + half the output (the mean of
// a steady state) where it allocates blocks on demand.
double tokensPerRequest(const Scenario& scenario, const StepModel& model);

}  // namespace caliper::serving
