#pragma once
// Cloud and purchase cost, power and energy of a plan.
#include <optional>
#include <vector>

#include "caliper/speed/speed.hpp"

namespace caliper {

struct CostEstimate {
    std::optional<double> usdPerHour;
    std::optional<double> trainHours;
    std::optional<double> gpuHours;
    std::optional<double> costUsd;
    std::optional<double> usdPerMillionTokens;
    std::optional<double> purchaseUsd;
    std::optional<double> powerW;  // null when the board power is unknown
    std::optional<double> energyKwh;
    int priceYear = 0;
    std::vector<ExplainTerm> explain;
    std::vector<Warning> warnings;
};

// withExplain = false leaves `explain` empty and skips formatting it.
CostEstimate estimateCost(const Scenario& scenario, const Plan& plan, const SpeedEstimate& speed,
                          bool withExplain = true);

// The figures alone, with neither explanation nor warnings (matrix cells).
CostEstimate costFigures(const Scenario& scenario, const Plan& plan, const SpeedEstimate& speed);

}  // namespace caliper
