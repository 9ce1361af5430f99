// The fewest GPUs of the scenario's type that fit. Counts probed: 1, 2, 3,
// 4, 6, 8, then multiples of 8 (whole 8-GPU servers) up to kMaxGpus, and the
// counts below the first that fits (for plans whose memory is not monotone
// in the count, every one from the lower bound); a count the strategy cannot use is
// skipped. The search starts at a lower bound (the
// weights spread evenly); ZeRO and FSDP memory falls monotonically with the
// count, so it gallops to a count that fits and a bisection finishes, while
// tensor/pipeline plans (uneven stages) are scanned count by count.
// Replicated strategies (single, DDP) fit on one GPU or on none.
#include <algorithm>
#include <bitset>
#include <cmath>
#include <iterator>
#include <utility>

#include "caliper/plan/estimate.hpp"
#include "caliper/memory/memory.hpp"
#include "caliper/plan/plan.hpp"
#include "caliper/units.hpp"
#include "memory/overhead.hpp"
#include "plan/count_bounds.hpp"
#include "plan/prepared.hpp"
#include "memory/sizing.hpp"

namespace caliper {

namespace {

constexpr int kSmallCounts[] = {1, 2, 3, 4, 6, 8};
constexpr int kServerGpus = 8;

// The probed counts, built at compile time: the search reads them for
// every matrix cell.
struct Counts {
    static constexpr std::size_t kSize =
        std::size(kSmallCounts) + std::size_t((kMaxGpus - 2 * kServerGpus) / kServerGpus + 1);
    int list[kSize] = {};
    constexpr std::size_t size() const { return kSize; }
    constexpr int operator[](std::size_t i) const { return list[i]; }
    constexpr const int* begin() const { return list; }
    constexpr const int* end() const { return list + kSize; }
};

constexpr Counts kCandidateCounts = [] {
    Counts c;
    std::size_t i = 0;
    for (int n : kSmallCounts) c.list[i++] = n;
    for (int n = 2 * kServerGpus; n <= kMaxGpus; n += kServerGpus) c.list[i++] = n;
    return c;
}();

constexpr const Counts& candidateCounts() { return kCandidateCounts; }

// Strategies whose per-GPU memory does not fall with more GPUs.
bool replicated(const Scenario& s, Strategy strategy) {
    if (strategy == Strategy::Single) return true;
    if (strategy == Strategy::Ddp) return runtimeOf(s.engine) != Engine::Megatron;  // Megatron's distributed optimizer shards
    const bool replicaStates = strategy == Strategy::Zero1 || strategy == Strategy::Zero2;
    return s.task == Task::Inference && replicaStates;
}

// The first candidate count above one at or past the lower bound.
std::size_t firstPossibleIndex(double lowest) {
    const Counts& counts = candidateCounts();
    // From the index of 2 GPUs; the counts ascend (bisected: a bound past a
    // server skips whole servers).
    const int* at = std::lower_bound(counts.begin() + 1, counts.end(), lowest,
                                     [](int count, double bound) { return count < bound; });
    return std::size_t(at - counts.begin());
}

// Training memory no count removes: a pipeline's first stage holds p
// micro-batches of ceil(L/p) layers (at least L layers' worth) and only
// tensor parallelism divides them; data parallelism never does.
bool activationsAloneOverflow(const sizing::Inputs& in, Strategy strategy) {
    if (!in.training || strategy == Strategy::LayerSplit) return false;
    // Megatron's layout search names its plans by the degrees it found
    // (data parallel or a pipeline where tp came out 1): its bound is the
    // tensor layout's.
    if (runtimeOf(in.scenario->engine) == Engine::Megatron && in.scenario->parallel.strategy == Strategy::Auto &&
        (strategy == Strategy::Ddp || strategy == Strategy::Pipeline)) {
        strategy = Strategy::Tensor;
    }
    sizing::Layout layout;
    layout.strategy = strategy;
    layout.tp = sizing::maxTensorDegree(in);
    // Context parallelism divides every layer's activations too.
    layout.cp = sizing::maxContextDegree(in, kMaxGpus);
    sizing::Stage stage;
    stage.layers = in.shape().stackLayers;
    stage.last = false;
    const double floor = sizing::trainingActivationBytes(in, layout, stage, sizing::Explain());
    if (bytesToGiB(floor) + sizing::kCudaContextGiB > in.usableGiB) return true;
    if (strategy != Strategy::Tensor) return false;
    // Megatron's best case: the widest tensor degree, one layer per stage,
    // optimizer states spread over the most data-parallel ranks. Every real
    // plan holds at least this on its fullest GPU.
    Plan best;
    best.strategy = Strategy::Tensor;
    best.tp = layout.tp;
    best.cp = layout.cp;
    best.pp = in.shape().stackLayers;
    best.dp = std::max(1, kMaxGpus / best.cp);  // optimizer states shard over dp x cp
    best.gpuCount = best.tp * best.cp * best.pp * best.dp;
    return !sizing::planFits(in, best);
}

// Per-GPU memory of ZeRO and FSDP falls with every added GPU; pipeline
// splits round layers per stage up, so theirs can rise between counts.
bool monotone(Strategy strategy) {
    return strategy == Strategy::Zero1 || strategy == Strategy::Zero2 || strategy == Strategy::Zero3 ||
           strategy == Strategy::Fsdp;
}

// The prepared scenario and the last count that fit, with its plan and
// memory: every search below returns the last fitting count it probed, so
// the caller gets the answer's figures without evaluating them again.
// Counts that did not fit are remembered: the scan after a gallop and the
// gap check revisit counts the gallop already tried.
struct Search {
    const sizing::Inputs& in;
    CountFit& found;
    std::bitset<kMaxGpus + 1>& failed;
    std::optional<CountFit>& one;
};

// Whether the plan for `count` uses all its GPUs and fits. Plans are built
// per probe: a Megatron plan itself searches pipeline depths.
bool fitsCount(Search& search, int count) {
    if (search.failed[std::size_t(count)]) return false;
    const Plan plan = sizing::planFor(search.in, count);
    if (sizing::countUsable(search.in, plan)) {
        if (count == 1) {
            // One GPU is one stage, so evaluateIfFits' breakdown is the full
            // one: kept where it does not fit, the planner shows it when
            // nothing fits.
            // (Field by field: a CountFit made whole first was then copied over.)
            search.found.count = 1;
            search.found.plan = plan;
            search.found.memory = sizing::evaluate(search.in, plan, sizing::Explain(), nullptr);
            if (sizing::fits(search.in, search.found.memory)) return true;
            search.one = search.found;
        } else if (std::optional<MemoryBreakdown> memory = sizing::evaluateIfFits(search.in, plan)) {
            search.found.count = count;
            search.found.plan = plan;
            search.found.memory = std::move(*memory);
            return true;
        }
    }
    search.failed[std::size_t(count)] = true;
    return false;
}

bool fitsAt(Search& search, std::size_t i) { return fitsCount(search, candidateCounts()[i]); }

// The search probes whole servers past 8 GPUs; a count between the last
// candidate that failed and the first that fits may fit too (5, 7, or a
// partial server), and gpus_needed is the fewest that fit, so check those
// that the weights' lower bound allows.
// Monotone memory: every count below a candidate that failed fails too, so
// only the counts since the last candidate are left. Otherwise (pipeline
// layouts: Megatron's tp x pp x dp, whose stages round layers up and whose
// expert-parallel degree must divide a stage's GPUs) a count between two
// candidates that failed can fit: GLM-5's pre-training on MI250X fits 84
// and 92 GPUs (tp 1 x pp 21 or 23 x dp 4) but not 88 or 96, where the
// layouts those counts allow hold more per GPU. Then every count from the
// lower bound is probed; the counts the scan already tried are skipped.
int fewestInGap(Search& search, int fitting, double lowest, bool monotoneMemory) {
    const Counts& counts = candidateCounts();
    const auto at = std::lower_bound(counts.begin(), counts.end(), fitting);
    const int previous = monotoneMemory ? (at == counts.begin() ? 0 : *(at - 1)) : 1;
    // From the first count at or above the bound (the counts below it are
    // not stepped through one by one: hundreds where the bound is high).
    int first = previous + 1;
    if (lowest > first) first = lowest < fitting ? int(std::ceil(lowest)) : fitting;
    for (int n = first; n < fitting; ++n) {
        if (fitsCount(search, n)) return n;
    }
    return fitting;
}

struct Gallop {
    std::size_t fitting;  // first probe that fits (size() when none)
    std::size_t failed;   // one past the last probe that did not
};

// Probes start, start+1, start+3, start+7, ... and always the last count.
Gallop gallop(Search& search, std::size_t start) {
    const std::size_t size = candidateCounts().size();
    Gallop g{size, start};
    for (std::size_t probe = start, step = 1; probe < size; step *= 2) {
        if (fitsAt(search, probe)) {
            g.fitting = probe;
            break;
        }
        g.failed = probe + 1;
        if (probe == size - 1) break;
        probe = std::min(size - 1, probe + step);
    }
    return g;
}

// The first candidate count at or after `start` that fits. Monotone memory:
// gallop to a fit, then bisect. Otherwise pipeline depths round layers per
// stage up, so memory can rise between counts and every count below the
// first fit must be probed anyway: a plain scan from the lower bound probes
// nothing else (a gallop would add the probes past the fit), and it stops
// past the last count the strategy can use (`limit`).
std::optional<int> firstFit(Search& search, std::size_t start, bool monotoneMemory, int limit) {
    const Counts& counts = candidateCounts();
    if (!monotoneMemory) {
        for (std::size_t i = start; i < counts.size() && counts[i] <= limit; ++i) {
            if (fitsAt(search, i)) return counts[i];
        }
        return std::nullopt;
    }
    // Where the most GPUs do not fit, none do: one probe settles the
    // scenarios that fit nowhere (a gallop would take a dozen).
    if (!fitsAt(search, counts.size() - 1)) return std::nullopt;
    const Gallop g = gallop(search, start);
    if (g.fitting == counts.size()) return std::nullopt;
    std::size_t lo = g.failed, hi = g.fitting;  // bisect between the last miss and the fit
    while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (fitsAt(search, mid)) hi = mid;
        else lo = mid + 1;
    }
    return counts[hi];
}

}  // namespace

