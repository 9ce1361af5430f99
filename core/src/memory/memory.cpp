// Per-GPU memory of a scenario under a plan: the fullest GPU's breakdown,
// with the pre-allocated KV pools of the serving engines.
#include "caliper/memory/memory.hpp"

#include <algorithm>

#include "caliper/units.hpp"
#include "memory/overhead.hpp"
#include "plan/prepared.hpp"
#include "memory/sizing.hpp"
#include "memory/accelerate_split.hpp"
#include "serving/startup_pool.hpp"

namespace caliper {

namespace sizing {

namespace {

// Engines without a pre-allocated pool (transformers, llama.cpp, training):
// leave 2% of the device free for the driver and other processes [E];
// fragmentation is counted in the overhead, not here.
constexpr double kFitHeadroom = 0.02;
// TensorRT-LLM's KV pool takes kv_cache_free_gpu_mem_fraction = 0.9 of the
// memory still free after weights and activations (KvCacheConfig default);
// the fraction can be raised, so the fit test allows all of the free memory
// (static-batching benchmarks fill it).
constexpr double kTrtllmFreeFraction = 0.9;
// Far above double rounding and far below any figure shown (GiB): a floor
// must exceed the usable memory by this much before a plan is ruled out
// unevaluated.
constexpr double kFloorMarginGiB = 1e-6;

bool servingPool(const Scenario& s) {
    return s.task == Task::Inference && (runtimeOf(s.engine) == Engine::Vllm || runtimeOf(s.engine) == Engine::Sglang);
}

struct PoolResult {
    double total = 0;  // bytes the process shows
    double slack = 0;  // reserved pool the scenario does not use
    double pool = 0;   // pool size
    bool paged = false;
    // vLLM/SGLang: the batch's KV exceeds the pool, which holds one request
    // of max_model_len at least: the engine starts and runs what fits, the
    // other requests waiting for free blocks (the pool is full: no slack).
    bool queued = false;
};

// vLLM/SGLang reserve gpu_memory_utilization x capacity: whatever weights,
// activations and overhead leave becomes the KV pool, so nvidia-smi shows the
// whole budget when the needed KV fits the pool. TensorRT-LLM fills 90% of
// the free memory. When the KV does not fit, the total is what the GPU would
// need to hold it.
PoolResult applyPool(const Scenario& s, double nonKv, double kv) {
    PoolResult r;
    r.total = nonKv + kv;
    if (s.task != Task::Inference) return r;
    const double capacity = gibToBytes(s.gpu.memoryGib);
    if (servingPool(s)) {
        r.paged = true;
        const double budget = s.gpuMemoryUtilization * capacity;
        r.pool = budget - nonKv;
        if (kv <= r.pool) {
            r.slack = r.pool - kv;
            r.total = budget;
        }
    } else if (runtimeOf(s.engine) == Engine::TensorrtLlm) {
        r.paged = true;
        r.pool = std::max(0.0, kTrtllmFreeFraction * (capacity - nonKv));
        if (kv <= r.pool) {
            r.slack = r.pool - kv;
            r.total = nonKv + r.pool;
        }
    }
    return r;
}

// One GPU's memory in bytes while a stage is evaluated; converted to the
// result's GiB (MemoryBreakdown) once, at the end.
struct StageBytes {
    double weightsBytes = 0;
    double kvCacheBytes = 0;
    double activationsBytes = 0;
    double gradientsBytes = 0;
    double optimizerBytes = 0;
    double adapterBytes = 0;
    double buffersBytes = 0;  // communication buckets
    double hostBytes = 0;     // host RAM

