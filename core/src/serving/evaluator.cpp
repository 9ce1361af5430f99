#include "serving/evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "serving/steady_state.hpp"

namespace caliper::serving {

Evaluator::Evaluator(Scenario scenario, const Plan& plan, const MemoryBreakdown& memory)
    : scenario_(std::move(scenario)),
      model_(stepModel(scenario_, plan)),
      pool_(kvPool(scenario_, model_, memory)),
      prefill_(closedLoopPrefill(scenario_, model_)) {
    const double perRequest = tokensPerRequest(scenario_, model_);
    // Every attention group holds its own requests' KV.
    running_ = perRequest > 0 ? std::floor(pool_.tokens / perRequest) * model_.layout.attentionDp : 0;
    // vLLM refuses to start where its pool cannot hold one request of
    // max_model_len (kv_cache_utils.py check_enough_kv_cache_memory), as the
    // memory breakdown's fit verdict says; SGLang clips to its pool likewise.
    const Engine runtime = runtimeOf(scenario_.engine);
    if ((runtime == Engine::Vllm || runtime == Engine::Sglang) && pool_.tokens < pool_.maxModelLen) running_ = 0;
    if (runtime == Engine::LlamaCpp && running_ >= 1) {
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
    DeploymentState d;
    d.concurrency = ratePerS ? st.running * replicas : users;
    d.ttftS = st.ttftS;
    d.tpotS = st.tpotS;
    d.requestsPerS = st.requestsPerS * replicas;
    d.gpus = double(model_.layout.gpus) * replicas;
    d.runningPerReplica = st.running;
    d.prefillOwnS = st.prefillOwnS;
    d.prefillWaitS = st.prefillWaitS;
    d.queued = st.queued;
    d.saturated = st.saturated;
    return servingFigures(d, pool_, double(std::max<std::int64_t>(1, s.outputTokens)));
}

ServingFigures servingFigures(const DeploymentState& d, const KvPool& pool, double outputTokens) {
    ServingFigures f;
    f.concurrency = d.concurrency;
    f.ttftS = d.ttftS;
    f.tpotMs = d.tpotS * 1e3;
    f.userTokensPerS = 1.0 / d.tpotS;
    f.requestsPerS = d.requestsPerS;
    f.outputTokensPerS = f.requestsPerS * outputTokens;
    f.outputTokensPerSPerGpu = f.outputTokensPerS / d.gpus;
    f.kvCacheTokens = pool.tokens;
    f.maxConcurrency = pool.maxConcurrency;
    f.kvPoolGiB = pool.poolGiB;
    f.nonTorchGiB = pool.nonTorchGiB;
    f.runningPerReplica = d.runningPerReplica;
    f.prefillOwnS = d.prefillOwnS;
    f.prefillWaitS = d.prefillWaitS;
    f.queued = d.queued;
    f.saturated = d.saturated;
    return f;
}

}  // namespace caliper::serving
