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

class Evaluator {
public:
    Evaluator(const Scenario& scenario, const Plan& plan, const MemoryBreakdown& memory);

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
