// Per-GPU memory of a scenario under a plan: the fullest GPU's breakdown,
// with the pre-allocated KV pools of the serving engines.
#include "caliper/memory/memory.hpp"

#include <algorithm>

#include "caliper/units.hpp"
#include "memory/overhead.hpp"
#include "plan/prepared.hpp"
#include "memory/sizing.hpp"

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

StageBytes stageTensors(const Inputs& in, const Layout& layout, const Stage& st, const Explain& ex) {
    StageBytes t;
    t.hostBytes = in.weights.hostBytes + offloadedWeightBytes(in, layout);
    if (in.training) {
        const TrainingStates states = trainingStates(in, layout, st, ex);
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
        t.weightsBytes = weightBytes(in, layout, st, ex);
        t.kvCacheBytes = kvBytes(in, layout, st, ex);
        t.activationsBytes = inferenceActivationBytes(in, layout, st, ex);
        // llama.cpp keeps the KV cache of the layers -ngl leaves on the CPU in
        // host RAM beside their weights (llama-kv-cache.cpp: each layer's
        // cache on its layer's device).
        if (layout.gpuLayers >= 0 && layout.gpuLayers < in.shape.stackLayers) {
            Stage cpu = st;
            cpu.layers = in.shape.stackLayers - layout.gpuLayers;
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

MemoryBreakdown evaluateStage(const Inputs& in, const Layout& layout, const Stage& st, const Explain& ex,
                              std::vector<Warning>* warnings) {
    const Scenario& s = *in.scenario;
    const StageBytes t = stageTensors(in, layout, st, ex);
    const double allocatedBytes = t.allocatedBytes();
    const Overhead o = runtimeOverhead(in, layout, st, allocatedBytes, t.buffersBytes);
    const PoolResult pool = applyPool(s, allocatedBytes - t.kvCacheBytes + o.total(), t.kvCacheBytes);
    if (ex.on()) {
        explainPool(s, pool, t.kvCacheBytes, ex);
        explainOverhead(o, pool.slack, ex);
    }
    if (warnings && pool.paged && t.kvCacheBytes > pool.pool && pool.pool > 0) {
        warnings->push_back(Warning{"kv_pool_too_small",
                                    fmt("the KV cache needs %.1f GiB but the pool left after the weights holds %.1f GiB",
                                        bytesToGiB(t.kvCacheBytes), bytesToGiB(pool.pool))});
    }
    MemoryBreakdown m;
    m.weightsGiB = nonNegativeGib(t.weightsBytes);
    m.kvCacheGiB = nonNegativeGib(t.kvCacheBytes);
    m.activationsGiB = nonNegativeGib(t.activationsBytes);
    m.gradientsGiB = nonNegativeGib(t.gradientsBytes);
    m.optimizerGiB = nonNegativeGib(t.optimizerBytes);
    m.adapterGiB = nonNegativeGib(t.adapterBytes);
    m.overheadGiB = nonNegativeGib(o.total() + pool.slack);
    m.overheadParts = {nonNegativeGib(o.cudaContext), nonNegativeGib(o.cudaGraphs),     nonNegativeGib(o.nccl),
                       nonNegativeGib(o.buffers),     nonNegativeGib(o.allocator + o.lossBlocks), nonNegativeGib(o.varyingLengths)};
    m.totalGiB = nonNegativeGib(pool.total);
    m.cpuOffloadGiB = nonNegativeGib(t.hostBytes);
    if (pool.paged) m.kvPoolGib = nonNegativeGib(pool.pool);
    return m;
}

// Whether the last stage (b) is fuller than the first (a). Both stages
// filled to the engine's budget (a paged pool that holds the KV) show the
// same total: the one with the smaller pool is the fuller, since vLLM sizes
// every worker's KV blocks by the smallest pool.
bool lastFuller(const MemoryBreakdown& a, const MemoryBreakdown& b) {
    const bool tied = a.totalGiB == b.totalGiB && a.kvPoolGib && b.kvPoolGib;
    return tied ? *b.kvPoolGib < *a.kvPoolGib : b.totalGiB > a.totalGiB;
}

}  // namespace

MemoryBreakdown evaluate(const Inputs& in, const Plan& plan, const Explain& ex, std::vector<Warning>* warnings) {
    const Layout layout = layoutOf(plan);
    const Stage first = firstStage(in, layout);
    if (layout.pp == 1) return evaluateStage(in, layout, first, ex, warnings);
    const Stage last = lastStage(in, layout);
    const Explain quiet;
    const MemoryBreakdown a = evaluateStage(in, layout, first, quiet, nullptr);
    const MemoryBreakdown b = evaluateStage(in, layout, last, quiet, nullptr);
    const Stage& fullest = lastFuller(a, b) ? last : first;
    if (!ex.on() && !warnings) return &fullest == &last ? b : a;
    ex.add("fullest_gpu", [&] { return fmt("pipeline stage %s (%.1f layers%s) of %d; the first holds the embeddings%s",
                              &fullest == &last ? "last" : "first", fullest.layers,
                              &fullest == &last ? ", lm_head and logits" : "", layout.pp,
                              layout.layerSplit ? "" : " and most micro-batches in flight"); },
           std::max(a.totalGiB, b.totalGiB));
    return evaluateStage(in, layout, fullest, ex, warnings);
}

bool fits(const Scenario& s, const MemoryBreakdown& memory) {
    return memory.totalGiB <= usableMemoryGiB(s) + kFitToleranceGiB;
}

std::optional<MemoryBreakdown> evaluateIfFits(const Inputs& in, const Plan& plan) {
    const Layout layout = layoutOf(plan);
    const Explain quiet;
    const Stage first = firstStage(in, layout);
    // An inference stage holds at least its weights and the CUDA context
    // (the KV cache, activations and other overheads only add to them, and a
    // serving pool leaves them as they are): where those alone overflow,
    // the rest is not worked out. The margin keeps rounding on the side of
    // a full evaluation.
    if (!in.training && bytesToGiB(weightBytes(in, layout, first, quiet)) + kCudaContextGiB >
                            in.usableGiB + kFloorMarginGiB) {
        return std::nullopt;
    }
    const MemoryBreakdown a = evaluateStage(in, layout, first, quiet, nullptr);
    // The fullest GPU holds at least what the first stage holds: where that
    // overflows, the last stage need not be evaluated.
    if (!fits(in, a)) return std::nullopt;
    if (layout.pp == 1) return a;
    const MemoryBreakdown b = evaluateStage(in, layout, lastStage(in, layout), quiet, nullptr);
    const MemoryBreakdown& fullest = lastFuller(a, b) ? b : a;
    if (!fits(in, fullest)) return std::nullopt;
    return fullest;
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
