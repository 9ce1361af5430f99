#pragma once
// How many concurrent users one replica serves within an SLO: the largest
// concurrency whose own figures meet it (TPOT and TTFT rise with
// concurrency, so an integer bisection finds it). `caliper serve` sizes
// replicas with it and the matrix's users-at-SLO cells show it.
#include "caliper/serving/serve.hpp"
#include "serving/evaluator.hpp"

namespace caliper::serving {

// Concurrency searched per replica: engines run at most a few thousand
// requests at once (vLLM max_num_seqs 1024, TensorRT-LLM max_batch_size 2048).
constexpr double kMaxUsersPerReplica = 4096;

struct ReplicaCapacity {
    double perReplica = 0;  // users or requests/s one replica serves within the SLO (0: none)
    ServingFigures best;    // figures at the lightest load (for "closest" when nothing meets)
    double gap = 0;
};

// The most users in [1, cap] the replica serves within `slo` (0 when one
// user already misses it).
ReplicaCapacity usersWithin(const Evaluator& evaluator, const Slo& slo, double cap);

// The most users above `floor` the replica serves within `slo`, where the
// caller has another replica serving `floor` (1 <= floor < cap): 0 when
// floor + 1 users already miss it, so a replica that serves no more costs
// one evaluation (the matrix's FP8 trial against the request's formats).
double usersAbove(const Evaluator& evaluator, const Slo& slo, double floor, double cap);

}  // namespace caliper::serving
