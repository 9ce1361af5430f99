// Recommendation: size every GPU type for the workload, rank the
// configurations by the objective, list the best and group them by tier.
#include "caliper/answers/recommend.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "caliper/plan/estimate.hpp"
#include "caliper/error.hpp"
#include "caliper/units.hpp"
#include "answers/recommend_detail.hpp"
#include "caliper/workloads/workloads.hpp"

namespace caliper {

std::optional<double> speedOf(const RecommendOption& o) {
    // A non-LLM model's throughput: audio seconds, tokens or images per
    // second; a video model's clips per second.
    const WorkloadFigures& f = o.workloadFigures;
    if (f.asr) return f.asr->audioSecondsPerS;
    if (f.embedding) return f.embedding->tokensPerS;
    if (f.image) return f.image->imagesPerS;
    if (f.video) return f.video->secondsPerVideo > 0 ? std::optional<double>(1.0 / f.video->secondsPerVideo) : std::nullopt;
    return o.trainTokensPerS ? o.trainTokensPerS : o.decodeTokensPerS;
}

std::optional<double> priceOf(const RecommendOption& o, Pricing pricing) {
    if (pricing == Pricing::Purchase) return o.purchaseUsd;
    return o.pricedByRun ? o.costUsd : o.usdPerHour;
}

std::optional<double> powerOf(const RecommendOption& o) {
    // Without the card's TDP the plan's power is the host share alone: unknown.
    if (o.gpu->tdpW <= 0 || o.powerW <= 0) return std::nullopt;
    return o.powerW;
}

std::optional<double> objectiveValue(const RecommendOption& o, Objective objective, Pricing pricing) {
    const std::optional<double> speed = speedOf(o);
    switch (objective) {
        case Objective::Cheapest: return priceOf(o, pricing);
        case Objective::Fastest:
            if (!speed) return std::nullopt;
            return -*speed;
        case Objective::CostPerToken:
            if (pricing == Pricing::Cloud) return o.usdPerMillionTokens;
            // Bought cards have no hourly rate: rank by capital per unit of
            // throughput (USD per token/s), which orders like $/token over
            // any fixed lifetime.
            if (!o.purchaseUsd || !speed || *speed <= 0) return std::nullopt;
            return *o.purchaseUsd / *speed;
        case Objective::FewestGpus: return static_cast<double>(o.gpuCount);
        case Objective::LowestPower: return powerOf(o);
    }
    return std::nullopt;
}

namespace {


constexpr double kUnknown = std::numeric_limits<double>::infinity();
// Options need figures and warnings; rules of thumb and fit suggestions
// belong to a single estimate's page.
constexpr EstimateDetail kFiguresOnly{false, false};

// Training runs are priced per trained token when the cost engine gives only
// an hourly rate: $/M tokens = $/h / (3600 x tokens/s) x 1e6 (methodology §9).
std::optional<double> usdPerMillionTokens(const EstimateResult& r) {
    if (r.usdPerMillionTokens) return r.usdPerMillionTokens;
    if (!r.usdPerHour || !r.trainTokensPerS || *r.trainTokensPerS <= 0) return std::nullopt;
    return *r.usdPerHour / (3600.0 * *r.trainTokensPerS) * 1e6;
}

// The memory a job needs per GPU. vLLM and SGLang pre-allocate a KV pool
// that fills the GPU to gpu_memory_utilization; the memory model reports the
// pool's size (memory.kvPoolGib) and counts its unused part in the total,
// which is what nvidia-smi shows but not what the job needs.
double neededGiB(const EstimateResult& r) {
    const std::optional<double>& pool = r.memory.kvPoolGib;
    if (pool && *pool > r.memory.kvCacheGiB) return r.memory.totalGiB - (*pool - r.memory.kvCacheGiB);
    return r.memory.totalGiB;
}

RecommendOption makeOption(const Catalog& catalog, const Scenario& s, const EstimateResult& r) {
    RecommendOption o;
    o.gpu = nullptr;  // set by the caller (points into its GPU list)
    o.plan = r.plan;
    o.gpuCount = r.plan.gpuCount;
    o.nodes = r.plan.nodes;
    o.tier = configurationTier(s.gpu, o.gpuCount, o.nodes);
    o.weights = s.weights;
    o.totalGiB = r.memory.totalGiB;
    o.neededGiB = neededGiB(r);
    o.usableGiB = r.usableMemoryGiB;
    o.decodeTokensPerS = s.task == Task::Inference ? r.decodeTokensPerS : std::nullopt;
    o.prefillTokensPerS = s.task == Task::Inference ? r.prefillTokensPerS : std::nullopt;
    o.trainTokensPerS = s.task == Task::Inference ? std::nullopt : r.trainTokensPerS;
    o.trainHours = r.trainHours;
    o.usdPerHour = r.usdPerHour;
    o.purchaseUsd = r.purchaseUsd;
    o.purchaseCny = r.purchaseCny;
    o.usdPerMillionTokens = usdPerMillionTokens(r);
    o.costUsd = r.costUsd;
    o.pricedByRun = s.task != Task::Inference && s.trainTokens.has_value();
    if (s.task == Task::Inference && r.decodeTokensPerS) {
        o.userTokensPerS = r.serving ? r.serving->userTokensPerS : *r.decodeTokensPerS / static_cast<double>(std::max<std::int64_t>(1, s.batch));
        if (r.usdPerHour) o.usdPerMonth = *r.usdPerHour * kHoursPerMonth;
    }
    o.powerW = r.powerW.value_or(0);
    o.workloadFigures = r.workloadFigures;
    o.watch = watchItems(catalog, s, r);
    return o;
}

// Sort key: objective value, then a second figure that breaks ties the way a
// buyer would (cheaper among equally fast, faster among equally cheap).
std::array<double, 3> rankKey(const RecommendOption& o, const RecommendOptions& options) {
    auto orUnknown = [](const std::optional<double>& v) { return v ? *v : kUnknown; };
    const double primary = orUnknown(objectiveValue(o, options.objective, options.pricing));
    const double negSpeed = speedOf(o) ? -*speedOf(o) : kUnknown;
    const double price = orUnknown(priceOf(o, options.pricing));
    switch (options.objective) {
        case Objective::Fastest: return {primary, price, static_cast<double>(o.gpuCount)};
        case Objective::FewestGpus: return {primary, price, negSpeed};
        default: return {primary, negSpeed, static_cast<double>(o.gpuCount)};
    }
}

void rank(std::vector<RecommendOption>& all, const RecommendOptions& options) {
    for (auto& o : all) o.priced = objectiveValue(o, options.objective, options.pricing).has_value();
    std::stable_sort(all.begin(), all.end(), [&](const RecommendOption& a, const RecommendOption& b) {
        const auto ka = rankKey(a, options), kb = rankKey(b, options);
        if (ka != kb) return ka < kb;
        return a.gpu->id < b.gpu->id;  // deterministic order between equals
    });
    for (std::size_t i = 0; i < all.size(); ++i) all[i].rank = static_cast<int>(i) + 1;
}

// The top N, plus the best option of each tier that the top N misses, so a
// page grouping by tier always shows every tier that has an option, plus
// the best option of each GPU in alsoList.
std::vector<RecommendOption> listed(const std::vector<RecommendOption>& ranked, int top,
                                    const std::vector<std::string>& alsoList) {
    std::vector<RecommendOption> out;
    std::array<bool, kTierCount> shown{};
    std::vector<std::string> also = alsoList;
    for (const auto& o : ranked) {
        bool& tierShown = shown[static_cast<int>(o.tier)];
        const auto wanted = std::find(also.begin(), also.end(), o.gpu->id);
        const bool isWanted = wanted != also.end();
        if (isWanted) also.erase(wanted);  // its best option only
        if (o.rank > top && tierShown && !isWanted) continue;
        out.push_back(o);
        tierShown = true;
    }
    return out;
}

struct Evaluation {
    std::vector<RecommendOption> options;
    std::vector<ExcludedGpu> excluded;
    std::optional<Error> firstRejection;
};

constexpr double kHoursPerDay = 24;
// Re-estimates with more GPUs: throughput per GPU falls as a cluster grows
// (gradient all-reduce, pipeline bubbles), so one scaling rarely lands.
constexpr int kTrainDaysSteps = 6;

// A training run that ends within `days`: more GPUs of the type, in whole
// nodes past one node, until the estimate finishes in time or reaches
// maxGpus (then the last estimate, still too slow, is returned).
EstimateResult withinTrainDays(Scenario& s, const EstimateResult& fewest, double days, int maxGpus) {
    const double limitHours = days * kHoursPerDay;
    const int perNode = std::max(1, s.gpu.gpusPerNode);
    EstimateResult best = fewest;
    const bool wasAuto = s.gpuCountAuto;
    for (int step = 0; step < kTrainDaysSteps; ++step) {
        if (!best.trainHours || *best.trainHours <= limitHours || best.plan.gpuCount >= maxGpus) break;
        const double scaled = std::ceil(best.plan.gpuCount * *best.trainHours / limitHours);
        int next = static_cast<int>(std::min<double>(std::max<double>(scaled, best.plan.gpuCount + 1), maxGpus));
        if (next > perNode) next = std::min(maxGpus, (next + perNode - 1) / perNode * perNode);
        s.gpuCountAuto = false;
        s.gpuCount = next;
        EstimateResult wider = estimate(s, kFiguresOnly);
        if (!wider.fits) break;
        best = std::move(wider);
    }
    s.gpuCountAuto = wasAuto && best.plan.gpuCount == fewest.plan.gpuCount;  // the scenario of the plan returned
    s.gpuCount = best.plan.gpuCount;
    return best;
}

void evaluateGpu(const Catalog& catalog, const Scenario& workload, const GpuSpec& gpu,
                 const RecommendOptions& options, Evaluation& out) {
    Scenario s = workload;
    s.gpu = gpu;
    s.gpuCountAuto = true;
    s.maxGpus = options.maxGpus;  // the planner chooses its count within the limit
    adaptToGpu(s);
    if (std::optional<Error> rejected = scenarioError(s)) {
        out.excluded.push_back({&gpu, rejected->code, rejected->message});
        if (!out.firstRejection) out.firstRejection = std::move(*rejected);
        return;
    }
    const EstimateResult fewest = estimate(s, kFiguresOnly);
    if (!fewest.gpusNeeded || *fewest.gpusNeeded > options.maxGpus || !fewest.fits) {
        out.excluded.push_back({&gpu, "does_not_fit",
                                "needs more than " + std::to_string(options.maxGpus) + " GPUs of this type"});
        return;
    }
    const EstimateResult r = options.maxTrainDays ? withinTrainDays(s, fewest, *options.maxTrainDays, options.maxGpus)
                                                  : fewest;
    if (options.maxTrainDays && r.trainHours && *r.trainHours > *options.maxTrainDays * kHoursPerDay) {
        const double days = *options.maxTrainDays;
        out.excluded.push_back({&gpu, "too_slow",
                                "does not finish within " + groupedNumber(days, days == std::floor(days) ? 0 : 1) +
                                    " days on " + std::to_string(options.maxGpus) + " GPUs of this type"});
        return;
    }
    out.options.push_back(makeOption(catalog, s, r));
    out.options.back().gpu = &gpu;
    // Speed buys more GPUs: twice the count splits the work further
    // (tensor parallel for serving, data parallel for training).
    const int doubled = 2 * r.plan.gpuCount;
    if (options.objective != Objective::Fastest || doubled > options.maxGpus) return;
    s.gpuCountAuto = false;
    s.gpuCount = doubled;
    const EstimateResult wider = estimate(s, kFiguresOnly);
    const auto baseSpeed = speedOf(out.options.back());
    if (!wider.fits) return;
    RecommendOption more = makeOption(catalog, s, wider);
    more.gpu = &gpu;
    if (speedOf(more) && baseSpeed && *speedOf(more) > *baseSpeed) out.options.push_back(std::move(more));
}

void addNotes(Recommendation& rec, const RecommendOptions& options, std::size_t gpuCount) {
    if (gpuCount == 0) rec.notes.push_back({"no_gpus", "no GPU matches the request's GPU list and filter"});
    if (gpuCount > 0 && rec.options.empty()) {
        rec.notes.push_back({"nothing_fits", "no GPU of the selection fits this workload with at most " +
                                                 std::to_string(options.maxGpus) + " GPUs"});
    }
    if (options.pricing == Pricing::Purchase) {
        rec.notes.push_back({"purchase_cards_only",
                             "purchase prices are for the GPUs alone: servers, networking, power and cooling come on top"});
    }
    if (options.pricing == Pricing::Purchase && options.objective == Objective::CostPerToken) {
        rec.notes.push_back({"purchase_cost_per_token",
                             "with purchase pricing, cost per token ranks by card price per token/s of throughput"});
    }
    const bool anyUnpriced = std::any_of(rec.options.begin(), rec.options.end(),
                                         [](const RecommendOption& o) { return !o.priced; });
    if (anyUnpriced) {
        rec.notes.push_back({"unpriced_last", std::string("options without a catalog ") +
                                                  (options.objective == Objective::LowestPower ? "power figure"
                                                                                               : "price") +
                                                  " are listed after every option that has one"});
    }
}

}  // namespace

Recommendation recommend(const Catalog& catalog, const Scenario& workload, const std::vector<GpuSpec>& gpus,
                         const RecommendOptions& options) {
    Evaluation evaluation;
    for (const GpuSpec& gpu : gpus) evaluateGpu(catalog, workload, gpu, options, evaluation);
    const bool allRejected = evaluation.options.empty() && evaluation.firstRejection &&
                             evaluation.excluded.size() == gpus.size() &&
                             std::all_of(evaluation.excluded.begin(), evaluation.excluded.end(),
                                         [](const ExcludedGpu& e) { return e.code != "does_not_fit"; });
    if (allRejected) throw InputError(*evaluation.firstRejection);

    Recommendation rec;
    rec.objective = options.objective;
    rec.pricing = options.pricing;
    rec.candidates = static_cast<int>(evaluation.options.size());
    rank(evaluation.options, options);
    addReasons(evaluation.options, options);
    rec.options = listed(evaluation.options, std::max(1, options.top), options.alsoList);
    for (const auto& o : rec.options) rec.tierRanks[static_cast<int>(o.tier)].push_back(o.rank);
    rec.excluded = std::move(evaluation.excluded);
    addNotes(rec, options, gpus.size());
    return rec;
}

}  // namespace caliper
