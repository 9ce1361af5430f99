#pragma once
// Cloud and purchase cost, power and energy of a plan.
#include <optional>
#include <string>
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
    std::optional<double> purchaseCny;  // the catalog's own CNY price where it has one
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

// What a plan's cost reads of the scenario's GPU and prices, whatever the
// plan: a matrix works it out once per GPU column.
struct CostBasis {
    std::optional<double> hourUsd;  // price of one GPU-hour
    std::string hourOrigin;         // where that price comes from (estimateCost's explanation only)
    std::optional<double> unitUsd;  // purchase price of one card
    std::optional<double> unitCny;  // in CNY: the catalog's price_cny, else unitUsd at cny_per_usd
    struct HostPower {
        double watts = 0;
        bool perGpu = false;  // per GPU slot (boards, racks), else per node
    } host;
    bool liquidCooling = false;
};
CostBasis costBasis(const Scenario& scenario);
// costFigures with `basis` = costBasis(scenario), worked out by the caller.
CostEstimate costFigures(const Scenario& scenario, const CostBasis& basis, const Plan& plan, const SpeedEstimate& speed);

}  // namespace caliper
