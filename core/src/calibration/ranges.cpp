#include "calibration/ranges.hpp"

#include <algorithm>
#include <cmath>

#include "calibration/calibration.hpp"

namespace caliper {

namespace {

// Bands hold ln(predicted / measured): the measured value lies in
// [v / e^p90, v / e^p10] for 80% of left-out rows.
bool measuredRange(const std::string& kind, const Scenario& s, double value, double& low, double& high) {
    double lowLog = 0, highLog = 0;
    if (!calibrationBand(kind, s.engine, s.gpu, lowLog, highLog, bandGroup(kind, s))) return false;
    // A group whose left-out errors all have one sign (inference memory:
    // the caching allocator's reserve above the live tensors, not refitted)
    // has a band beside its estimate; it is widened to take the estimate in,
    // since the fit verdict and the page read the band as about that figure.
    low = std::min(value, value * std::exp(-highLog));
    high = std::max(value, value * std::exp(-lowLog));
    return true;
}

void add(EstimateResult& r, const char* key, const std::string& kind, const Scenario& s,
         const std::optional<double>& value, bool inverse = false) {
    if (!value || !(*value > 0)) return;
    double low = 0, high = 0;
    if (!measuredRange(kind, s, inverse ? 1.0 / *value : *value, low, high)) return;
    if (inverse) {
        const double l = 1.0 / high, h = 1.0 / low;
        low = l;
        high = h;
    }
    r.ranges.push_back({key, low, high});
}

// Memory bands come from measured fine-tuning rows for every training task
// (pre-training shares their terms: weights, gradients, optimizer states,
// activations); the rows of pre-training memory are estimates, never fitted.
const char* memoryKind(const Scenario& s) { return s.task == Task::Inference ? "inference_memory" : "finetune_memory"; }

}  // namespace

void applyCalibrationBands(const Scenario& scenario, EstimateResult& r) {
    r.ranges.clear();
    add(r, "decode_tokens_per_s", "decode", scenario, r.decodeTokensPerS);
    add(r, "prefill_tokens_per_s", "prefill", scenario, r.prefillTokensPerS);
    // The first token takes prompt / prefill rate: the prefill band, inverted.
    add(r, "time_to_first_token_s", "prefill", scenario, r.timeToFirstTokenS, true);
    add(r, "train_tokens_per_s", "training_speed", scenario, r.trainTokensPerS);
    add(r, "train_tflops_per_gpu", "training_speed", scenario, r.trainTflopsPerGpu);
    if (r.serving) {
        // aiconfigurator's measured TTFT / TPOT rows (serving_ttft_ms, serving_tpot_ms).
        add(r, "serving.ttft_s", "serving_ttft", scenario, std::optional<double>(r.serving->ttftS));
        add(r, "serving.tpot_ms", "serving_tpot", scenario, std::optional<double>(r.serving->tpotMs));
    }
    const std::size_t before = r.ranges.size();
    // A serving engine that pre-allocates a KV pool fills the GPU to its
    // utilization fraction by design: its total is a setting, not an
    // estimate, and whether it fits is whether the pool has room.
    if (!r.memory.kvPoolGib) {
        add(r, "memory.total_gib", memoryKind(scenario), scenario, std::optional<double>(r.memory.totalGiB));
    }
    const bool memoryBand = r.ranges.size() > before;
    if (!r.fits) r.fitVerdict = "no";
    else if (memoryBand && r.ranges.back().high > r.usableMemoryGiB) r.fitVerdict = "tight";
    else r.fitVerdict = "fits";
}

std::optional<double> memoryBandTopFactor(const Scenario& scenario) {
    double lowLog = 0, highLog = 0;
    const std::string kind = memoryKind(scenario);
    if (!calibrationBand(kind, scenario.engine, scenario.gpu, lowLog, highLog, bandGroup(kind, scenario))) return std::nullopt;
    return std::exp(-lowLog);  // measuredRange's high end, per unit of the estimate
}

bool tightFit(double totalGiB, bool kvPool, double usableGiB, const std::optional<double>& topFactor) {
    return !kvPool && topFactor && totalGiB > 0 && totalGiB * *topFactor > usableGiB;
}

std::vector<FigureRange> servingRanges(const Scenario& workload, const GpuSpec& gpu, const ServingFigures& f) {
    std::vector<FigureRange> out;
    double lowLog = 0, highLog = 0;
    // As measuredRange: the measured value lies in [v / e^p90, v / e^p10].
    auto band = [&](const char* kind) {
        return calibrationBand(kind, workload.engine, gpu, lowLog, highLog, bandGroup(kind, workload));
    };
    if (f.ttftS > 0 && band("serving_ttft")) out.push_back({"serving.ttft_s", f.ttftS * std::exp(-highLog), f.ttftS * std::exp(-lowLog)});
    if (!(f.tpotMs > 0) || !band("serving_tpot")) return out;
    const double fast = std::exp(-highLog), slow = std::exp(-lowLog);  // TPOT low and high per unit
    out.push_back({"serving.tpot_ms", f.tpotMs * fast, f.tpotMs * slow});
    for (const auto& [key, value] : {std::pair{"serving.user_tokens_per_s", f.userTokensPerS},
                                     {"serving.output_tokens_per_s", f.outputTokensPerS},
                                     {"serving.output_tokens_per_s_per_gpu", f.outputTokensPerSPerGpu}}) {
        if (value > 0) out.push_back({key, value / slow, value / fast});
    }
    return out;
}

std::optional<Slo> sloAtSlowEnd(const Scenario& workload, const GpuSpec& gpu, const Slo& slo) {
    double lowLog = 0, highLog = 0;
    auto band = [&](const char* kind) {
        return calibrationBand(kind, workload.engine, gpu, lowLog, highLog, bandGroup(kind, workload));
    };
    Slo out = slo;
    bool any = false;
    // As servingRanges: the slow end is the estimate x e^-lowLog.
    if (slo.ttftS && band("serving_ttft")) { out.ttftS = *slo.ttftS / std::exp(-lowLog); any = true; }
    if ((slo.tpotMs || slo.minUserTokensPerS) && band("serving_tpot")) {
        const double slow = std::exp(-lowLog);
        if (slo.tpotMs) out.tpotMs = *slo.tpotMs / slow;
        if (slo.minUserTokensPerS) out.minUserTokensPerS = *slo.minUserTokensPerS * slow;
        any = true;
    }
    if (!any) return std::nullopt;
    return out;
}

}  // namespace caliper