std::optional<int> fewestGpus(const Scenario& scenario) { return fewestGpus(sizing::prepare(scenario)); }

std::optional<int> fewestGpus(const sizing::Inputs& in) {
    const std::optional<CountFit> fit = fewestGpusFit(in);
    if (!fit) return std::nullopt;
    return fit->count;
}

std::optional<CountFit> fewestGpusFit(const sizing::Inputs& in) { return searchGpuCounts(in).fit; }

namespace {

// The search into `out`, which may hold an earlier search.
void searchInto(const sizing::Inputs& in, CountSearch& out) {
    out.fit.reset();
    out.lowest = 0;
    out.missed.reset();
    out.one.reset();
    out.above.reset();
    const Scenario& scenario = *in.scenario;
    if (in.usableGiB <= sizing::kCudaContextGiB) {
        out.lowest = double(kMaxGpus) + 1;
        return;
    }
    CountFit& found = out.fit.emplace();  // the last probe that fit; reset where none did
    Search search{in, found, out.missed, out.one};
    const double lowest = lowestPossibleCount(in);
    out.lowest = lowest;
    if (lowest <= 1 && fitsCount(search, 1)) return;
    // (Serving only: training adds only the NCCL buffers to the context,
    // which rules out too few probes to pay for the bound.)
    double lowestMulti = in.training ? lowest : std::max(lowest, lowestMultiGpuCount(in));
    // Where the weights alone need more than a server (elsewhere the scan
    // probes few counts below the bound), the stages' bound.
    if (!in.training && lowestMulti > kServerGpus) lowestMulti = lowestStagedCount(in, lowestMulti);
    // Serving with the default strategy splits by tensor, pipeline or layer:
    // none replicated, none monotone, no training activations, so the plan
    // for two GPUs need not be made to tell which.
    const bool servingDefault = !in.training && scenario.parallel.strategy == Strategy::Auto;
    const Strategy strategy = servingDefault ? defaultStrategy(scenario, 2) : sizing::planFor(in, 2).strategy;
    std::optional<int> fitting;
    if (!replicated(scenario, strategy) && !activationsAloneOverflow(in, strategy)) {
        fitting = firstFit(search, firstPossibleIndex(lowestMulti), monotone(strategy), sizing::usableCountLimit(in));
    }
    if (!fitting) {
        out.fit.reset();
        return;
    }
    const CountFit fitted = found;  // the scan's fit, kept where the gap holds a smaller one
    const int fewest = fewestInGap(search, *fitting, lowestMulti, monotone(strategy));
    if (fewest != *fitting && fitted.count == *fitting) out.above.emplace(fitted);
    if (found.count != fewest) fitsCount(search, fewest);  // the searches end on their answer; this keeps that true
}

}  // namespace

