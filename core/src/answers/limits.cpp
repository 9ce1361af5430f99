// Inverse searches over the memory model. Memory grows monotonically with
// context and batch, so each limit is a bisection over integers; every probe
// is one plan evaluation without explanation.
#include "caliper/answers/limits.hpp"

#include "caliper/model/formats.hpp"

#include <algorithm>

#include "caliper/plan/compat.hpp"
#include "caliper/plan/estimate.hpp"
#include "memory/sizing.hpp"
#include "plan/planner.hpp"

namespace caliper {

namespace {

// The GPU count the limits apply to: the request's, or the fewest that fit
// the request as given when it asked for "auto".
int gpuCountFor(const Scenario& s) {
    if (!s.gpuCountAuto) return std::max(1, s.gpuCount);
    // The planner holds such an engine to one device; a limit judged on
    // more would suggest changes that, applied, still do not fit.
    if (runsOnOneDevice(s)) return 1;
    return fewestGpus(s).value_or(1);
}

struct Probe {
    bool fits = false;
    MemoryBreakdown memory;
};

Probe probe(const Scenario& s, int count) {
    Scenario at = s;
    at.gpuCountAuto = false;
    at.gpuCount = count;
    if (s.parallel.offload == Offload::Layers || s.parallel.offload == Offload::MoeExperts) {
        // llama.cpp's -ngl / --n-cpu-moe: the planner chooses how many layers
        // stay on the GPUs, as the estimate does; a plain plan keeps them all
        // there and would call nothing fitting.
        const EstimateResult r = estimate(at, EstimateDetail{false, false, false, false, false});
        return {r.fits, r.memory};
    }
    // The estimate's own verdict at this count: the planner turns the knobs
    // the request leaves open (checkpointing "auto", the strategy, the
    // training micro-batch, the loss kernel) and weighs the host RAM a
    // stated machine has, so a limit never disagrees with the estimate at
    // that value.
    // A batch or context is within the limit where the engine holds every
    // request at once: vLLM and SGLang start with more and queue the rest
    // (memory.cpp admitByBlocks), which a limit does not count.
    const planner::Choice choice = planner::choose(at, count);
    if (!choice.fits || s.task != Task::Inference) return {choice.fits, choice.memory};
    const Scenario resolved = planner::resolved(at, choice);
    return {!sizing::kvQueued(sizing::prepare(resolved), choice.plan), choice.memory};
}

// Largest value in [lo, hi] for which `apply` then probe fits; lo must fit.
template <class Apply>
std::int64_t bisect(const Scenario& base, int count, std::int64_t lo, std::int64_t hi, Apply apply) {
    Scenario s = base;
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo + 1) / 2;
        apply(s, mid);
        if (probe(s, count).fits) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

bool training(const Scenario& s) { return s.task != Task::Inference; }

}  // namespace

ContextLimit longestContext(const Scenario& scenario) {
    const int count = gpuCountFor(scenario);
    const std::int64_t output = training(scenario) ? 0 : scenario.outputTokens;
    const std::int64_t modelMax = scenario.model.maxContext > 0 ? scenario.model.maxContext : std::int64_t(1) << 24;
    auto apply = [&](Scenario& s, std::int64_t tokens) {
        if (training(s)) s.seqLen = tokens;
        else s.promptTokens = std::max<std::int64_t>(0, tokens - output);
    };
    ContextLimit out;
    Scenario s = scenario;
    const std::int64_t lowest = std::max<std::int64_t>(1, output);
    apply(s, lowest);
    if (!probe(s, count).fits) return out;
    const std::int64_t hi = std::max(lowest, modelMax);
    out.fits = true;
    out.tokens = bisect(scenario, count, lowest, hi, apply);
    out.cappedByModel = out.tokens >= modelMax;
    apply(s, out.tokens);
    out.memory = probe(s, count).memory;
    return out;
}

BatchLimit largestBatch(const Scenario& scenario) {
    const int count = gpuCountFor(scenario);
    // A training batch probed is a stated micro-batch, not the planner's search.
    auto apply = [](Scenario& s, std::int64_t batch) {
        s.batch = batch;
        s.batchAuto = false;
    };
    BatchLimit out;
    Scenario s = scenario;
    apply(s, 1);
    if (!probe(s, count).fits) return out;
    out.fits = true;
    out.batch = bisect(scenario, count, 1, kMaxSearchBatch, apply);
    out.capped = out.batch >= kMaxSearchBatch;
    apply(s, out.batch);
    out.memory = probe(s, count).memory;
    return out;
}

std::vector<WeightFormat> weightFormatLadder(const Scenario& s) {
    using F = WeightFormat;
    const bool llama = runtimeOf(s.engine) == Engine::LlamaCpp;
    const bool fp8Capable = s.gpu.supportsFp8 && !llama;
    const WeightFormat native = s.gpu.supportsBf16 ? F::Bf16 : F::Fp16;
    std::vector<WeightFormat> ladder{native};
    if (llama) {
        ladder.insert(ladder.end(), {F::Q8_0, F::Q6_K, F::Q5_K_M, F::Q4_K_M, F::Q3_K_M, F::Q2_K});
    } else {
        if (fp8Capable) ladder.push_back(F::Fp8);
        ladder.push_back(F::Int8);
        ladder.push_back(F::AwqInt4);
        ladder.push_back(F::GptqInt4);
        if (runtimeOf(s.engine) == Engine::Transformers) ladder.push_back(F::Nf4);
    }
    // The ladder starts at the checkpoint's own format (a quantized release
    // is never "quantized" to its own size again) and goes down only to
    // formats at least 10% smaller.
    const WeightFormat start = s.task == Task::Inference ? defaultWeights(s).format : native;
    if (start == native) return ladder;
    const double startBits = weightFormatInfo(start).linearBits;
    std::vector<WeightFormat> out{start};
    for (WeightFormat f : ladder) {
        if (f != start && weightFormatInfo(f).linearBits < 0.9 * startBits) out.push_back(f);
    }
    return out;
}

FormatChoice bestWeightFormat(const Scenario& scenario) {
    FormatChoice out;
    const int count = gpuCountFor(scenario);
    out.tried = weightFormatLadder(scenario);
    for (WeightFormat f : out.tried) {
        Scenario s = scenario;
        s.weights = f;
        const Probe p = probe(s, count);
        if (p.fits) {
            out.found = true;
            out.format = f;
            out.memory = p.memory;
            return out;
        }
    }
    return out;
}

}  // namespace caliper
