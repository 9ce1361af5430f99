#pragma once
// One replica's steady state under continuous batching (steady_state.cpp).
#include "caliper/scenario.hpp"
#include "serving/step_model.hpp"

namespace caliper::serving {

struct ReplicaState {
    double running = 1;       // requests decoding together
    double ttftS = 0;
    double tpotS = 0;         // per output token, first excluded
    double requestsPerS = 0;  // completed per second by this replica
    double prefillOwnS = 0;   // TTFT parts: the request's own prefill,
    double prefillWaitS = 0;  // the prefill work queued ahead of it (and waiting for room in the pool)
    bool queued = false;      // requests wait for room in the KV pool
    bool saturated = false;   // open loop: arrivals above what the replica completes
};

// What the closed loop reads that does not depend on the concurrency: one
// prompt's own prefill and what it adds to the decode steps it shares.
struct ClosedLoopPrefill {
    double ownS = 0;
    double extraS = 0;
};
ClosedLoopPrefill closedLoopPrefill(const Scenario& scenario, const StepModel& model);

// usersPerReplica: closed-loop concurrency; runningLimit: requests the KV
// pool holds at once. serving.request_rate_per_s switches to the open loop.
// `prefill`: closedLoopPrefill of the same scenario and model, when the
// caller keeps it across concurrencies.
ReplicaState steadyState(const Scenario& scenario, const StepModel& model, double usersPerReplica, double runningLimit,
                         const ClosedLoopPrefill* prefill = nullptr);

}  // namespace caliper::serving
