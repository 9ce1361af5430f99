#pragma once
// Pieces of the recommendation shared by recommend.cpp and
// recommend_reasons.cpp: the ranking metrics, reasons and watch items.
#include <optional>
#include <string>
#include <vector>

#include "caliper/answers/recommend.hpp"
#include "text/grouped_number.hpp"

namespace caliper {

// The throughput an option is judged by: generated tokens/s for serving,
// trained tokens/s for training.
std::optional<double> speedOf(const RecommendOption& option);

// The price the pricing mode counts: cloud $/h of the whole configuration (the
// whole run's cost for a training task with train_tokens), or
// the purchase price of its cards.
std::optional<double> priceOf(const RecommendOption& option, Pricing pricing);

// The configuration's power, when the catalog knows the card's TDP.
std::optional<double> powerOf(const RecommendOption& option);

// What each objective minimises (speeds are negated); empty when unknown.
std::optional<double> objectiveValue(const RecommendOption& option, Objective objective, Pricing pricing);

// Reasons for every ranked option: the fit, and every metric it leads on.
void addReasons(std::vector<RecommendOption>& ranked, const RecommendOptions& options);

// What to watch: the estimate's warnings (compatibility, memory, speed,
// cost), the recommendation's own checks, and the GPU's catalog caveats.
std::vector<WatchItem> watchItems(const Catalog& catalog, const Scenario& scenario, const EstimateResult& result);


}  // namespace caliper
