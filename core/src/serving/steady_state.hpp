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

// Disaggregated prefill and decode (DistServe, Zhong et al., OSDI 2024;
// NVIDIA Dynamo; vLLM's and SGLang's PD disaggregation): prompts run on
// prefill replicas, which send each request's KV cache to decode replicas
// that only decode. No prompt rides in a decode step, so TPOT is the decode
// step's alone; TTFT is the prompt's own prefill, its wait behind other
// prompts on the prefill replicas, the KV transfer and the first decode step.
struct DisaggregatedShape {
    int prefillReplicas = 1;
    int decodeReplicas = 1;
    double kvTransferS = 0;         // one request's prompt KV, prefill to decode replica
    double decodeRunningLimit = 1;  // requests one decode replica's pool runs at once
    int prefillMaxBatch = 0;        // prompts one prefill replica runs at once (0: as its step budget allows)
    int benchmarkRounds = 0;        // closed loop: requests per user of a run that starts every user at once (0: steady state)
};

struct DisaggregatedState {
    double ttftS = 0;
    double tpotS = 0;
    double requestsPerS = 0;        // the whole deployment
    double decodingPerReplica = 0;  // requests decoding on one decode replica
    double prefillOwnS = 0;
    double prefillWaitS = 0;
    double prefillServiceS = 0;  // prefill replica time per prompt
    double firstRoundWaitS = 0;  // closed loop with benchmarkRounds: the first round's mean wait (steady wait where longer)
    double arrivalsPerS = 0;     // requests arriving at the prefill replicas
    bool queued = false;     // more decoding requests than the decode pools hold
    bool saturated = false;  // the prefill replicas cannot keep up
};

// Users (closed loop) or, with serving.request_rate_per_s, arrivals per
// second over the whole deployment.
DisaggregatedState disaggregatedState(const Scenario& scenario, const StepModel& prefill, const StepModel& decode,
                                      const DisaggregatedShape& shape, double users);

// Per output token on a decode-only replica running `decodes` requests.
double decodeOnlyTpotS(const Scenario& scenario, const StepModel& decode, double decodes);

}  // namespace caliper::serving
