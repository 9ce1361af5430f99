#pragma once
// The serving figures of one deployment shape (GPU, plan, memory) at any
// concurrency or request rate: the step model and KV pool are worked out once,
// so that a search over concurrency costs only the steady-state solution.
#include <optional>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"
#include "caliper/serving/serving.hpp"
#include "serving/kv_pool.hpp"
#include "serving/step_model.hpp"
#include "serving/steady_state.hpp"

namespace caliper::serving {

// A deployment's steady state, whole deployment: what its serving figures
// read. Evaluator::at fills it from one replica's steady state, serve's
// disaggregated deployments from the prefill and decode replicas'.
struct DeploymentState {
    double concurrency = 0;   // requests in the deployment (the users, or by Little's law under a rate)
    double ttftS = 0;
    double tpotS = 0;
    double requestsPerS = 0;  // completed per second by the whole deployment
    double gpus = 1;
    double runningPerReplica = 0;  // requests decoding on one (decode) replica
    double prefillOwnS = 0;
    double prefillWaitS = 0;
    bool queued = false;
    bool saturated = false;
};

// The serving figures of that state, with the KV pool of its (decode) replicas.
ServingFigures servingFigures(const DeploymentState& state, const KvPool& pool, double outputTokens);

class Evaluator {
public:
    // The scenario is kept (taken by value: a caller done with its own moves it in).
    Evaluator(Scenario scenario, const Plan& plan, const MemoryBreakdown& memory);

    const Scenario& scenario() const { return scenario_; }

    bool runs() const { return running_ >= 1; }
    double runningLimit() const { return running_; }  // requests one replica's pool runs at once
    const StepModel& model() const { return model_; }
    const KvPool& pool() const { return pool_; }

    // Figures with `users` concurrent requests over the whole deployment, or,
    // when ratePerS is set, that many arrivals per second.
    std::optional<ServingFigures> at(double users, std::optional<double> ratePerS) const;

    // Re-reads the calibrated constants (the KV pool does not depend on them).
    void recalibrate() {
        calibrateStepModel(model_, scenario_);
        prefill_ = closedLoopPrefill(scenario_, model_);
    }

private:
    Scenario scenario_;
    StepModel model_;
    KvPool pool_;
    ClosedLoopPrefill prefill_;  // the closed loop's concurrency-free part
    double running_ = 0;
};

}  // namespace caliper::serving
