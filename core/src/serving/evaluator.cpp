#include "serving/evaluator.hpp"

#include <algorithm>
#include <cmath>

#include "serving/steady_state.hpp"

namespace caliper::serving {

Evaluator::Evaluator(const Scenario& scenario, const Plan& plan, const MemoryBreakdown& memory)
    : scenario_(scenario),
      model_(stepModel(scenario, plan)),
      pool_(kvPool(scenario, model_, memory)),
      prefill_(closedLoopPrefill(scenario_, model_)) {
    const double perRequest = tokensPerRequest(scenario_, model_);
    // Every attention group holds its own requests' KV.
    running_ = perRequest > 0 ? std::floor(pool_.tokens / perRequest) * model_.layout.attentionDp : 0;
    if (runtimeOf(scenario_.engine) == Engine::LlamaCpp && running_ >= 1) {
        running_ = double(std::max<std::int64_t>(1, scenario_.batch));  // its slots hold the request's context
    }
}

std::optional<ServingFigures> Evaluator::at(double users, std::optional<double> ratePerS) const {
    if (!runs()) return std::nullopt;
    const double replicas = model_.layout.replicas;
    users = std::max(1.0, users);
    // The steady state reads the request's rate: a copy of the scenario only
    // when it differs from the one the evaluator holds.
    std::optional<Scenario> other;
    if (ratePerS != scenario_.serving.requestRatePerS) {
        other = scenario_;
        other->serving.requestRatePerS = ratePerS;
    }
    const Scenario& s = other ? *other : scenario_;
    const ReplicaState st = steadyState(s, model_, users / replicas, running_, other ? nullptr : &prefill_);
    if (!(st.tpotS > 0) || !std::isfinite(st.tpotS) || !(st.ttftS > 0) || !std::isfinite(st.ttftS)) return std::nullopt;
    ServingFigures f;
    const double gpus = double(model_.layout.gpus) * replicas;
    const double output = double(std::max<std::int64_t>(1, s.outputTokens));
    f.concurrency = ratePerS ? st.running * replicas : users;
    f.ttftS = st.ttftS;
    f.tpotMs = st.tpotS * 1e3;
    f.userTokensPerS = 1.0 / st.tpotS;
    f.requestsPerS = st.requestsPerS * replicas;
    f.outputTokensPerS = f.requestsPerS * output;
    f.outputTokensPerSPerGpu = f.outputTokensPerS / gpus;
    f.kvCacheTokens = pool_.tokens;
    f.maxConcurrency = pool_.maxConcurrency;
    f.kvPoolGiB = pool_.poolGiB;
    f.nonTorchGiB = pool_.nonTorchGiB;
    f.runningPerReplica = st.running;
    f.prefillOwnS = st.prefillOwnS;
    f.prefillWaitS = st.prefillWaitS;
    f.queued = st.queued;
    f.saturated = st.saturated;
    return f;
}

}  // namespace caliper::serving
