// Why each recommended option is there (computed from the ranked options) and
// what to watch on it (the estimate's warnings, the recommendation's own
// checks and the GPU's catalog caveats).
#include <algorithm>
#include <cmath>

#include "answers/recommend_detail.hpp"

namespace caliper {

namespace {

// Two figures are the same lead when they agree to one part in a million
// (they come from the same formulas, so only rounding separates them).
bool sameValue(double a, double b) { return std::fabs(a - b) <= 1e-6 * std::max(std::fabs(a), std::fabs(b)); }

template <class Get>
std::optional<double> best(const std::vector<RecommendOption>& all, Get get, bool lowest) {
    std::optional<double> out;
    for (const auto& o : all) {
        const std::optional<double> v = get(o);
        if (v && (!out || (lowest ? *v < *out : *v > *out))) out = v;
    }
    return out;
}

template <class Get>
bool leads(const RecommendOption& o, const std::vector<RecommendOption>& all, Get get, bool lowest) {
    const std::optional<double> mine = get(o), top = best(all, get, lowest);
    return mine && top && sameValue(*mine, *top);
}

std::string money(double usd) { return "$" + groupedNumber(usd, usd < 10 ? 2 : 0); }

// Headroom is measured on what the job needs: a serving engine that
// pre-allocates its KV pool fills the GPU by design, so the unused part of
// the pool counts as room, not as use.
Warning fitReason(const RecommendOption& o) {
    const double headroom = o.usableGiB > 0 ? 100.0 * (o.usableGiB - o.neededGiB) / o.usableGiB : 0;
    const std::string where = o.gpuCount == 1 ? "one " + o.gpu->name : std::to_string(o.gpuCount) + "x " + o.gpu->name;
    const bool pooled = o.neededGiB < o.totalGiB;
    return {"fits", "fits on " + where + " with " + groupedNumber(std::max(0.0, headroom), 0) + "% headroom (" +
                        groupedNumber(o.neededGiB, 1) + " of " + groupedNumber(o.usableGiB, 1) + " GiB per GPU" +
                        (pooled ? "; the engine reserves the rest for its KV cache)" : ")")};
}

void addLeadReasons(RecommendOption& o, const std::vector<RecommendOption>& all, Pricing pricing) {
    const bool training = o.trainTokensPerS.has_value();
    auto price = [&](const RecommendOption& x) { return priceOf(x, pricing); };
    if (leads(o, all, price, true)) {
        o.reasons.push_back(pricing == Pricing::Purchase
                                ? Warning{"cheapest", "cheapest to buy: " + money(*o.purchaseUsd) + " for the GPUs"}
                            : o.pricedByRun ? Warning{"cheapest", "cheapest run: " + money(*o.costUsd) + " in total"}
                                            : Warning{"cheapest", "cheapest to rent: " + money(*o.usdPerHour) + "/h"});
    }
    if (leads(o, all, speedOf, false)) {
        const WorkloadFigures& f = o.workloadFigures;
        const std::string what =
            f.asr     ? "fastest transcription: " + groupedNumber(*speedOf(o), 0) + " audio seconds/s (real-time factor " +
                            groupedNumber(f.asr->realtimeFactor, 3) + " per stream)"
            : f.image ? "fastest generation: " + groupedNumber(*speedOf(o), 2) + " images/s"
            : f.video ? "fastest generation: " + groupedNumber(f.video->secondsPerVideo, 0) + " s per video"
            : f.embedding ? "fastest embedding: " + groupedNumber(*speedOf(o), 0) + " tok/s"
                          : std::string(training ? "fastest training: " : "fastest decode: ") +
                                groupedNumber(*speedOf(o), 0) + " tok/s";
        o.reasons.push_back({"fastest", what});
    }
    auto perToken = [](const RecommendOption& x) { return x.usdPerMillionTokens; };
    if (leads(o, all, perToken, true)) {
        o.reasons.push_back({"lowest_cost_per_token", "lowest cost per token: " + money(*o.usdPerMillionTokens) +
                                                          (training ? " per million trained tokens"
                                                                    : " per million generated tokens")});
    }
    if (leads(o, all, powerOf, true)) {
        o.reasons.push_back({"lowest_power", "lowest power: " + groupedNumber(o.powerW, 0) + " W"});
    }
}

void addShapeReasons(RecommendOption& o, const std::vector<RecommendOption>& all) {
    auto count = [](const RecommendOption& x) { return std::optional<double>(x.gpuCount); };
    if (o.gpuCount == 1) {
        o.reasons.push_back({"single_gpu", "runs on one GPU: no interconnect to buy or tune"});
    } else if (leads(o, all, count, true)) {
        o.reasons.push_back({"fewest_gpus", "fewest GPUs that fit: " + std::to_string(o.gpuCount)});
    }
    const GpuSpec& gpu = *o.gpu;
    if (o.gpuCount > 1 && o.nodes == 1 && gpu.nvlinkGBps > 0 && o.gpuCount <= gpu.nvlinkMaxGpus) {
        // The GPU's own link by its catalog name: AMD's is Infinity Fabric, Huawei's HCCS.
        const std::string link = gpu.nvlinkVersion.empty() ? "NVLink" : gpu.nvlinkVersion;
        o.reasons.push_back({"nvlink", link + " joins all " + std::to_string(o.gpuCount) + " GPUs (" +
                                           groupedNumber(gpu.nvlinkGBps, 0) + " GB/s per GPU)"});
    }
    // The doubled configuration of a GPU type: how much the extra GPUs buy.
    for (const auto& base : all) {
        if (base.gpu != o.gpu || 2 * base.gpuCount != o.gpuCount || !speedOf(base) || !speedOf(o)) continue;
        o.reasons.push_back({"scaled_out", "twice the fewest GPUs (" + std::to_string(base.gpuCount) + " to " +
                                               std::to_string(o.gpuCount) + "): " +
                                               groupedNumber(*speedOf(o) / *speedOf(base), 2) + "x the speed"});
    }
}

void addUnique(std::vector<WatchItem>& out, WatchItem item) {
    auto same = [&](const WatchItem& w) { return w.code == item.code; };
    if (std::none_of(out.begin(), out.end(), same)) out.push_back(std::move(item));
}

}  // namespace

void addReasons(std::vector<RecommendOption>& ranked, const RecommendOptions& options) {
    for (auto& o : ranked) {
        o.reasons.push_back(fitReason(o));
        addLeadReasons(o, ranked, options.pricing);
        addShapeReasons(o, ranked);
        if (o.priced) continue;
        if (options.objective == Objective::LowestPower) {
            o.watch.push_back({"no_power", "the catalog has no power figure for " + o.gpu->name +
                                               ": ranked after every option that has one"});
        } else if (options.objective == Objective::Fastest) {
            o.watch.push_back({"no_speed", "no speed estimate for " + o.gpu->name + ": ranked last"});
        } else {
            o.watch.push_back({"no_price", std::string("the catalog has no ") +
                                               (options.pricing == Pricing::Cloud ? "cloud" : "purchase") +
                                               " price for " + o.gpu->name + ": ranked after every priced option"});
        }
    }
}

std::vector<WatchItem> watchItems(const Catalog& catalog, const Scenario& s, const EstimateResult& r) {
    std::vector<WatchItem> out;
    for (const Warning& w : r.warnings) {
        if (w.code != "does_not_fit") addUnique(out, {w.code, w.message, false});
    }
    const GpuSpec& gpu = s.gpu;
    const bool training = s.task != Task::Inference;
    // Pre-training at scale runs FP8 on Hopper-class parts (Transformer
    // Engine; the source articles pick H100/H800 for it); without FP8 units
    // the estimate is in bf16/fp16.
    if (s.task == Task::Pretrain && !gpu.supportsFp8) {
        addUnique(out, {"no_fp8", gpu.name + " has no FP8 tensor cores (Ada, Hopper and newer do): pre-training runs in "
                                             "16-bit, without Transformer Engine FP8",
                        false});
    }
    if (training && gpu.vendor != "nvidia") {
        addUnique(out, {"software_ecosystem", gpu.name + " is not a CUDA GPU: check that the training stack "
                                                         "(PyTorch build, DeepSpeed/FSDP, FlashAttention, bitsandbytes) "
                                                         "supports it",
                        false});
    }
    for (const std::string& id : gpu.caveats) {
        // The missing-FP8 caveat matters only to a plan that would use FP8.
        const bool usesFp8 = s.weights == WeightFormat::Fp8 || s.weights == WeightFormat::Fp8Block || s.kvCache == KvFormat::Fp8 || s.task == Task::Pretrain;
        if (id == "no-fp8" && !usesFp8) continue;
        const Caveat* caveat = findCaveat(catalog, id);
        addUnique(out, {id, caveat ? caveat->en : id, true});
    }
    return out;
}

}  // namespace caliper
