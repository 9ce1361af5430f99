// The planner (planner.hpp). The search is pruned by monotonicity: the
// fewest GPUs come from the lowest-memory candidate (sharded states,
// checkpointing on), since every other candidate needs at least as much
// memory per GPU; the other candidates are then weighed at that count only,
// and checkpointing (which only costs speed) is tried only where its
// absence does not fit.
#include "plan/planner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string_view>

#include "caliper/gpu.hpp"
#include "caliper/memory/memory.hpp"
#include "caliper/units.hpp"
#include "caliper/plan/plan.hpp"
#include "caliper/plan/compat.hpp"
#include "plan/prepared.hpp"
#include "plan/replicas.hpp"
#include "memory/sizing.hpp"
#include "memory/overhead.hpp"
#include "speed/speed_parts.hpp"
#include "calibration/ranges.hpp"

namespace caliper::planner {

namespace {

bool training(const Scenario& s) { return s.task != Task::Inference; }

// The strategies weighed at one count: a fixed list, since bestAt runs for
// every matrix cell and a vector would allocate each time.
struct Strategies {
    Strategy list[4];
    int size = 0;
    const Strategy* begin() const { return list; }
    const Strategy* end() const { return list + size; }
};

// Data-parallel strategies weighed for training at a count above one, from
// the cheapest in communication to the leanest in memory: plain DDP keeps
// full replicas, ZeRO-1/2 shard optimizer states (and gradients), ZeRO-3 and
// FSDP full-shard parameters too (and pay an all-gather per layer).
Strategies trainingStrategies(const Scenario& s) {
    if (s.parallel.strategy != Strategy::Auto) return {{s.parallel.strategy}, 1};
    if (runtimeOf(s.engine) == Engine::Megatron) return {{Strategy::Tensor}, 1};
    // Unsloth runs one GPU per process: over several GPUs, DDP replicas
    // (accelerate / torchrun); torchtune's distributed recipes always shard
    // with FSDP2 (recipes/full_finetune_distributed.py, shard_model).
    if (s.engine == Engine::Unsloth) return {{Strategy::Ddp}, 1};
    if (s.engine == Engine::Torchtune) return {{Strategy::Fsdp}, 1};
    if (runtimeOf(s.engine) == Engine::Fsdp) return {{Strategy::Ddp, Strategy::Fsdp}, 2};
    // Liger's fused linear loss reads lm_head's weight without calling the
    // module, so ZeRO-3's gather hooks never fire (defaultStrategy): not
    // weighed with it.
    if (lossKernelOf(s) == LossKernel::FusedLinear) return {{Strategy::Ddp, Strategy::Zero1, Strategy::Zero2}, 3};
    return {{Strategy::Ddp, Strategy::Zero1, Strategy::Zero2, Strategy::Zero3}, 4};
}

// Host RAM a plan keeps (offloaded states or weights, per node) against
// the machine's, when the request states it or the planner offloads on its
// own: the node's share of a server where the RAM is the default (hostShare).
bool hostFits(const Scenario& s, const MemoryBreakdown& m, const Plan& plan) {
    if (!s.host.ramExplicit && !s.host.ramBinding) return true;
    return m.cpuOffloadGiB / std::max(1, plan.nodes) <= hostShare(s, plan.gpuCount, plan.nodes).ramGib + 1e-9;
}

double speedOf(const Scenario& s, const SpeedEstimate& speed) {
    if (training(s)) return speed.trainTokensPerS.value_or(0);
    return speed.decodeTokensPerS.value_or(speed.prefillTokensPerS.value_or(0));
}

// A plan that fits. Its speed, the costliest figure of a candidate, is
// worked out when candidates are first compared or the caller needs it: a
// sole candidate (most inference cells) is never compared.
struct Candidate {
    Plan plan;
    MemoryBreakdown memory;
    const Scenario* scenario = nullptr;  // the variant the plan was made for
    const ParamCounts* counts = nullptr;  // its model's, prepared with it
    const Workload* work = nullptr;       // its model's workload, where the matrix row holds it
    bool checkpointing = false;
    std::optional<SpeedEstimate> speed;
    double tokensPerS = 0;
    bool offFits = false;  // checkpointing on, although the plan without it fits too (a shallower, faster layout)

    // (A constructor, so that the first candidate is built in place in its
    // std::optional: a candidate is a few hundred bytes, one per cell.)
    Candidate(const Plan& p, const MemoryBreakdown& m, const sizing::Inputs& in)
        : plan(p), memory(m), scenario(in.scenario), counts(&in.counts()), work(in.work),
          checkpointing(in.scenario->gradientCheckpointing) {}

    double rate() {
        if (!speed) {
            speed = work ? speedFigures(*scenario, plan, *work) : speedFigures(*scenario, plan, counts);
            tokensPerS = speedOf(*scenario, *speed);
        }
        return tokensPerS;
    }
};

// A candidate or none, built in place. (Not MaybeCandidate: GCC
// zero-fills an empty optional's whole payload, some 400 bytes, on every
// bestAt call, one or more per matrix cell.)
class MaybeCandidate {
public:
    MaybeCandidate() noexcept {}
    MaybeCandidate(MaybeCandidate&& o) noexcept {
        if (o.has_) emplace(std::move(o.c_));
    }
    MaybeCandidate& operator=(MaybeCandidate&& o) noexcept {
        if (this != &o) {
            reset();
            if (o.has_) emplace(std::move(o.c_));
        }
        return *this;
    }
    MaybeCandidate& operator=(Candidate&& c) noexcept {
        if (has_) {
            c_ = std::move(c);
        } else {
            emplace(std::move(c));
        }
        return *this;
    }
    MaybeCandidate(const MaybeCandidate&) = delete;
    MaybeCandidate& operator=(const MaybeCandidate&) = delete;
    ~MaybeCandidate() { reset(); }

    template <class... Args>
    Candidate& emplace(Args&&... args) {
        reset();
        new (&c_) Candidate(std::forward<Args>(args)...);
        has_ = true;
        return c_;
    }
    void reset() noexcept {
        if (has_) {
            c_.~Candidate();
            has_ = false;
        }
    }
    explicit operator bool() const { return has_; }
    Candidate* operator->() { return &c_; }
    Candidate& operator*() { return c_; }

private:
    union {
        Candidate c_;
    };
    bool has_ = false;
};

// The request with checkpointing (and, for the micro-batch search, the
// batch) set, prepared once (in place: the prepared inputs are large, and
// every matrix cell makes one). Without a change the request itself is used
// (no copy) until the variant is to be changed in place (own()).
struct Variant {
    std::optional<Scenario> own_;
    const Scenario* scenario;
    sizing::Inputs in;
    Variant(const Scenario& base, bool checkpointing, const sizing::ModelFigures* held)
        : Variant(base, checkpointing, base.batch, held) {}
    Variant(const Scenario& base, bool checkpointing, std::int64_t batch, const sizing::ModelFigures* held)
        : scenario(adopt(base, checkpointing, batch)), in(sizing::prepare(*scenario, held)) {}
    Variant(const Variant&) = delete;

    // The variant's own scenario, copied from the request on first use, for
    // the caller to change in place (the prepared inputs read it through
    // their pointer, as they read the request's).
    Scenario& own() {
        if (!own_) {
            own_.emplace(*scenario);
            scenario = &*own_;
            in.scenario = scenario;
        }
        return *own_;
    }

    // The request, or a copy made in place with the knobs set (a copy
    // returned in an optional was then moved, strings and lists one by one).
    const Scenario* adopt(const Scenario& base, bool checkpointing, std::int64_t batch) {
        if (base.gradientCheckpointing == checkpointing && base.batch == batch) return &base;
        own_.emplace(base);
        own_->gradientCheckpointing = checkpointing;
        own_->batch = batch;
        return &*own_;
    }
};

// A known fit: the count search's answer (and the probed count above it
// that fit, where an "auto" count rounds up to whole servers), so it is not
// evaluated again;
// and the search itself, whose ruled-out counts are not evaluated again.
struct Known {
    const Variant* variant = nullptr;
    const CountFit* fit = nullptr;
    const CountSearch* search = nullptr;

