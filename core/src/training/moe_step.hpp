#pragma once
// Parts of a mixture-of-experts training step that the dense MFU tables do
// not hold: the memory-bound token shuffling around the expert GEMMs and the
// load imbalance of dropless routing across the expert-parallel ranks.
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"
#include "plan/workload.hpp"

namespace caliper {

// The busiest expert-parallel rank's routed tokens over the mean under
// dropless routing (1 without expert parallelism: one GPU runs every expert,
// whatever their shares).
double moeLoadImbalance(const Scenario& s, const Workload& work, int ep);

// The share of the expert-parallel all-to-all left exposed.
double moeAllToAllExposedShare();

// GPU time per micro-batch per GPU of the MoE token work: the memory-bound
// permutation and unpermutation of each routed token copy and the gated
// activation, forward and backward, and the fixed time of each local
// expert's GEMMs.
double moeTokenWorkS(const Scenario& s, const Plan& plan, const Workload& work, double microTokens);

}  // namespace caliper