namespace {

// The memory code reads 16-bit floats as 2 bytes whichever kind
// (weightFormatInfo, kvBytesPerElement; the dequantization test lists
// both): a GPU without bf16, whose default formats are fp16, needs the
// same memory for them.
WeightFormat sizedAs(WeightFormat f) { return f == WeightFormat::Fp16 ? WeightFormat::Bf16 : f; }
KvFormat sizedAs(KvFormat f) { return f == KvFormat::Fp16 ? KvFormat::Bf16 : f; }

}  // namespace

bool CountShare::holds(const sizing::Inputs& in) const {
    const Scenario& s = *in.scenario;
    if (heldClass != gpuClass || engine != s.engine || weights != sizedAs(s.weights) || kvCache != sizedAs(s.kvCache) ||
        (flashAttention != s.flashAttention && sizing::memoryReadsFlashAttention(s)) || memoryGib != s.gpu.memoryGib ||
        usableGiB != in.usableGiB ||
        allocatorReserve != in.allocatorReserve || lossCopies != in.lossCopies || generateReserve != in.generateReserve ||
        supportsFp8 != s.gpu.supportsFp8) {
        return false;
    }
    if (gpusPerNode == s.gpu.gpusPerNode && nvlinkMaxGpus == s.gpu.nvlinkMaxGpus) return true;
    // A search that ended on its first probe, one GPU fitting, made only the
    // one-GPU plan: planFor(in, 1) is Single where the strategy is left to
    // the planner (one node, no tensor or expert degree), so neither the
    // server's size nor the NVLink domain entered it.
    if (s.parallel.strategy != Strategy::Auto || !search.fit) return false;
    if (search.fit->count == 1) return true;
    // Serving plans of no more GPUs than either server holds read neither
    // size: one node, tensor parallelism over all of them (planFor; the
    // degree is capped by the server only above its size), experts spread
    // within the stage; the memory model reads the plan alone. (Training
    // reads the NVLink domain: Megatron's degrees, the activations' bound.)
    // The serving scan probes upward to its first fit and then the counts
    // below it, so the widest count the search made a plan for is its
    // scan's fit (`above`, where the gap held a smaller one) or the answer.
    if (in.training) return false;
    const int widest = search.above ? std::max(search.above->count, search.fit->count) : search.fit->count;
    if (widest > std::min(gpusPerNode, s.gpu.gpusPerNode)) return false;
    return (search.missed >> std::size_t(widest + 1)).none();
}