    double allocatedBytes() const {
        return weightsBytes + kvCacheBytes + activationsBytes + gradientsBytes + optimizerBytes + adapterBytes;
    }
};

// `knownWeightBytes` (may be null): the stage's inference weight bytes,
// where the caller has worked them out already; `knownStates` (may be
// null) the same for a training stage's states.
StageBytes stageTensors(const Inputs& in, const Layout& layout, const Stage& st, const Explain& ex,
                        const double* knownWeightBytes, const TrainingStates* knownStates = nullptr) {
    StageBytes t;
    t.hostBytes = in.weights().hostBytes + offloadedWeightBytes(in, layout);
    if (in.training) {
        const TrainingStates states = knownStates ? *knownStates : trainingStates(in, layout, st, ex);
        t.weightsBytes = states.weights;
        t.gradientsBytes = states.gradients;
        t.optimizerBytes = states.optimizer;
        t.adapterBytes = states.adapter;
        t.buffersBytes = states.buffers;
        t.hostBytes += states.hostBytes;
        const double freed = gradientsFreedEachStep(in, layout) ? states.gradients : 0;
        t.activationsBytes = trainingActivationBytes(in, layout, st, ex, freed);
        t.hostBytes += offloadedCheckpointBytes(in, layout, st);
    } else {
        t.weightsBytes = knownWeightBytes ? *knownWeightBytes : weightBytes(in, layout, st, ex);
        t.kvCacheBytes = kvBytes(in, layout, st, ex);
        t.activationsBytes = inferenceActivationBytes(in, layout, st, ex);
        // llama.cpp keeps the KV cache of the layers -ngl leaves on the CPU in
        // host RAM beside their weights (llama-kv-cache.cpp: each layer's
        // cache on its layer's device).
        if (layout.gpuLayers >= 0 && layout.gpuLayers < in.shape().stackLayers) {
            Stage cpu = st;
            cpu.layers = in.shape().stackLayers - layout.gpuLayers;
            t.hostBytes += kvBytes(in, layout, cpu, Explain());
        }
    }
    return t;
}

void explainPool(const Scenario& s, const PoolResult& pool, double kvCacheBytes, const Explain& ex) {
    if (!pool.paged || !ex.on()) return;
    const std::string budget = runtimeOf(s.engine) == Engine::TensorrtLlm
                                   ? std::string("0.9 x the memory left free")
                                   : fmt("gpu_memory_utilization %.2f x %.2f GiB", s.gpuMemoryUtilization, s.gpu.memoryGib);
    ex.add("kv_pool_gib",
           [&] { return fmt("%s pre-allocates its KV pool: %s minus weights, activations and overhead; the scenario needs %.3f GiB "
               "of it%s",
               toString(s.engine), budget.c_str(), bytesToGiB(kvCacheBytes),
               pool.slack > 0 ? "; the rest is reserved and counted in overhead" : ""); },
           std::max(0.0, bytesToGiB(pool.pool)));  // weights beyond the budget leave no pool, not a negative one
    if (pool.slack > 0) {
        ex.add("kv_pool_unused_gib", "reserved pool the scenario leaves free (an allocated tensor, in overhead_gib)",
               bytesToGiB(pool.slack));
    }
}

double nonNegativeGib(double bytes) { return std::max(0.0, bytesToGiB(bytes)); }

// A stage's bytes, overheads and pool: what its breakdown and its fit test
// are made of.
struct StageFigures {
    StageBytes t;
    Overhead o;
    PoolResult pool;
    // The breakdown's total and pool, as the breakdown rounds them: a fit
    // test reads these alone, so a stage that does not fit is ruled out
    // before its breakdown is built (most probes of a count search).
    double totalGiB() const { return nonNegativeGib(pool.total); }
};

// vLLM refuses to start where its KV pool cannot hold one request of
// max_model_len tokens ("To serve at least one request with the model's max
// seq len ..., KV cache is needed, which is larger than the available KV
// cache memory": vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory),
// and otherwise allocates blocks as requests arrive, queueing those the free
// blocks do not hold (v1/core/sched/scheduler.py; engine_defaults.cpp
// kVllmKvOnDemand). SGLang clips a request to its pool's tokens
// (max_req_input_len) and admits by free tokens the same way. So a batch
// larger than the pool runs (the pool full), and a pool smaller than one
// request does not, whatever the batch: its total is then what one request
// needs beside the rest.
void admitByBlocks(const Inputs& in, const Layout& layout, const Stage& st, double nonKv,
                   const serving::StartupAccounting& engine, StageFigures& f) {
    const double kv = f.t.kvCacheBytes;
    // Without a stated max_model_len one request is at most the batch's
    // KV divided by the batch: where the batch fits, so does one.
    if (kv <= f.pool.pool && !in.scenario->maxModelLen) return;
    const double one = oneSequenceBytes(in, layout, st);
    if (one > f.pool.pool) {
        // The engine refuses to start: the plan needs the GPU memory at which
        // its accounting leaves one request's KV (more than this GPU has).
        f.pool.slack = 0;
        f.pool.total = std::max({f.pool.total, nonKv + one, gibToBytes(engine.capacityForGiB(bytesToGiB(one)))});
    } else if (kv > f.pool.pool) {
        f.pool.queued = true;
        const double budget = gibToBytes(in.scenario->gpuMemoryUtilization * in.scenario->gpu.memoryGib);
        f.pool.slack = std::max(0.0, budget - nonKv - f.pool.pool);
        f.pool.total = budget;
    }
}

// The engine's own start-up pool (serving/startup_pool.hpp) replaces the
// budget's: one computation for memory.kv_pool_gib, serving.kv_pool_gib and
// the fit verdict. Where the KV fits it, the process keeps its budget.
void applyEnginePool(const Inputs& in, const Layout& layout, const Stage& st, double nonKv, StageFigures& f) {
    const Scenario& s = *in.scenario;
    const std::optional<serving::StartupAccounting> engine =
        serving::startupAccounting(s, bytesToGiB(f.t.weightsBytes), bytesToGiB(f.t.activationsBytes), layout.tp, layout.pp);
    if (!engine) return;
    const double budgetPool = f.pool.pool;  // what the process's budget leaves after the breakdown's tensors
    const double budget = nonKv + budgetPool;
    f.pool.pool = gibToBytes(engine->poolGiB(s.gpu.memoryGib));
    const double kv = f.t.kvCacheBytes;
    if (runtimeOf(s.engine) == Engine::TensorrtLlm) {
        // TensorRT-LLM's fit stays the breakdown's (its fraction can be raised);
        // a batch beyond its pool waits for blocks.
        f.pool.queued = kv > f.pool.pool && f.pool.pool > 0 && kv <= budgetPool;
        return;
    }
    if (kv <= f.pool.pool) {
        // The engine starts and holds the batch: the process shows its
        // budget. Only the tensors outside the pool beyond the budget still
        // rule it out: where the engine's accounting holds the KV the
        // breakdown's own tensors would not leave room for, the engine's
        // rules (a batch a little larger, past the pool, is queued and
        // shows the budget too).
        f.pool.slack = std::max(0.0, budgetPool - kv);
        f.pool.total = nonKv > budget ? nonKv + kv : budget;
    } else {
        f.pool.slack = 0;
        f.pool.total = nonKv + kv;
    }
    admitByBlocks(in, layout, st, nonKv, *engine, f);
}

StageFigures stageFigures(const Inputs& in, const Layout& layout, const Stage& st, const Explain& ex,
                          const double* knownWeightBytes, const TrainingStates* knownStates = nullptr) {
    StageFigures f;
    f.t = stageTensors(in, layout, st, ex, knownWeightBytes, knownStates);
    const double allocatedBytes = f.t.allocatedBytes();
    f.o = runtimeOverhead(in, layout, st, allocatedBytes, f.t.buffersBytes,
                          persistentStateBytes(in, f.t.weightsBytes, f.t.gradientsBytes, f.t.optimizerBytes),
                          in.training ? 0.0 : f.t.activationsBytes);
    const double nonKv = allocatedBytes - f.t.kvCacheBytes + f.o.total();
    f.pool = applyPool(*in.scenario, nonKv, f.t.kvCacheBytes);
    if (f.pool.paged) applyEnginePool(in, layout, st, nonKv, f);
    return f;
}

MemoryBreakdown breakdownOf(const StageFigures& f) {
    const StageBytes& t = f.t;
    const Overhead& o = f.o;
    const PoolResult& pool = f.pool;
    MemoryBreakdown m;
    m.weightsGiB = nonNegativeGib(t.weightsBytes);
    // Queued requests hold no blocks: the pool holds what runs.
    m.kvCacheGiB = nonNegativeGib(pool.queued ? pool.pool : t.kvCacheBytes);
    m.activationsGiB = nonNegativeGib(t.activationsBytes);
    m.gradientsGiB = nonNegativeGib(t.gradientsBytes);
    m.optimizerGiB = nonNegativeGib(t.optimizerBytes);
    m.adapterGiB = nonNegativeGib(t.adapterBytes);
    m.overheadGiB = nonNegativeGib(o.total() + pool.slack);
    m.overheadParts = {nonNegativeGib(o.cudaContext), nonNegativeGib(o.cudaGraphs),     nonNegativeGib(o.nccl),
                       nonNegativeGib(o.buffers),     nonNegativeGib(o.allocator + o.lossBlocks + o.generateTransients),
                       nonNegativeGib(o.varyingLengths)};
    m.totalGiB = f.totalGiB();
    m.cpuOffloadGiB = nonNegativeGib(t.hostBytes);
    if (pool.paged) m.kvPoolGib = nonNegativeGib(pool.pool);
    return m;
}

MemoryBreakdown evaluateStage(const Inputs& in, const Layout& layout, const Stage& st, const Explain& ex,
                              std::vector<Warning>* warnings, const double* knownWeightBytes = nullptr) {
    const Scenario& s = *in.scenario;
    const StageFigures f = stageFigures(in, layout, st, ex, knownWeightBytes);
    const StageBytes& t = f.t;
    const PoolResult& pool = f.pool;
    if (ex.on()) {
        explainPool(s, pool, t.kvCacheBytes, ex);
        explainOverhead(f.o, pool.slack, ex);
    }
    if (warnings && pool.paged && t.kvCacheBytes > pool.pool && pool.pool > 0) {
        warnings->push_back(Warning{"kv_pool_too_small",
                                    pool.queued ? fmt("the KV cache of %lld requests needs %.1f GiB but the pool left after the "
                                                      "weights holds %.1f GiB: %s runs as many as it holds and queues the others "
                                                      "(serving.max_concurrency)",
                                                      static_cast<long long>(s.batch), bytesToGiB(t.kvCacheBytes),
                                                      bytesToGiB(pool.pool), toString(s.engine))
                                                : fmt("the KV cache needs %.1f GiB but the pool left after the weights holds %.1f GiB",
                                                      bytesToGiB(t.kvCacheBytes), bytesToGiB(pool.pool))});
    } else if (warnings && servingPool(s) && s.maxModelLen && pool.pool > 0 &&
               oneSequenceBytes(in, layout, st) > pool.pool) {
        warnings->push_back(Warning{"kv_pool_too_small",
                                    fmt("one request of max_model_len %lld tokens needs %.1f GiB of KV cache but the pool "
                                        "left after the weights holds %.1f GiB: %s refuses to start",
                                        static_cast<long long>(*s.maxModelLen), bytesToGiB(oneSequenceBytes(in, layout, st)),
                                        bytesToGiB(pool.pool), toString(s.engine))});
    }
    return breakdownOf(f);
}

// Whether the last stage (b) is fuller than the first (a). Both stages
// filled to the engine's budget (a paged pool that holds the KV) show the
// same total: the one with the smaller pool is the fuller, since vLLM sizes
// every worker's KV blocks by the smallest pool. (Read from the stages'
// figures, as their breakdowns round them.)
bool lastFuller(const StageFigures& a, const StageFigures& b) {
    const bool tied = a.totalGiB() == b.totalGiB() && a.pool.paged && b.pool.paged;
    return tied ? nonNegativeGib(b.pool.pool) < nonNegativeGib(a.pool.pool) : b.totalGiB() > a.totalGiB();
}

}  // namespace

namespace {

// accelerate's device_map="auto" split: the fullest of its GPUs
// (accelerate_split.cpp).
MemoryBreakdown evaluateAccelerate(const Inputs& in, const Layout& layout, const AccelerateStages& split,
                                   const Explain& ex, std::vector<Warning>* warnings) {
    const Explain quiet;
    int fullest = 0;
    StageFigures most = stageFigures(in, layout, split.stages[0], quiet, nullptr);
    for (int i = 1; i < split.count; ++i) {
        StageFigures f = stageFigures(in, layout, split.stages[i], quiet, nullptr);
        if (f.totalGiB() > most.totalGiB()) {
            most = f;
            fullest = i;
        }
    }
    const Stage& st = split.stages[std::size_t(fullest)];
    ex.add("fullest_gpu", [&] { return fmt("accelerate device_map=\"auto\" over %d GPUs: GPUs but the last capped at total/%d + "
                                           "1.25 layers, GPU 0 less the largest module, filled in order; the fullest is %s "
                                           "(%.0f layers%s%s)",
                                           layout.pp, layout.pp,
                                           fullest == 0 ? "GPU 0" : fullest == split.count - 1 ? "the last GPU" : "a middle GPU",
                                           st.layers, st.first ? ", the embeddings" : "",
                                           st.last ? ", lm_head and the logits" : ""); },
           most.totalGiB());
    return evaluateStage(in, layout, st, ex, warnings);
}

}  // namespace

MemoryBreakdown evaluate(const Inputs& in, const Plan& plan, const Explain& ex, std::vector<Warning>* warnings) {
    const Layout layout = layoutOf(plan);
    if (layout.layerSplit && layout.pp > 1) {
        if (const std::optional<AccelerateStages> split = accelerateStages(in, layout)) {
            return evaluateAccelerate(in, layout, *split, ex, warnings);
        }
    }
    const Stage first = firstStage(in, layout);
    if (layout.pp == 1) return evaluateStage(in, layout, first, ex, warnings);
    const Stage last = lastStage(in, layout);
    const Explain quiet;
    const StageFigures a = stageFigures(in, layout, first, quiet, nullptr);
    const StageFigures b = stageFigures(in, layout, last, quiet, nullptr);
    const bool lastFullest = lastFuller(a, b);
    if (!ex.on() && !warnings) return breakdownOf(lastFullest ? b : a);
    const Stage& fullest = lastFullest ? last : first;
    ex.add("fullest_gpu", [&] { return fmt("pipeline stage %s (%.1f layers%s) of %d; the first holds the embeddings%s",
                              &fullest == &last ? "last" : "first", fullest.layers,
                              &fullest == &last ? ", lm_head and logits" : "", layout.pp,
                              layout.layerSplit ? "" : " and most micro-batches in flight"); },
           std::max(a.totalGiB(), b.totalGiB()));
    return evaluateStage(in, layout, fullest, ex, warnings);
}

bool kvQueued(const Inputs& in, const Plan& plan) {
    if (!servingPool(*in.scenario)) return false;
    const Layout layout = layoutOf(plan);
    const Explain quiet;
    if (stageFigures(in, layout, firstStage(in, layout), quiet, nullptr).pool.queued) return true;
    return layout.pp > 1 && stageFigures(in, layout, lastStage(in, layout), quiet, nullptr).pool.queued;
}

bool fits(const Scenario& s, const MemoryBreakdown& memory) {
    return memory.totalGiB <= usableMemoryGiB(s) + kFitToleranceGiB;
}

bool floorOverflows(const Inputs& in, double bytes, double fixedBytes) {
    return bytesToGiB(bytes + fixedBytes) > in.usableGiB + kFloorMarginGiB;
}

namespace {

// The fit test of a stage's figures (fits(), on the total its breakdown shows).
bool withinUsable(const Inputs& in, const StageFigures& f) { return f.totalGiB() <= in.usableGiB + kFitToleranceGiB; }

}  // namespace

bool stageFits(const Inputs& in, const Layout& layout, const Stage& stage) {
    return withinUsable(in, stageFigures(in, layout, stage, Explain(), nullptr));
}

std::optional<MemoryBreakdown> evaluateIfFits(const Inputs& in, const Plan& plan) {
    const Layout layout = layoutOf(plan);
    if (layout.layerSplit && layout.pp > 1 && accelerateStages(in, layout)) {
        MemoryBreakdown m = evaluate(in, plan, Explain(), nullptr);
        if (!fits(*in.scenario, m)) return std::nullopt;
        return m;
    }
    const Explain quiet;
    const Stage first = firstStage(in, layout);
    const Stage last = lastStage(in, layout);
    // A stage holds at least its weights (training: its states, i.e.
    // weights, gradients, optimizer, adapters and buffers) and the overheads
    // every stage holds (CUDA context, captured graphs, NCCL buffers): the
    // KV cache and activations only add to them (both >= 0: a training step
    // that frees gradients keeps at least the end of backward), so do the
    // allocator's reserves, and a serving pool's total is never below what
    // is allocated outside it (applyPool). So where those alone overflow, on
    // the first or on the last stage, the plan does not fit: the last stage
    // is ruled out as the fullest too, since a total above the usable
    // memory is above a fitting first stage's (lastFuller). The rest (the
    // activations above all) is then not worked out. The margin keeps
    // rounding on the side of a full evaluation.
    // Past the floors the stages' breakdowns are built only for the fullest,
    // where it fits (the fit test and the choice of the fullest read the
    // totals and pools alone, fits and lastFuller, worked out as the
    // breakdown works them out). The stages' weight bytes (serving) or
    // states (training), worked out for the floors, are passed on.
    auto fullestIfFits = [&](const double* firstWeightBytes, const double* lastWeightBytes,
                             const TrainingStates* firstStates,
                             const TrainingStates* lastStates) -> std::optional<MemoryBreakdown> {
        const StageFigures a = stageFigures(in, layout, first, quiet, firstWeightBytes, firstStates);
        // The fullest GPU holds at least what the first stage holds: where
        // that overflows, the last stage need not be evaluated.
        if (!withinUsable(in, a)) return std::nullopt;
        if (layout.pp == 1) return breakdownOf(a);
        const StageFigures b = stageFigures(in, layout, last, quiet, lastWeightBytes, lastStates);
        const StageFigures& fullest = lastFuller(a, b) ? b : a;
        if (!withinUsable(in, fullest)) return std::nullopt;
        return breakdownOf(fullest);
    };
    const double fixedBytes = fixedOverhead(in, layout).total();
    auto overflows = [&](double bytes) { return floorOverflows(in, bytes, fixedBytes); };
    if (in.training) {
        auto statesBytes = [](const TrainingStates& t) {
            return t.weights + t.gradients + t.optimizer + t.adapter + t.buffers;
        };
        const TrainingStates firstStates = trainingStates(in, layout, first, quiet);
        if (overflows(statesBytes(firstStates))) return std::nullopt;
        if (layout.pp == 1) return fullestIfFits(nullptr, nullptr, &firstStates, nullptr);
        const TrainingStates lastStates = trainingStates(in, layout, last, quiet);
        if (overflows(statesBytes(lastStates))) return std::nullopt;
        return fullestIfFits(nullptr, nullptr, &firstStates, &lastStates);
    }
    const double firstWeightBytes = weightBytes(in, layout, first, quiet);
    if (overflows(firstWeightBytes)) return std::nullopt;
    if (layout.pp == 1) return fullestIfFits(&firstWeightBytes, nullptr, nullptr, nullptr);
    const double lastWeightBytes = weightBytes(in, layout, last, quiet);
    if (overflows(lastWeightBytes)) return std::nullopt;
    return fullestIfFits(&firstWeightBytes, &lastWeightBytes, nullptr, nullptr);
}

}  // namespace sizing

MemoryEstimate estimateMemory(const Scenario& scenario, const Plan& plan, bool withExplain) {
    return estimateMemory(sizing::prepare(scenario), plan, withExplain);
}

MemoryEstimate estimateMemory(const sizing::Inputs& in, const Plan& plan, bool withExplain) {
    MemoryEstimate out;
    const sizing::Explain ex(withExplain ? &out.explain : nullptr);
    out.memory = sizing::evaluate(in, plan, ex, &out.warnings);
    const MemoryBreakdown& m = out.memory;
    ex.add("total_gib",
           [&] { return sizing::fmt("weights %.3f + KV %.3f + activations %.3f + gradients %.3f + optimizer %.3f + adapters %.3f + "
                       "overhead %.3f GiB per GPU: what nvidia-smi shows for the fullest of %d GPU(s)",
                       m.weightsGiB, m.kvCacheGiB, m.activationsGiB, m.gradientsGiB, m.optimizerGiB, m.adapterGiB,
                       m.overheadGiB, plan.gpuCount); },
           m.totalGiB);
    return out;
}

double usableMemoryGiB(const Scenario& s) {
    if (sizing::servingPool(s)) return s.gpuMemoryUtilization * s.gpu.memoryGib;
    if (s.task == Task::Inference && runtimeOf(s.engine) == Engine::TensorrtLlm) return s.gpu.memoryGib;
    return s.gpu.memoryGib * (1 - sizing::kFitHeadroom);
}

bool fitsMemory(const Scenario& scenario, const MemoryBreakdown& memory) { return sizing::fits(scenario, memory); }

}  // namespace caliper
