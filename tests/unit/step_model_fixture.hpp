#pragma once
// A serving request's scenario and the step model its planned deployment
// runs, for tests of the serving mechanisms.
#include <catch2/catch.hpp>

#include "caliper/plan/estimate.hpp"
#include "property_scenarios.hpp"
#include "serving/step_model.hpp"

namespace caliper::test {

struct StepSetup {
    Scenario scenario;
    serving::StepModel model;
};

inline StepSetup stepSetupOf(const PropertyJson& request) {
    const std::optional<Scenario> s = accepted(request);
    REQUIRE(s);
    const EstimateResult r = estimate(*s, EstimateDetail{false, false, false});
    return {*s, serving::stepModel(*s, r.plan)};
}

}  // namespace caliper::test