void CountShare::keep(const sizing::Inputs& in) {
    const Scenario& s = *in.scenario;
    heldClass = gpuClass;
    engine = s.engine;
    weights = sizedAs(s.weights);
    kvCache = sizedAs(s.kvCache);
    flashAttention = s.flashAttention;
    memoryGib = s.gpu.memoryGib;
    usableGiB = in.usableGiB;
    allocatorReserve = in.allocatorReserve;
    lossCopies = in.lossCopies;
    generateReserve = in.generateReserve;
    gpusPerNode = s.gpu.gpusPerNode;
    nvlinkMaxGpus = s.gpu.nvlinkMaxGpus;
    supportsFp8 = s.gpu.supportsFp8;
}

const CountSearch* sharedCountSearch(const sizing::Inputs& in) {
    CountShare* share = in.countShare;
    // Only the matrix cell's own request: a planner's variant (another
    // checkpointing, context or loss) is searched on its own.
    if (!share || share->request != in.scenario || share->gpuClass < 0) return nullptr;
    if (!share->holds(in)) {
        searchInto(in, share->search);
        share->keep(in);
    }
    return &share->search;
}

const CountSearch& searchGpuCounts(const sizing::Inputs& in, CountSearch& scratch) {
    if (const CountSearch* shared = sharedCountSearch(in)) return *shared;
    searchInto(in, scratch);
    return scratch;
}

CountSearch searchGpuCounts(const sizing::Inputs& in) {
    CountSearch out;
    searchInto(in, out);
    return out;
}

}  // namespace caliper
