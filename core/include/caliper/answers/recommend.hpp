#pragma once
// Which GPU configurations to buy or rent for one workload: the model is
// fixed, the GPU is free. Every GPU type is sized at the fewest GPUs that fit
// (and, when speed is the objective, at twice that), ranked by the user's
// objective and grouped into the source documents' tiers.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "caliper/catalog.hpp"
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

enum class Objective { Cheapest, Fastest, CostPerToken, FewestGpus, LowestPower };
enum class Pricing { Cloud, Purchase };  // rent per GPU-hour, or buy the cards
enum class Tier { Entry, Mid, HighEnd, Cluster };
constexpr int kTierCount = 4;

const char* toString(Objective objective);
const char* toString(Pricing pricing);
const char* toString(Tier tier);

// The tier of one card, and of a configuration of such cards (tiers.cpp holds
// the rule and its source).
Tier cardTier(const GpuSpec& gpu);
Tier configurationTier(const GpuSpec& gpu, int gpuCount, int nodes);

struct RecommendOptions {
    Objective objective = Objective::Cheapest;
    Pricing pricing = Pricing::Cloud;
    int maxGpus = 64;  // largest configuration considered
    int top = 10;      // options listed (plus the best of any tier missing from them)
    // Training: the longest run wanted; a GPU type takes more GPUs (within
    // maxGpus) until its run finishes in time, or is excluded.
    std::optional<double> maxTrainDays;
    // GPU ids whose best option is listed too, wherever it ranks (a preset's
    // document picks, to compare with).
    std::vector<std::string> alsoList;
};

// One thing to keep in mind about an option; `fromCatalog` marks a caveat id
// of the GPU's catalog entry (translated by the page's caveat list).
struct WatchItem {
    std::string code;
    std::string message;
    bool fromCatalog = false;
};

struct RecommendOption {
    int rank = 0;  // 1-based position in the full ranking
    const GpuSpec* gpu = nullptr;
    int gpuCount = 1;
    int nodes = 1;
    Tier tier = Tier::Entry;
    Plan plan;
    WeightFormat weights = WeightFormat::Bf16;
    double totalGiB = 0;   // per GPU, as nvidia-smi shows it
    double neededGiB = 0;  // per GPU, without the unused part of a pre-allocated KV pool
    double usableGiB = 0;  // per GPU
    std::optional<double> decodeTokensPerS;
    std::optional<double> prefillTokensPerS;
    std::optional<double> trainTokensPerS;
    std::optional<double> trainHours;
    std::optional<double> usdPerHour;           // cloud price of the whole configuration
    std::optional<double> purchaseUsd;          // cards only, no servers
    std::optional<double> purchaseCny;          // the same in CNY (the catalog's CNY price where it has one)
    std::optional<double> usdPerMillionTokens;  // served tokens (inference) or trained tokens (training)
    std::optional<double> costUsd;              // the training run, when train_tokens is set
    // A training task with train_tokens: "cheapest" on cloud prices ranks
    // by the run's total cost, since a cheaper hour can make a dearer run.
    bool pricedByRun = false;
    // Serving (inference): tokens/s each of the batch's requests gets (the
    // serving engine's continuous-batching figure where it has one, else
    // the decode rate shared by the batch) and the price of a month of it.
    std::optional<double> userTokensPerS;
    std::optional<double> usdPerMonth;
    double powerW = 0;
    WorkloadFigures workloadFigures;  // a non-LLM model's own figures (real-time factor, images/s, ...)
    bool priced = true;  // the figure the objective ranks by is known (price, speed or power)
    std::vector<Warning> reasons;
    std::vector<WatchItem> watch;
};

struct ExcludedGpu {  // a GPU that offers no option, and why
    const GpuSpec* gpu = nullptr;
    std::string code;  // "does_not_fit", or the rejection code of checkScenario
    std::string message;
};

struct Recommendation {
    Objective objective = Objective::Cheapest;
    Pricing pricing = Pricing::Cloud;
    int candidates = 0;                    // configurations evaluated and ranked
    std::vector<RecommendOption> options;  // listed options, best first
    std::array<std::vector<int>, kTierCount> tierRanks;  // ranks of the listed options per tier
    std::vector<ExcludedGpu> excluded;
    std::vector<Warning> notes;
};

// Ranks configurations of `gpus` for the workload (its gpu field is ignored).
// Throws the InputError of checkScenario only when every GPU rejects the
// workload (the workload itself is then invalid).
Recommendation recommend(const Catalog& catalog, const Scenario& workload, const std::vector<GpuSpec>& gpus,
                         const RecommendOptions& options);

}  // namespace caliper
