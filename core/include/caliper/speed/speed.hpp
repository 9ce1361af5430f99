#pragma once
// Decode, prefill and training speed from first principles (roofline with
// achieved fractions by engine, format and GPU generation).
#include <optional>
#include <vector>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

struct SpeedEstimate {
    std::optional<double> decodeTokensPerS;
    std::optional<double> prefillTokensPerS;
    std::optional<double> timeToFirstTokenS;
    std::optional<double> trainTokensPerS;
    std::optional<double> trainTflopsPerGpu;
    std::optional<double> trainMfu;  // model FLOPs achieved / dense peak (train_mfu)
    std::vector<ExplainTerm> explain;
    std::vector<Warning> warnings;
};

// withExplain = false leaves `explain` empty and skips formatting it.
// `counts`, when given, is countParams(scenario.model) worked out by the
// caller (the planner has it for every candidate plan).
SpeedEstimate estimateSpeed(const Scenario& scenario, const Plan& plan, bool withExplain = true,
                            const ParamCounts* counts = nullptr);

// The figures alone, with neither explanation nor warnings: what the planner
// weighs its candidates by and a matrix cell shows (the warnings' texts
// cost more than the figures).
SpeedEstimate speedFigures(const Scenario& scenario, const Plan& plan, const ParamCounts* counts = nullptr);

}  // namespace caliper