    // The search's fit at `count` for `v` (its answer, or the probed count
    // above it that fit too), or null.
    const CountFit* fitAt(const Variant* v, int count) const {
        if (variant != v) return nullptr;
        if (fit && fit->count == count) return fit;
        if (search && search->above && search->above->count == count) return &*search->above;
        return nullptr;
    }
};

// Candidates (strategy by position, checkpointing off or on) that did not
// fit at a smaller micro-batch of the same count. Activation memory only
// grows with the micro-batch (as the micro-batch search assumes), so they
// are not evaluated again at a larger one.
class Misses {
public:
    bool has(int strategyIndex, bool on) const { return (bits_ >> bit(strategyIndex, on)) & 1U; }
    void add(int strategyIndex, bool on) { bits_ |= 1U << bit(strategyIndex, on); }

private:
    static int bit(int strategyIndex, bool on) { return 2 * strategyIndex + (on ? 1 : 0); }
    unsigned bits_ = 0;
};

// The fastest fitting candidate at `count`: per strategy, checkpointing off
// when it fits, else on; equal speeds keep the simpler strategy. `misses`,
// when given, skips the candidates it holds and records those that miss.
MaybeCandidate bestAt(const Variant* off, const Variant& on, int count, const Known& known,
                                Misses* misses = nullptr) {
    const Scenario& s = *on.scenario;
    const Strategies strategies = !training(s) || count == 1 ? Strategies{{Strategy::Auto}, 1} : trainingStrategies(s);
    MaybeCandidate best;
    const bool layoutByMemory = training(s) && runtimeOf(s.engine) == Engine::Megatron &&
                                (s.parallel.tp <= 0 || s.parallel.pp <= 0);
    int index = -1;
    for (Strategy strategy : strategies) {
        ++index;
        bool offFitted = false;
        for (const Variant* v : {off, &on}) {
            if (!v) continue;
            const bool isOn = v == &on;
            if (misses && misses->has(index, isOn)) continue;
            auto miss = [&] {
                if (misses) misses->add(index, isOn);
            };
            // The count search's own answer is planFor of these inputs at this count.
            // The search's plan at a count it ruled out does not fit: not
            // evaluated again. Below the weights' bound no plan of either
            // variant fits (checkpointing leaves the weights as they are).
            if (strategy == Strategy::Auto && known.search &&
                (known.variant == v ? known.search->ruledOut(count) : count < known.search->lowest)) {
                continue;
            }
            const CountFit* const fit = known.fitAt(v, count);
            const bool searched = strategy == Strategy::Auto && fit;
            const Plan plan = searched                      ? fit->plan
                              : strategy == Strategy::Auto ? sizing::planFor(v->in, count)
                                                           : sizing::planWith(v->in, count, strategy);
            const bool same = fit && fit->plan.strategy == plan.strategy && fit->plan.tp == plan.tp &&
                              fit->plan.pp == plan.pp;
            // The plan's memory where the search did not keep it, built in
            // place (an empty optional declared first is zeroed whole, then
            // the breakdown is moved in).
            const std::optional<MemoryBreakdown> fitting = same || !sizing::countUsable(v->in, plan)
                                                               ? std::optional<MemoryBreakdown>()
                                                               : sizing::evaluateIfFits(v->in, plan);
            if (!same && !fitting) {
                miss();
                continue;
            }
            const MemoryBreakdown& memory = same ? fit->memory : *fitting;
            if (!hostFits(*v->scenario, memory, plan)) {
                miss();
                continue;
            }
            const bool offFits = isOn && offFitted;
            offFitted = offFitted || !isOn;
            if (!best) {
                best.emplace(plan, memory, v->in);
                best->offFits = offFits;
            } else {
                Candidate c(plan, memory, v->in);
                c.offFits = offFits;
                if (c.rate() > best->rate() * (1 + 1e-9)) best = std::move(c);
            }
            // Checkpointing on only costs speed where the layout stays as it
            // is: not tried where off fits. Megatron's layout follows the
            // memory (the smallest model-parallel size that fits), so with
            // checkpointing on it may run a shallower pipeline with a smaller
            // bubble: there both are weighed.
            if (!layoutByMemory) break;
        }
    }
    return best;
}

// bestAt's candidate at `count` for a serving request (one variant, one
// strategy) where its tokens/s per GPU beat `perGpuBar`, else none. Its
// speed is worked out before its memory: a slower plan loses whether it
// fits or not, so its memory is never needed (most wider counts lose).
MaybeCandidate fasterAt(const Variant& on, int count, double perGpuBar) {
    const Scenario& s = *on.scenario;
    const Plan plan = sizing::planFor(on.in, count);
    if (!sizing::countUsable(on.in, plan)) return {};
    SpeedEstimate speed = on.in.work ? speedFigures(s, plan, *on.in.work) : speedFigures(s, plan, &on.in.counts());
    const double tokensPerS = speedOf(s, speed);
    if (!(tokensPerS / count > perGpuBar)) return {};
    std::optional<MemoryBreakdown> fitting = sizing::evaluateIfFits(on.in, plan);
    if (!fitting || !hostFits(s, *fitting, plan)) return {};
    MaybeCandidate out;
    out.emplace(plan, *fitting, on.in);
    out->speed = std::move(speed);
    out->tokensPerS = tokensPerS;
    return out;
}

// Serving counts above the fewest that fit, within the limit and one
// server, at which tensor parallelism can use every GPU: a pipeline of
// stages at batch 1 runs them one after another, so 8 GPUs in tensor
// parallel can decode several times faster than 7 in a pipeline.
// (Each count is handed to `visit`, which returns true to stop: a list
// would allocate for every cell that weighs them.)
template <class Visit>
void tensorCountsAbove(const Scenario& s, int fewest, int maxGpus, Visit visit) {
    const int limit = std::min(maxGpus, std::max(1, s.gpu.gpusPerNode));
    const int heads = std::max(1, s.model.heads);
    const int kv = std::max(1, s.model.kvHeads > 0 ? s.model.kvHeads : s.model.heads);
    for (int n = fewest + 1; n <= limit; ++n) {
        if (heads % n == 0 && (kv % n == 0 || n % kv == 0) && visit(n)) return;
    }
}

// llama.cpp with CPU offload at the request's count ("auto": 1 here;
// fewestOffloaded searches it), with -ngl as high, or --n-cpu-moe as low,
// as fits. GPU memory grows with the layers kept on it, so a bisection finds
// the bound; the host RAM is checked on the answer.
Choice chooseOffload(const Scenario& request) {
    Choice out;
    const sizing::Inputs in = sizing::prepare(request);
    const int count = request.gpuCountAuto ? 1 : std::max(1, request.gpuCount);
    Plan plan = sizing::planFor(in, count);
    auto gpuFits = [&](const Plan& p) {
        return sizing::countUsable(in, p) &&
               sizing::fits(in, sizing::evaluate(in, p, sizing::Explain(), nullptr));
    };
    if (request.parallel.offload == Offload::Layers) {
        if (request.parallel.gpuLayers >= 0) {
            plan.gpuLayers = request.parallel.gpuLayers;
            out.why.push_back("gpu_layers_requested");
        } else {
            int lo = 0, hi = in.shape().stackLayers, best = 0;
            while (lo <= hi) {
                const int mid = (lo + hi) / 2;
                plan.gpuLayers = mid;
                if (gpuFits(plan)) {
                    best = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            plan.gpuLayers = best;
            out.why.push_back("gpu_layers_most_that_fit");
        }
    } else {
        const int moeLayers = moeLayerCount(request.model);
        if (request.parallel.cpuMoeLayers >= 0) {
            plan.cpuMoeLayers = request.parallel.cpuMoeLayers;
            out.why.push_back("cpu_moe_layers_requested");
        } else {
            int lo = 0, hi = moeLayers, best = moeLayers;
            while (lo <= hi) {
                const int mid = (lo + hi) / 2;
                plan.cpuMoeLayers = mid;
                if (gpuFits(plan)) {
                    best = mid;
                    hi = mid - 1;
                } else {
                    lo = mid + 1;
                }
            }
            plan.cpuMoeLayers = best;
            out.why.push_back("cpu_moe_layers_fewest_that_fit");
        }
    }
    out.plan = plan;
    out.memory = sizing::evaluate(in, plan, sizing::Explain(), nullptr);
    out.fits = gpuFits(plan) && hostFits(request, out.memory, plan);
    if (out.fits) {
        out.gpusNeeded = count;
        out.speed = speedFigures(request, plan);
    }
    return out;
}

// A fitting candidate as the choice: its plan, memory, checkpointing and
// (within the limit: beyond it nobody reads it) its speed.
void take(Choice& out, Candidate& best, const Scenario& request, int maxGpus) {
    out.plan = best.plan;
    out.memory = best.memory;
    out.fits = true;
    if (best.plan.gpuCount <= maxGpus) {
        best.rate();
        out.speed = std::move(best.speed);
    }
    out.gradientCheckpointing = best.checkpointing;
    out.checkpointingForSpeed = best.checkpointing && best.offFits;
    if (training(request) && best.plan.gpuCount > 1 && request.parallel.strategy == Strategy::Auto) {
        const bool sharded = best.plan.strategy != Strategy::Ddp && best.plan.strategy != Strategy::Tensor &&
                             best.plan.strategy != Strategy::Pipeline;
        out.why.push_back(sharded ? "strategy_states_sharded_to_fit" : "strategy_replicas_fit");
    }
}

// The knobs resolved on the choice's plan, and checkpointing's reason when
// the planner decided it.
void finish(Choice& out, const Scenario& request, bool autoCheckpointing) {
    out.plan.gradientCheckpointing = training(request) && out.gradientCheckpointing;
    if (training(request)) out.plan.microBatch = static_cast<int>(std::max<std::int64_t>(1, request.batch));
    if (autoCheckpointing) {
        out.why.push_back(!out.gradientCheckpointing     ? "checkpointing_off_fits"
                          : out.checkpointingForSpeed ? "checkpointing_shallower_pipeline_faster"
                                                      : "checkpointing_needed_to_fit");
    }
}

// The choice given the variant without checkpointing (`offPtr`, when the
// planner decides it) and with the request's (or, deciding, with it on).
// `search`: the count search of `on`'s inputs.
Choice chooseWith(const Scenario& request, int maxGpus, const Variant* offPtr, const Variant& on,
                  const CountSearch& search) {
    Choice out;
    const bool autoCheckpointing = offPtr != nullptr;

    // The fewest GPUs that fit under the leanest candidate (the default
    // strategy shards states for training; checkpointing on).
    const std::optional<CountFit>& leanest = search.fit;
    if (leanest) out.gpusNeeded = leanest->count;
    int count = request.gpuCountAuto ? (leanest ? leanest->count : 1) : std::max(1, request.gpuCount);
    out.why.push_back(request.gpuCountAuto ? "count_fewest_that_fit" : "count_requested");

    const Known known{&on, leanest ? &*leanest : nullptr, &search};
    MaybeCandidate best = bestAt(offPtr, on, count, known);
    if (request.gpuCountAuto && best && !training(request) && best->plan.pp > 1 &&
        runtimeOf(request.engine) != Engine::LlamaCpp && request.parallel.strategy == Strategy::Auto) {
        const int fewest = count;
        tensorCountsAbove(request, fewest, maxGpus, [&](int n) {
            MaybeCandidate wider = fasterAt(on, n, best->rate() / fewest * (1 + 1e-9));
            if (wider) {
                best = std::move(wider);
                count = n;
                out.why.back() = "count_faster_per_gpu";
                return true;  // the first count where tensor parallelism covers every GPU
            }
            return false;
        });
    }

    // Past one server an "auto" count takes whole servers (wholeNodes,
    // replicas.hpp): the fewest multiple of GPUs per node at or above the
    // fewest that fit whose plan fits within the limit. Not Ollama, whose
    // context follows the count's VRAM (chooseOllamaContext bands counts).
    if (request.gpuCountAuto && best && !contextFollowsCount(request)) {
        for (int n = wholeNodes(request, count), step = 0; n > count && n <= maxGpus && step < kWholeNodeSteps;
             n += std::max(1, request.gpu.gpusPerNode), ++step) {
            if (MaybeCandidate whole = bestAt(offPtr, on, n, known)) {
                best = std::move(whole);
                count = n;
                out.why.back() = "count_whole_nodes";
                break;
            }
        }
    }

    // At a stated count one group cannot use, replicas of a smaller group.
    // (The replicas' optional is declared only where they are weighed: GCC
    // zero-fills an empty optional's whole payload, for every cell.)
    bool replicated = false;
    if (replicasWeighed(request) &&
        replicasTried(request, best || sizing::countUsable(on.in, sizing::planFor(on.in, count)))) {
        std::optional<ReplicaFit> replicas = bestReplicas(*on.scenario, count);
        if (replicas && !(best && best->rate() * (1 + 1e-9) >= replicas->tokensPerS)) {
            out.plan = replicas->plan;
            out.memory = std::move(replicas->memory);
            out.fits = true;
            if (out.plan.gpuCount <= maxGpus) out.speed = std::move(replicas->speed);
            out.why.push_back(out.plan.gpuCount < count ? "replicas_leave_gpus_idle" : "replicas_fill_count");
            replicated = true;
        }
    }

    if (replicated) {
        // The replicas' plan is the choice (above).
    } else if (best) {
        take(out, *best, request, maxGpus);
    } else {
        // Nothing fits at this count: show the leanest plan (what comes
        // closest), with its memory.
        if (count == 1 && search.one) {  // the search evaluated it already
            out.plan = search.one->plan;
            out.memory = search.one->memory;
        } else {
            out.plan = sizing::planFor(on.in, count);
            out.memory = sizing::evaluate(on.in, out.plan, sizing::Explain(), nullptr);
        }
        out.fits = sizing::countUsable(on.in, out.plan) && sizing::fits(on.in, out.memory) &&
                   hostFits(*on.scenario, out.memory, out.plan);
        out.gradientCheckpointing = on.scenario->gradientCheckpointing;
    }
    finish(out, request, autoCheckpointing);
    return out;
}

// The same with the count search shared through the matrix row where it
// applies, else made here.
Choice chooseWith(const Scenario& request, int maxGpus, const Variant* offPtr, const Variant& on) {
    if (const CountSearch* shared = sharedCountSearch(on.in)) return chooseWith(request, maxGpus, offPtr, on, *shared);
    CountSearch scratch;
    searchGpuCounts(on.in, scratch);
    return chooseWith(request, maxGpus, offPtr, on, scratch);
}

Choice chooseKnobs(const Scenario& request, int maxGpus, const sizing::ModelFigures* held) {
    // Checkpointing on is the leaner variant; off is tried first at a count.
    // (Two calls rather than an optional variant: an empty std::optional of
    // it was zero-filled, kilobytes per matrix cell.)
    if (training(request) && request.gradientCheckpointingAuto) {
        const Variant off(request, false, held);
        const Variant on(request, true, held);
        return chooseWith(request, maxGpus, &off, on);
    }
    const Variant on(request, training(request) && request.gradientCheckpointing, held);
    return chooseWith(request, maxGpus, nullptr, on);
}

// Micro-batches the search tries, doubling from 1 (Megatron's and Hugging
// Face's recipes use powers of two); 64 sequences is past any recipe in the
// validation rows (llm-foundry's largest is 104 at 512 tokens, i.e. 53k
// tokens, beyond where the GEMMs stop gaining: training_efficiency.cpp).
constexpr std::int64_t kMaxMicroBatch = 64;
// A larger micro-batch holds more activation memory, so it is kept only
// when faster beyond the rounding of micro-batches per step (0.1%).
constexpr double kMicroBatchMinGain = 1e-3;

bool trainingSpeedOf(const Choice& c, double& tokensPerS) {
    if (!c.fits || !c.speed || !c.speed->trainTokensPerS) return false;
    tokensPerS = *c.speed->trainTokensPerS;
    return tokensPerS > 0;
}

// The micro-batch search ("batch": "auto", the training default): the
// fewest GPUs come from micro-batch 1 (the leanest); at that count larger
// micro-batches are weighed, each with its own strategy and checkpointing,
// while they fit, divide a stated global batch over the replicas and run
// faster. Activation memory grows with the micro-batch, so the first that
// does not fit ends the search, and so does the first no faster: the GEMMs'
// gain by tokens is concave and the pipeline bubble grows as the
// micro-batches per step fall. Pruned: the count is not searched again, and
// a candidate that missed at one micro-batch is not evaluated at a larger
// one. The variants are prepared once, on `at` and `on` (checkpointing on,
// when the planner decides it), which the search re-batches in place: a
// training scenario's prepared inputs read the batch and the count through
// the scenario (prepare() works out no term of either for training).
//
// `off` is null where the request states checkpointing; `at` is then
// `onVariant`. The variants use the request itself where it already has
// their knobs, and copy it only when the search goes on to a larger
// micro-batch (most cells that do not fit stop at micro-batch 1).
Choice searchMicroBatch(const Scenario& request, Variant* off, Variant& onVariant, int maxGpus) {
    Choice best = chooseWith(*(off ? off : &onVariant)->scenario, maxGpus, off, onVariant);
    double bestRate = 0;
    if (!trainingSpeedOf(best, bestRate)) return best;
    Scenario& at = (off ? off : &onVariant)->own();
    Scenario* on = off ? &onVariant.own() : nullptr;
    const int count = best.plan.gpuCount;
    for (Scenario* s : {&at, on}) {
        if (!s) continue;
        s->gpuCountAuto = false;
        s->gpuCount = count;
    }
    Misses misses;
    const char* why = "micro_batch_search_limit";
    for (std::int64_t micro = 2; micro <= kMaxMicroBatch; micro *= 2) {
        if (request.globalBatch > 0 && request.globalBatch % (micro * std::max(1, best.plan.dp)) != 0) {
            why = "micro_batch_divides_global_batch";
            break;
        }
        at.batch = micro;
        if (on) on->batch = micro;
        // The count's reason stays the first search's (the fewest GPUs at
        // micro-batch 1); the others are the larger micro-batch's plan's.
        Choice larger;
        larger.why.push_back(*best.why.begin());
        MaybeCandidate candidate = bestAt(off, onVariant, count, Known{}, &misses);
        if (candidate) {
            take(larger, *candidate, at, maxGpus);
            finish(larger, at, off != nullptr);
        }
        double rate = 0;
        if (!trainingSpeedOf(larger, rate)) {
            why = "micro_batch_largest_that_fits";
            break;
        }
        if (rate <= bestRate * (1 + kMicroBatchMinGain)) {
            why = "micro_batch_fastest";
            break;
        }
        larger.gpusNeeded = best.gpusNeeded;
        best = std::move(larger);
        bestRate = rate;
    }
    best.why.push_back(why);
    return best;
}

Choice chooseMicroBatch(const Scenario& request, int maxGpus, const sizing::ModelFigures* held) {
    if (training(request) && request.gradientCheckpointingAuto) {
        Variant off(request, false, 1, held), onVariant(request, true, 1, held);
        return searchMicroBatch(request, &off, onVariant, maxGpus);
    }
    Variant only(request, request.gradientCheckpointing, 1, held);
    return searchMicroBatch(request, nullptr, only, maxGpus);
}

Choice chooseUnbanded(const Scenario& request, int maxGpus, const sizing::ModelFigures* held);

Choice chooseTraining(const Scenario& request, int maxGpus, const sizing::ModelFigures* held) {
    return request.batchAuto ? chooseMicroBatch(request, maxGpus, held) : chooseKnobs(request, maxGpus, held);
}

// Whether the planner weighs Liger Kernel's fused linear cross entropy
// against the engine's eager loss: where the request leaves the loss "auto".
bool fusedLossWeighed(const Scenario& s) { return !s.lossKernel && fusedLinearLossRuns(s); }

// Every strategy weighed with the fused linear loss but FSDP keeps the
// whole model and a whole micro-batch's activations on each GPU (DDP,
// ZeRO-1/2: trainingStrategies; Hugging Face stacks run no tensor or
// pipeline parallelism), and only the gradients and optimizer states shrink
// with more GPUs. So where one GPU's weights and activations (checkpointing
// on where the planner decides it, the smallest micro-batch), the allocator's share of them and the CUDA
// context already exceed it, no count fits: not searched (most matrix cells
// that need several GPUs).
bool unsharded(const Scenario& s) {
    return runtimeOf(s.engine) != Engine::Fsdp && s.parallel.strategy != Strategy::Fsdp && s.parallel.tp <= 1 &&
           s.parallel.pp <= 1;
}

// The weights and the fewest activations any plan keeps (with
// checkpointing, each layer's 16-bit input for one sequence: 2 s h bytes,
// memory/train_activations.cpp; none when they go to host RAM), where the
// matrix row holds the weights already (no copy of the request, no
// preparation): most cells that need several GPUs stop here.
bool weightsMayFit(const Scenario& s, const sizing::ModelFigures* held) {
    if (!unsharded(s) || !held || !held->weightsKnown || held->weightsFormat != s.weights ||
        held->weightsEngineKind != sizing::weightsKind(s)) {
        return true;
    }
    const std::int64_t sequences = s.batchAuto ? 1 : std::max<std::int64_t>(1, s.batch);
    const bool checkpointsOnGpu = !(s.gradientCheckpointing && s.checkpointOffload);
    const double checkpoints = checkpointsOnGpu ? 2.0 * double(s.seqLen) * double(sequences) * held->shape.hidden *
                                                      held->shape.stackLayers
                                                : 0.0;
    return held->weights.total(held->shape.stackLayers) + checkpoints <= gibToBytes(usableMemoryGiB(s));
}

bool fusedMayFit(Scenario& fused, const sizing::ModelFigures* held) {
    if (!unsharded(fused)) return true;
    const bool checkpointing = fused.gradientCheckpointing;
    const std::int64_t batch = fused.batch;
    const int count = fused.gpuCount;
    const bool countAuto = fused.gpuCountAuto;
    if (fused.gradientCheckpointingAuto) fused.gradientCheckpointing = true;
    if (fused.batchAuto) fused.batch = 1;
    fused.gpuCount = 1;
    fused.gpuCountAuto = false;
    const sizing::Inputs in = sizing::prepare(fused, held);
    const MemoryBreakdown m = sizing::evaluate(in, sizing::planFor(in, 1), sizing::Explain(), nullptr);
    fused.gradientCheckpointing = checkpointing;
    fused.batch = batch;
    fused.gpuCount = count;
    fused.gpuCountAuto = countAuto;
    // The caching allocator's reserve is a share of what is allocated, and
    // every GPU holds a CUDA context (memory/overhead.cpp).
    const double floorGiB = (m.weightsGiB + m.activationsGiB) * (1 + in.allocatorReserve) + m.overheadParts.cudaContextGiB;
    return floorGiB <= in.usableGiB + sizing::kFitToleranceGiB;
}

// Ollama's num_ctx follows the VRAM of the machine (ollamaNumCtx: 4k, 32k
// or 256k by total VRAM), so an "auto" count is searched band by band: each
// band of counts with one context is searched at that context, and the
// fewest GPUs that fit at their own context win. A count judged at another
// count's context would fit a plan that Ollama, started on that many GPUs,
// does not run (or miss one it does). Ollama runs on one machine (one
// server process schedules the local GPUs; it has no multi-node mode), so
// the counts end at a machine's GPUs: past them its own split of the layers
// onto the CPU is weighed (chooseFollowingContext), not more servers.
Choice chooseOllamaContext(const Scenario& request, int maxGpus, const sizing::ModelFigures* held) {
    auto contextAt = [&request](int count) { return ollamaNumCtx(request, count); };
    const int machine = std::min(kMaxGpus, std::max(1, request.gpu.gpusPerNode));
    std::optional<Choice> first;
    for (int lo = 1; lo <= machine;) {
        const std::int64_t context = contextAt(lo);
        // The context never falls as the count grows (more VRAM, a larger
        // default, the same cap), so a band's last count is found by
        // bisection, not by walking every count up to the limit.
        int hi = lo;
        for (int top = machine; hi < top;) {
            const int mid = hi + (top - hi + 1) / 2;
            if (contextAt(mid) == context) {
                hi = mid;
            } else {
                top = mid - 1;
            }
        }
        Scenario band = request;
        band.gpuCount = lo;  // ollamaNumCtx reads it; the count stays "auto"
        Choice c = chooseUnbanded(band, maxGpus, held);
        if (c.gpusNeeded && *c.gpusNeeded >= lo && *c.gpusNeeded <= hi) return c;
        if (!first) first = std::move(c);
        lo = hi + 1;
    }
    // No count fits at its own context: the plan the first band chose,
    // judged at its own count's context, which does not fit either.
    Scenario fixed = request;
    fixed.gpuCountAuto = false;
    fixed.gpuCount = std::clamp(first->plan.gpuCount, 1, machine);
    Choice c = chooseUnbanded(fixed, maxGpus, held);
    c.gpusNeeded.reset();
    c.why.replace("count_requested", "count_fewest_that_fit");
    return c;
}

}  // namespace

// A Hugging Face Trainer / TRL stack (transformers, deepspeed, fsdp), where
// `use_liger_kernel=True` (TrainingArguments, since transformers 4.45)
// patches the model's causal-LM forward with LigerForCausalLMLoss. Unsloth,
// torchtune and Megatron run their own kernels already (lossKernelOf). Not
// under a ZeRO-3 the request fixes (offloaded parameters are ZeRO-3's):
// the kernel reads lm_head's weight unsharded (plan.cpp defaultStrategy).
bool fusedLinearLossRuns(const Scenario& s) {
    if (s.task == Task::Inference || s.model.workload != WorkloadKind::Llm) return false;
    if (s.parallel.strategy == Strategy::Zero3 || s.parallel.offload == Offload::Parameters) return false;
    return s.engine == Engine::Transformers || s.engine == Engine::Deepspeed || s.engine == Engine::Fsdp;
}

// TRL's SFTTrainer (loss_type="chunked_nll") runs on the Hugging Face
// stacks (Trainer with DeepSpeed or FSDP under accelerate); it gathers
// lm_head per chunk under ZeRO-3 (maybe_gather_lm_head_ctx) and FSDP2
// (full_tensor()), and takes PEFT models since TRL PR #5676.
bool chunkedNllLossRuns(const Scenario& s) {
    if (s.task == Task::Inference || s.model.workload != WorkloadKind::Llm) return false;
    return s.engine == Engine::Transformers || s.engine == Engine::Deepspeed || s.engine == Engine::Fsdp;
}

bool contextFollowsCount(const Scenario& s) {
    return s.gpuCountAuto && s.engine == Engine::Ollama && s.task == Task::Inference && !s.maxModelLen;
}

namespace {

// Ollama's scheduler loads what fits: where the model does not fit the
// GPUs' memory it places as many layers as fit there and runs the rest on
// the CPU (ollama llm/memory.go estimateGPULayers; server/sched.go loads the
// partial offload when system memory holds the rest). A request that states
// no offload and a count gets that split where it does not fit otherwise and
// the host RAM holds the rest; llama.cpp keeps -ngl explicit.
bool ollamaSplitsLayers(const Scenario& s) {
    return s.engine == Engine::Ollama && s.task == Task::Inference && !s.parallel.offloadExplicit &&
           s.parallel.offload == Offload::None && !s.gpuCountAuto && s.model.workload == WorkloadKind::Llm;
}

// The same at an "auto" count or a matrix cell: Ollama splits the layers
// only where the model does not fit the GPUs it is given, so a split is
// weighed only where no plan with every layer on the GPUs fits within the
// limit (the fastest plan within it, whatever its count).
bool ollamaMaySplitLayers(const Scenario& s) {
    return s.engine == Engine::Ollama && s.task == Task::Inference && !s.parallel.offloadExplicit &&
           s.parallel.offload == Offload::None && s.gpuCountAuto && s.model.workload == WorkloadKind::Llm;
}

bool fitsWithin(const Choice& c, int maxGpus) {
    return c.fits && c.gpusNeeded && *c.gpusNeeded <= maxGpus && c.plan.gpuCount <= maxGpus;
}

// Ollama's split, marked as such (plan.layersOnHost, why
// ollama_layers_on_cpu), where it fits the GPUs and the host RAM holds the
// rest: Ollama's scheduler checks system memory before it loads a partial
// offload (server/sched.go), whether or not the request states the RAM.
std::optional<Choice> splitLikeOllama(const Scenario& request) {
    Scenario split = request;
    split.parallel.offload = Offload::Layers;
    split.parallel.gpuLayers = -1;
    Choice c = chooseOffload(split);
    if (!c.fits || c.memory.cpuOffloadGiB > hostShare(request, c.plan.gpuCount, c.plan.nodes).ramGib + 1e-9) return std::nullopt;
    c.plan.layersOnHost = true;
    c.why.replace("gpu_layers_most_that_fit", "ollama_layers_on_cpu");
    return c;
}

// The choice `onGpus` (all layers on the GPUs, which did not fit) replaced
// by Ollama's split where it fits.
void splitLayersLikeOllama(const Scenario& request, Choice& onGpus) {
    if (std::optional<Choice> c = splitLikeOllama(request)) onGpus = std::move(*c);
}

// An offloaded plan ("auto" count) on the fewest GPUs of one machine, within
// the limit, whose split fits: llama.cpp with -ngl / --n-cpu-moe as stated
// (`ollama` false), or Ollama's own split (`ollama` true). The host RAM that
// holds the rest is one machine's (neither engine spans servers), so the
// count stops at a server's GPUs. More GPUs hold more layers (or a stated
// -ngl spread thinner), so what fits at one count fits at every larger one:
// the first count is tried alone (most cells), then the last, then a
// bisection between them. Empty where none fits.
std::optional<Choice> fewestOffloaded(const Scenario& request, int maxGpus, bool ollama) {
    Scenario at = request;
    at.gpuCountAuto = false;
    auto tryCount = [&](int n) -> std::optional<Choice> {
        at.gpuCount = n;
        if (ollama) return splitLikeOllama(at);
        Choice c = chooseOffload(at);
        if (!c.fits) return std::nullopt;
        return c;
    };
    const int limit = std::max(1, std::min(maxGpus, std::max(1, request.gpu.gpusPerNode)));
    std::optional<Choice> best = tryCount(1);
    if (!best && limit > 1) {
        best = tryCount(limit);
        int lo = 1, hi = limit;  // lo misses, hi fits
        while (best && hi - lo > 1) {
            const int mid = (lo + hi) / 2;
            if (std::optional<Choice> c = tryCount(mid)) {
                best = std::move(c);
                hi = mid;
            } else {
                lo = mid;
            }
        }
    }
    if (!best) return std::nullopt;
    // The count's reason first, then the split's.
    Choice out = std::move(*best);
    WhyCodes why;
    why.push_back("count_fewest_that_fit");
    for (const char* code : out.why) why.push_back(code);
    out.why = why;
    return out;
}

}  // namespace

namespace {

// Inference with `parallel.dp` stated (above 1): that many replicas of one
// model-parallel group, each a separate engine serving its share of the
// requests (replicas.hpp, as bestReplicas builds them): the group is planned
// as a request of its own, on count / dp GPUs (an "auto" count: the fewest
// that hold one replica, times dp) with ceil(batch / dp) of the concurrent
// requests and no replicas of its own, then spread over the dp copies.
// compat.cpp has checked that dp (times any stated tp and pp) divides the count.
Choice chooseStatedReplicas(const Scenario& request, int maxGpus, const sizing::ModelFigures* held) {
    const int replicas = request.parallel.dp;
    Scenario group = request;
    group.parallel.dp = 1;
    group.batch = (std::max<std::int64_t>(1, request.batch) + replicas - 1) / replicas;
    if (!request.gpuCountAuto) group.gpuCount = std::max(1, request.gpuCount / replicas);
    Choice c = choose(group, std::max(1, maxGpus / replicas), held);
    c.plan.gpuCount *= replicas;
    c.plan.dp = std::max(1, c.plan.dp) * replicas;
    const int perNode = std::max(1, request.gpu.gpusPerNode);
    c.plan.nodes = (c.plan.gpuCount + perNode - 1) / perNode;
    if (c.plan.strategy == Strategy::Single) c.plan.strategy = Strategy::Ddp;  // replicas of one GPU each
    if (c.gpusNeeded) *c.gpusNeeded *= replicas;
    c.speed.reset();
    if (c.fits && c.plan.gpuCount <= maxGpus) c.speed = speedFigures(request, c.plan);
    c.why.push_back("replicas_fill_count");
    return c;
}

// Ollama's choice where its context follows the count.
Choice chooseFollowingContext(const Scenario& request, int maxGpus, const sizing::ModelFigures* held) {
    Choice c = chooseOllamaContext(request, maxGpus, held);
    // Only cells that do not fit on the GPUs within the limit weigh the split.
    if (ollamaMaySplitLayers(request) && !fitsWithin(c, maxGpus)) {
        if (std::optional<Choice> split = fewestOffloaded(request, maxGpus, true)) c = std::move(*split);
    }
    return c;
}

// The planner's choice where neither stated replicas nor Ollama's context
// decide it. (Every return is the one `c`, so that it is built in the
// caller's place: GCC moves a named choice into the result where another
// return statement returns something else, a copy of its few hundred bytes
// on every matrix cell.)
Choice chooseOnGpus(const Scenario& request, int maxGpus, const sizing::ModelFigures* held) {
    Choice c = chooseUnbanded(request, maxGpus, held);
    if (!c.fits && ollamaSplitsLayers(request)) splitLayersLikeOllama(request, c);
    if (ollamaMaySplitLayers(request) && !fitsWithin(c, maxGpus)) {
        if (std::optional<Choice> split = fewestOffloaded(request, maxGpus, true)) {
            c = std::move(*split);
            return c;
        }
    }
    if (!request.gpuCountAuto && request.engine == Engine::Ollama && request.task == Task::Inference &&
        !request.maxModelLen) {
        // A stated count runs at its own context, but the fewest GPUs that
        // fit are judged each at theirs, as an "auto" count is (its layer
        // split onto the CPU included where no count of one machine holds
        // every layer).
        Scenario any = request;
        any.gpuCountAuto = true;
        any.gpuCount = 1;
        c.gpusNeeded = chooseFollowingContext(any, maxGpus, held).gpusNeeded;
    }
    return c;
}

}  // namespace

Choice choose(const Scenario& request, int maxGpus, const sizing::ModelFigures* held) {
    if (request.task == Task::Inference && request.parallel.dp > 1) return chooseStatedReplicas(request, maxGpus, held);
    const bool offloadStated = request.parallel.offload == Offload::Layers || request.parallel.offload == Offload::MoeExperts;
    if (contextFollowsCount(request) && !offloadStated) return chooseFollowingContext(request, maxGpus, held);
    return chooseOnGpus(request, maxGpus, held);
}

namespace {

Choice chooseDataParallel(const Scenario& request, int maxGpus, const sizing::ModelFigures* held);

// Hugging Face PEFT / Trainer on GPUs that no data-parallel plan fits: the
// model loaded with device_map="auto" spreads its layers over the GPUs
// (accelerate's big-model dispatch, infer_auto_device_map; PEFT's and
// transformers' multi-GPU docs: "naive model parallelism"), one GPU busy at
// a time. Only transformers loads it so: DeepSpeed and FSDP wrap a whole
// model per rank, and ZeRO-3 refuses a device_map. Not where the request
// fixes the strategy, the degrees or an offload.
bool layerSplitWeighed(const Scenario& s) {
    return training(s) && s.engine == Engine::Transformers && s.parallel.strategy == Strategy::Auto &&
           s.model.workload == WorkloadKind::Llm && s.parallel.tp <= 1 && s.parallel.pp <= 1 && s.parallel.cp <= 1 &&
           s.parallel.offload == Offload::None;
}

// Whether `split` beats `dataParallel`: at an "auto" count, fewer GPUs; at a
// stated one, a fit where it had none.
bool splitBetter(const Scenario& request, const Choice& split, const Choice& dataParallel) {
    if (!request.gpuCountAuto) return split.fits;
    return split.gpusNeeded && (!dataParallel.gpusNeeded || *split.gpusNeeded < *dataParallel.gpusNeeded);
}

// A device_map spreads one process's model over the GPUs of its machine.
int oneMachine(const Scenario& s) { return std::max(1, s.gpu.gpusPerNode); }

// Whether a layer split can fit within `maxGpus` (an "auto" count): its
// leanest variant (checkpointing on where the planner decides it,
// micro-batch 1, Liger's loss where the loss is "auto") on the most stages
// the limit allows. More stages hold fewer layers each (ceil(L/p) on the
// first), so where that does not fit no count within the limit does: one
// evaluation settles most matrix cells that no data-parallel plan fits.
bool splitMayFitWithin(const Scenario& split, int maxGpus, const sizing::ModelFigures* held) {
    Scenario lean = split;
    lean.gpuCountAuto = false;
    lean.gpuCount = std::min({maxGpus, oneMachine(split), std::max(1, lean.model.layers + std::max(0, lean.model.encoderLayers))});
    if (lean.gpuCount < 2) return false;
    // No split spreads the weights thinner than evenly, and every GPU holds
    // its CUDA context: where the matrix row holds the weights, that bound
    // settles most cells before any preparation.
    if (held && held->weightsKnown && held->weightsFormat == split.weights &&
        held->weightsEngineKind == sizing::weightsKind(split)) {
        const double budget = gibToBytes(usableMemoryGiB(split) - sizing::kCudaContextGiB);
        if (held->weights.total(held->shape.stackLayers) > budget * lean.gpuCount) return false;
    }
    if (lean.gradientCheckpointingAuto) lean.gradientCheckpointing = true;
    if (lean.batchAuto) lean.batch = 1;
    if (fusedLossWeighed(split)) lean.lossKernel = LossKernel::FusedLinear;
    const sizing::Inputs in = sizing::prepare(lean, held);
    const Plan plan = sizing::planFor(in, lean.gpuCount);
    return sizing::countUsable(in, plan) && sizing::evaluateIfFits(in, plan).has_value();
}

// The layer split (eager loss, then Liger's fused one where the loss is
// "auto" and the eager split is short) where the data-parallel choice `c`
// does not fit within the limit or needs three GPUs or more (an "auto"
// count: the fewest GPUs win, and a split of two or more stages may need
// fewer), or does not fit at the stated count: every other cell keeps `c`
// with no split evaluated.
Choice withLayerSplit(const Scenario& request, int maxGpus, const sizing::ModelFigures* held, Choice c) {
    if (!layerSplitWeighed(request)) return c;
    const bool dataParallelFits = fitsWithin(c, maxGpus);
    const bool dataParallelShort = request.gpuCountAuto
                                       ? maxGpus > 1 && (!dataParallelFits || *c.gpusNeeded > 2)
                                       : !c.fits && request.gpuCount > 1 && request.gpuCount <= oneMachine(request);
    if (!dataParallelShort) return c;
    // Where the data-parallel plan fits, only a split on fewer GPUs is chosen.
    const int splitLimit = request.gpuCountAuto && dataParallelFits ? *c.gpusNeeded - 1 : maxGpus;
    Scenario split = request;
    split.parallel.strategy = Strategy::LayerSplit;
    if (request.gpuCountAuto && !splitMayFitWithin(split, splitLimit, held)) return c;
    // Counts beyond one machine are no device_map's.
    auto withinMachine = [&](Choice& ch) {
        if (ch.gpusNeeded && *ch.gpusNeeded > oneMachine(request)) {
            ch.gpusNeeded.reset();
            if (request.gpuCountAuto) ch.fits = false;
        }
        return std::move(ch);
    };
    Choice first = chooseTraining(split, splitLimit, held);
    Choice best = withinMachine(first);
    bool fused = false;
    const bool eagerShort = request.gpuCountAuto ? !best.gpusNeeded || *best.gpusNeeded > 2 : !best.fits;
    if (fusedLossWeighed(request) && eagerShort) {
        split.lossKernel = LossKernel::FusedLinear;
        Choice fc = chooseTraining(split, splitLimit, held);
        Choice f = withinMachine(fc);
        if (splitBetter(request, f, best) ||
            (!request.gpuCountAuto && f.gpusNeeded && (!best.gpusNeeded || *f.gpusNeeded < *best.gpusNeeded))) {
            best = std::move(f);
            fused = true;
        }
    }
    // At a stated count a split that needs fewer GPUs than the data-parallel
    // plans comes closest even where it does not fit: it is shown, with the
    // fewest GPUs it needs.
    const bool fewer = best.gpusNeeded && (!c.gpusNeeded || *best.gpusNeeded < *c.gpusNeeded);
    if (!splitBetter(request, best, c) && (request.gpuCountAuto || !fewer)) return c;
    if (!fewer) best.gpusNeeded = c.gpusNeeded;
    if (fused) {
        best.lossKernel = LossKernel::FusedLinear;
        best.why.push_back("loss_fused_linear_to_fit");
    }
    best.why.push_back("layer_split_to_fit");
    return best;
}

// DeepSpeed ZeRO-Offload (Ren et al., arXiv 2101.06840; DeepSpeed's
// zero_optimization {"stage": 2, "offload_optimizer": {"device": "cpu"}},
// which Hugging Face Trainer runs through its DeepSpeed integration): the
// fp32 master weights, the Adam moments and the gradients live in host RAM
// and the optimizer step runs on the CPU (DeepSpeedCPUAdam), so a GPU holds
// the 16-bit weights, the activations and the buckets only. Weighed for a
// full fine-tune or pre-training on transformers or DeepSpeed where the
// request leaves the strategy and the offload to the planner, on GPUs with
// a host RAM of their own (not unified memory). The host RAM, stated or the
// platform's default (host.basis), bounds it: a plan is not moved onto RAM
// the machine is only assumed to lack.
// LoRA on a 16-bit base is weighed too, for ZeRO-Infinity only
// (loraInfinityOnly): PEFT's DeepSpeed guide runs LoRA under ZeRO-3 with
// offload_param and offload_optimizer on "cpu" (peft docs/source/accelerate/
// deepspeed.md, "ZeRO-3 and CPU offloading"), the frozen base streamed in as
// a trained one is, so the plans open to a full fine-tune are open to its
// LoRA; a k-bit base (QLoRA, int8) is not offloaded by DeepSpeed.
bool zeroOffloadWeighed(const Scenario& s) {
    const bool method = s.method == Method::Full ||
                        (s.method == Method::Lora && s.task == Task::Finetune &&
                         (s.weights == WeightFormat::Bf16 || s.weights == WeightFormat::Fp16));
    return training(s) && method &&
           (s.engine == Engine::Transformers || runtimeOf(s.engine) == Engine::Deepspeed) &&
           s.parallel.strategy == Strategy::Auto && !s.parallel.offloadExplicit && s.parallel.offload == Offload::None &&
           s.model.workload == WorkloadKind::Llm && s.parallel.tp <= 1 && s.parallel.pp <= 1 && s.parallel.cp <= 1 &&
           !unifiedMemory(s.gpu);
}

// The request moved to ZeRO-Offload (ZeRO-2, offload_optimizer) or, with
// `params`, to ZeRO-Infinity's CPU offload (ZeRO-3 with offload_param and
// offload_optimizer on "cpu"), bounded by the host RAM, stated or assumed.
// ZeRO-Offload (ZeRO-2) moves a LoRA's adapter states only, a few GiB at
// most, while every GPU keeps the whole frozen base: only ZeRO-Infinity,
// which moves the base, is weighed for it.
bool loraInfinityOnly(const Scenario& s) { return s.method != Method::Full; }

Scenario offloaded(const Scenario& request, bool params) {
    Scenario off = request;
    off.parallel.offload = params ? Offload::Parameters : Offload::Optimizer;
    off.parallel.strategy = params ? Strategy::Zero3 : Strategy::Zero2;
    off.host.ramBinding = true;
    return off;
}

// `at` set to `count` GPUs with its leanest knobs (one sequence a
// micro-batch, checkpointing where the planner decides it), with `loss`
// where given: its memory (one evaluation).
MemoryBreakdown leanMemory(Scenario& at, int count, const sizing::ModelFigures* held,
                           std::optional<LossKernel> loss = std::nullopt) {
    at.gpuCountAuto = false;
    at.gpuCount = count;
    if (at.batchAuto) at.batch = 1;
    if (at.gradientCheckpointingAuto) at.gradientCheckpointing = true;
    if (loss) at.lossKernel = loss;
    const sizing::Inputs in = sizing::prepare(at, held);
    const Plan plan = sizing::planFor(in, count);
    return sizing::evaluate(in, plan, sizing::Explain(), nullptr);
}

// The fewest GPUs whose host RAM holds `wholeJobGiB` spread over their
// nodes (plan.nodes: the count over gpus_per_node), each node's RAM as the
// fit test reads it (hostShare): a rented share of a server grows with the
// GPUs a plan runs on it, and more servers share the RAM a job needs.
int countForHost(const Scenario& off, double wholeJobGiB) {
    const int perServer = std::max(1, off.gpu.gpusPerNode);
    for (int count = 1; count <= kMaxGpus; ++count) {
        const int nodes = (count + perServer - 1) / perServer;
        if (wholeJobGiB / nodes <= hostShare(off, count, nodes).ramGib + 1e-9) return count;
    }
    return kMaxGpus + 1;
}

// The offloaded plan `off` at `count` GPUs, as a stated count chooses it.
Choice offloadAt(const Scenario& off, int count, int maxGpus, const sizing::ModelFigures* held) {
    Scenario at = off;
    at.gpuCountAuto = false;
    at.gpuCount = count;
    return chooseDataParallel(at, maxGpus, held);
}

// `o`, a plan at a count the search picked (not the request's), with the
// fewest GPUs that fit and the reason for its count.
Choice fewestAt(Choice o, std::optional<int> gpusNeeded, const char* why) {
    o.gpusNeeded = gpusNeeded;
    o.why.replace("count_requested", why);
    return o;
}

// The choice with `off` at the request's count or (`autoCount`) the fewest
// GPUs that fit: the GPUs' count search first, then, where the host RAM is
// what does not fit (a rented share of a server grows with its GPUs), the
// fewest GPUs whose share holds it, stepped up while the RAM a plan needs
// grows with its count (ZeRO-2's fp32 gradient partitions).
// `first`, where given, is a count tried before the search: ZeRO-3's
// working set on a GPU does not shrink with the count, so the fewest GPUs
// whose host RAM holds its states are its fewest.
Choice offloadChoice(Scenario off, bool autoCount, int maxGpus, const sizing::ModelFigures* held, int first = 0) {
    if (!autoCount) return chooseDataParallel(off, maxGpus, held);
    if (first > 0 && first <= std::min(maxGpus, kMaxGpus)) {
        Choice o = offloadAt(off, first, maxGpus, held);
        if (o.fits) return fewestAt(std::move(o), first, "count_fewest_that_fit");
    }
    off.gpuCountAuto = true;
    off.gpuCount = 1;
    Choice c = chooseDataParallel(off, maxGpus, held);
    if (c.fits || !c.gpusNeeded) return c;
    int count = std::max(1, c.plan.gpuCount);
    double wholeGiB = c.memory.cpuOffloadGiB;
    for (int tries = 0; tries < 8; ++tries) {
        const int next = std::max(count + 1, countForHost(off, wholeGiB));
        if (next > std::min(maxGpus, kMaxGpus)) break;
        Choice o = offloadAt(off, next, maxGpus, held);
        if (o.fits) return fewestAt(std::move(o), next, "count_fewest_that_fit");
        count = next;
        wholeGiB = o.memory.cpuOffloadGiB;
    }
    return c;
}

// Past one server an offloaded "auto" count takes whole servers too
// (wholeNodes, replicas.hpp: clusters are rented and scheduled by the
// node): the first multiple of GPUs per node whose plan fits within the
// limit, else the fewest that fit as they are. gpus_needed stays the fewest.
void offloadToWholeNodes(const Scenario& off, Choice& o, int maxGpus, const sizing::ModelFigures* held) {
    const int count = std::max(1, o.plan.gpuCount);
    for (int n = wholeNodes(off, count), step = 0; n > count && n <= std::min(maxGpus, kMaxGpus) && step < kWholeNodeSteps;
         n += std::max(1, off.gpu.gpusPerNode), ++step) {
        Choice w = offloadAt(off, n, maxGpus, held);
        if (!w.fits) continue;
        o = fewestAt(std::move(w), o.gpusNeeded, "count_whole_nodes");
        return;
    }
}

// Whether `o`, an offloaded plan, sits within the band of the memory
// estimate's error at the top of its GPUs (the matrix's "tight" verdict,
// calibration/ranges.cpp): a plan at 0% headroom is not one a practitioner
// runs, so it does not displace a GPU-only plan that fits. Where the
// planner fills the GPUs with the largest micro-batch that fits, the plan
// is judged at its leanest, which it could run instead: one sequence a
// micro-batch and, where the planner decides it, checkpointing on.
bool knifeEdge(const Scenario& off, const Choice& o, int maxGpus, const sizing::ModelFigures* held) {
    const std::optional<double> top = memoryBandTopFactor(off);
    if (!top) return false;
    const double usable = usableMemoryGiB(off);
    if (!tightFit(o.memory.totalGiB, o.memory.kvPoolGib.has_value(), usable, top)) return false;
    const bool leaner = (off.batchAuto && o.plan.microBatch > 1) || (off.gradientCheckpointingAuto && !o.gradientCheckpointing);
    if (!leaner) return true;
    Scenario one = off;
    if (one.batchAuto) {
        one.batchAuto = false;
        one.batch = 1;
    }
    if (one.gradientCheckpointingAuto) {
        one.gradientCheckpointingAuto = false;
        one.gradientCheckpointing = true;
    }
    one.gpuCountAuto = false;
    one.gpuCount = std::max(1, o.plan.gpuCount);
    const Choice c = chooseDataParallel(one, maxGpus, held);
    return !c.fits || tightFit(c.memory.totalGiB, c.memory.kvPoolGib.has_value(), usable, top);
}

// ZeRO-Infinity's host RAM bounds its count from below (18 B a parameter x
// DeepSpeed's 1.5, whole job; the GPUs hold a working set only): weighed
// only where that count is fewer than `c`'s and within the limit. The
// count, or 0 where it is not weighed.
// ZeRO-Infinity's GPUs each hold one gathered working set whatever their
// count (the largest module, the live parameters, one micro-batch's
// activations: memory/training.cpp with offload_param), and more GPUs add
// only buffers: where its leanest plan overflows one GPU with the engine's
// loss and with the chunked one the planner may weigh, it fits at no count
// (0, most matrix cells that need several GPUs).
// (One copy of the request, set to its leanest plan for the probes.)
int infinityFirstCount(const Scenario& request, const Choice& c, int maxGpus, const sizing::ModelFigures* held) {
    const bool chunkedWeighed = !request.lossKernel && chunkedNllLossRuns(request) &&
                                !(held && sizing::chunkedNllNoLighter(request, held->shape));
    Scenario lean = offloaded(request, true);
    const MemoryBreakdown one = leanMemory(lean, 1, held);
    if (!sizing::fits(lean, one) && (!chunkedWeighed || !sizing::fits(lean, leanMemory(lean, 1, held, LossKernel::ChunkedNll)))) {
        return 0;
    }
    // The host RAM is the request's and the GPUs' (hostShare), which the lean knobs leave as they were.
    const int fewest = countForHost(lean, one.cpuOffloadGiB);
    return fewest <= maxGpus && (!fitsWithin(c, maxGpus) || fewest < *c.gpusNeeded) ? fewest : 0;
}

// By the default objective, fewest GPUs first, then the fastest: the
// offloaded plan replaces the GPU-only choice `c` where it fits on fewer
// GPUs (within the limit), or where `c` does not fit within the limit (an
// "auto" count) or at the stated count. Within a count it never does where
// `c` fits: the CPU step and the PCIe transfers only make it slower. So
// nothing is evaluated where `c` fits on one GPU, at its stated count, or
// where one GPU's 16-bit weights and fewest activations already overflow
// (ZeRO-2 keeps the weights whole on every GPU): most matrix cells.
// ZeRO-Offload (ZeRO-2) comes first; where it does not fit, ZeRO-3 with
// parameters and optimizer in host RAM (ZeRO-Infinity's CPU offload), whose
// GPUs hold one gathered working set and stream the parameters over PCIe.
// An offloaded plan within the memory estimate's band of the top (tight)
// does not replace a GPU-only plan that fits within the limit.
// gpus_needed is the fewer of the searches', so that the fewest GPUs that
// fit are those of one rule at every count. At a stated count where the
// GPUs hold the offloaded plan but the host RAM does not, it is shown, not
// fitting, with the RAM it needs (host_ram_too_small).
Choice withZeroOffload(const Scenario& request, int maxGpus, const sizing::ModelFigures* held, Choice c) {
    if (!zeroOffloadWeighed(request)) return c;
    const bool gpuOnlyOnOne = fitsWithin(c, maxGpus) && *c.gpusNeeded <= 1;
    if (gpuOnlyOnOne || (!request.gpuCountAuto && c.fits)) return c;
    const bool gpuOnlyFits = fitsWithin(c, maxGpus);
    auto mark = [](Choice& o, bool params) {
        o.plan.statesOnHost = true;
        o.plan.paramsOnHost = params;
        o.why.push_back(params ? "zero_infinity_to_fit" : "zero_offload_to_fit");
    };
    // The fewest GPUs of each offload (auto count), ZeRO-2 first. Each
    // offload's request is made only where it is weighed: ZeRO-2's not for a
    // LoRA, ZeRO-3's not at an "auto" count that its probe rules out (a copy
    // of the request on every cell that comes this far).
    std::optional<Scenario> off2;
    if (!loraInfinityOnly(request)) off2 = offloaded(request, false);
    std::optional<Choice> fewest;
    bool params = false;
    if (off2 && weightsMayFit(*off2, held)) {
        Choice f = offloadChoice(*off2, true, maxGpus, held);
        if (fitsWithin(f, maxGpus)) fewest = std::move(f);
    }
    // Liger's fused linear loss, where the request states it, does not run
    // under ZeRO-3 (plan.cpp defaultStrategy): no ZeRO-Infinity with it.
    const bool infinityRuns = lossKernelOf(request) != LossKernel::FusedLinear;
    const int infinityFirst = fewest || !infinityRuns ? 0 : infinityFirstCount(request, c, maxGpus, held);
    if (request.gpuCountAuto && !fewest && infinityFirst == 0) return c;
    const Scenario off3 = offloaded(request, true);
    if (infinityFirst > 0) {
        Choice f = offloadChoice(off3, true, maxGpus, held, infinityFirst);
        if (fitsWithin(f, maxGpus)) {
            fewest = std::move(f);
            params = true;
        }
    }
    // An "auto" count that no offload fits keeps the GPU-only choice.
    if (request.gpuCountAuto && !fewest) return c;
    // The request of the offloaded plan (its loss as chosen below).
    std::optional<Scenario> chunkedOff;
    const Scenario* off = fewest ? (params ? &off3 : &*off2) : nullptr;
    // A count within the limit that fits with every state on the GPUs (at a
    // stated count that does not fit, the fewest that do).
    const bool gpuOnlyWithin = c.gpusNeeded && *c.gpusNeeded <= maxGpus;
    // An offloaded plan at the top of the band with the engine's loss may
    // run off it with TRL's chunked NLL loss, whose working set does not grow
    // with the vocabulary times the tokens: that plan is weighed instead.
    if (fewest && gpuOnlyWithin && !request.lossKernel && chunkedNllLossRuns(request) &&
        knifeEdge(*off, *fewest, maxGpus, held)) {
        chunkedOff = *off;
        chunkedOff->lossKernel = LossKernel::ChunkedNll;
        Choice f = offloadChoice(*chunkedOff, true, maxGpus, held, params ? infinityFirst : 0);
        if (fitsWithin(f, maxGpus) && !knifeEdge(*chunkedOff, f, maxGpus, held)) {
            fewest = std::move(f);
            off = &*chunkedOff;
        }
    }
    // The loss the offloaded plan was made with, where the planner chose it
    // (a plan made for a stated loss does not carry it).
    auto markLoss = [off](Choice& o) {
        if (off->lossKernel != LossKernel::ChunkedNll) return;
        o.lossKernel = LossKernel::ChunkedNll;
        for (const char* code : o.why) {
            if (std::string_view(code) == "loss_chunked_nll_to_fit") return;
        }
        o.why.push_back("loss_chunked_nll_to_fit");
    };
    const bool fewer = fewest && (!gpuOnlyFits || *fewest->gpusNeeded < *c.gpusNeeded) &&
                       !(gpuOnlyWithin && knifeEdge(*off, *fewest, maxGpus, held));
    if (request.gpuCountAuto) {
        if (!fewer) return c;
        Choice o = std::move(*fewest);
        offloadToWholeNodes(*off, o, maxGpus, held);
        mark(o, params);
        markLoss(o);
        return o;
    }
    const std::optional<int> needed = fewer ? fewest->gpusNeeded : c.gpusNeeded;
    // At the stated count: ZeRO-2's offload where the GPUs hold it, else ZeRO-3's.
    for (const bool p : {false, true}) {
        if (!p && (!off2 || !weightsMayFit(*off2, held))) continue;
        const Scenario& at = p ? off3 : *off2;
        if (p && !infinityRuns) continue;
        Choice o = offloadChoice(at, false, maxGpus, held);
        if (!o.fits) {
            // The GPUs may hold it where the host RAM does not.
            Scenario gpusOnly = at;
            gpusOnly.host.ramGib = std::numeric_limits<double>::max();
            if (!offloadChoice(gpusOnly, false, maxGpus, held).fits) continue;
        }
        o.gpusNeeded = needed;
        mark(o, p);
        return o;
    }
    c.gpusNeeded = needed;
    return c;
}

// An inference request's choice. (A function of its own, so that its one
// return builds the choice in the caller's place: chooseUnbanded returns
// several, and a named choice there was copied into the result, a few
// hundred bytes on every matrix cell.)
Choice chooseServing(const Scenario& request, int maxGpus, const sizing::ModelFigures* held) {
    Choice c = chooseKnobs(request, maxGpus, held);
    // At a stated count too, no number of Macs holds what one does not
    // (vllm-metal: one Mac), so there is no count to need.
    if (runsOnOneDevice(request) && c.gpusNeeded && *c.gpusNeeded > 1) c.gpusNeeded.reset();
    return c;
}

Choice chooseUnbanded(const Scenario& request, int maxGpus, const sizing::ModelFigures* held) {
    // vLLM on Apple silicon (the vllm-metal plugin) serves from one Mac
    // (compat.cpp): an "auto" count is that one, and no larger count helps.
    // (Compared as a string_view: a vendor of another length is told apart
    // without a character compare, and this runs for every matrix cell.)
    if (request.gpuCountAuto && request.engine == Engine::Vllm && std::string_view(request.gpu.vendor) == "apple") {
        Scenario one = request;
        one.gpuCountAuto = false;
        one.gpuCount = 1;
        Choice c = choose(one, maxGpus, held);
        if (c.gpusNeeded && *c.gpusNeeded > 1) c.gpusNeeded.reset();
        c.why.replace("count_requested", "count_one_device_engine");
        return c;
    }
    if (request.parallel.offload == Offload::Layers || request.parallel.offload == Offload::MoeExperts) {
        if (!request.gpuCountAuto) return chooseOffload(request);
        if (std::optional<Choice> c = fewestOffloaded(request, maxGpus, false)) return std::move(*c);
        return chooseOffload(request);  // none fits: one GPU's split, which does not fit either
    }
    if (!training(request)) return chooseServing(request, maxGpus, held);
    return withZeroOffload(request, maxGpus, held,
                           withLayerSplit(request, maxGpus, held, chooseDataParallel(request, maxGpus, held)));
}

// Whether `f` beats `than`: at an "auto" count, fewer GPUs; at a stated
// one, a fit where it had none.
bool lossBetter(const Scenario& request, const Choice& f, const Choice& than) {
    return request.gpuCountAuto ? f.gpusNeeded && (!than.gpusNeeded || *f.gpusNeeded < *than.gpusNeeded)
                                : f.fits && !than.fits;
}

// Whether `c` needs more than one GPU (an "auto" count) or does not fit (a
// stated one): only there does a leaner loss matter.
bool lossShort(const Scenario& request, const Choice& c) {
    return request.gpuCountAuto ? !c.gpusNeeded || *c.gpusNeeded > 1 : !c.fits;
}

// The choice with Liger's fused linear loss where it runs and beats `c`.
Choice withFusedLinearLoss(const Scenario& request, int maxGpus, const sizing::ModelFigures* held, Choice c) {
    if (!fusedLossWeighed(request) || !lossShort(request, c) || !weightsMayFit(request, held)) return c;
    Scenario fused = request;
    fused.lossKernel = LossKernel::FusedLinear;
    if (!fusedMayFit(fused, held)) return c;
    Choice f = chooseTraining(fused, maxGpus, held);
    if (!lossBetter(request, f, c)) return c;
    f.lossKernel = LossKernel::FusedLinear;
    f.why.push_back("loss_fused_linear_to_fit");
    return f;
}

// The choice with TRL's chunked NLL loss (loss_kernel "chunked-nll") where
// the request leaves the loss "auto" on a Hugging Face stack and it beats
// `c`, the eager or Liger plan: it runs under every data-parallel strategy,
// ZeRO-3 and its parameter offload included, whose gather hooks Liger's
// kernel bypasses, so a model whose logits outweigh its sharded states
// (a large vocabulary, long sequences, small GPUs) fits where neither does.
Choice withChunkedNllLoss(const Scenario& request, int maxGpus, const sizing::ModelFigures* held, Choice c) {
    if (request.lossKernel || !chunkedNllLossRuns(request) || !lossShort(request, c)) return c;
    if (held && sizing::chunkedNllNoLighter(request, held->shape)) return c;
    Scenario chunked = request;
    chunked.lossKernel = LossKernel::ChunkedNll;
    Choice f = chooseTraining(chunked, maxGpus, held);
    if (!lossBetter(request, f, c)) {
        // At a stated count neither fits: the fewest GPUs are those of
        // either loss, as the planner at that count would choose it.
        if (!request.gpuCountAuto && f.gpusNeeded && (!c.gpusNeeded || *f.gpusNeeded < *c.gpusNeeded)) {
            c.gpusNeeded = f.gpusNeeded;
        }
        return c;
    }
    f.lossKernel = LossKernel::ChunkedNll;
    f.why.push_back("loss_chunked_nll_to_fit");
    return f;
}

Choice chooseDataParallel(const Scenario& request, int maxGpus, const sizing::ModelFigures* held) {
    // The leaner losses only matter where the engine's eager loss needs more
    // than one GPU or does not fit: weighed only there, Liger's first (it
    // recomputes nothing and gathers no head per chunk).
    Choice c = withFusedLinearLoss(request, maxGpus, held, chooseTraining(request, maxGpus, held));
    return withChunkedNllLoss(request, maxGpus, held, std::move(c));
}

}  // namespace

Scenario resolved(const Scenario& request, const Choice& choice) {
    Scenario s = request;
    // Ollama's context is that of the chosen count's VRAM (chooseOllamaContext).
    if (contextFollowsCount(request)) s.gpuCount = std::max(1, choice.plan.gpuCount);
    s.gradientCheckpointing = choice.gradientCheckpointing;
    if (training(request)) s.batch = choice.plan.microBatch;
    if (choice.lossKernel) s.lossKernel = choice.lossKernel;
    if (choice.plan.statesOnHost) {
        s.parallel.offload = choice.plan.paramsOnHost ? Offload::Parameters : Offload::Optimizer;
        s.parallel.strategy = choice.plan.strategy;
    }
    if (choice.plan.layersOnHost) {
        s.parallel.offload = Offload::Layers;
        s.parallel.gpuLayers = choice.plan.gpuLayers;
    }
    // An offloaded plan's count is the one its split was made for (fewestOffloaded).
    const bool offloaded = s.parallel.offload == Offload::Layers || s.parallel.offload == Offload::MoeExperts;
    if (offloaded && request.gpuCountAuto) s.gpuCount = std::max(1, choice.plan.gpuCount);
    return s;
}

}  // namespace caliper::planner
