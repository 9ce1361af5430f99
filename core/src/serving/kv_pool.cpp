// vLLM's start-up memory profile (gpu_worker.determine_available_memory):
// KV pool = gpu_memory_utilization x total memory - weights - the activation
// peak of a profile run at max_num_batched_tokens - non-torch memory.
// SGLang takes mem_fraction_static x total - weights (its default fraction:
// engine_defaults.cpp sglangMemFractionStatic); TensorRT-LLM takes
// kv_cache_free_gpu_mem_fraction (0.9) of what weights and activations leave.
#include "serving/kv_pool.hpp"

#include <algorithm>
#include <cmath>

#include "caliper/model/formats.hpp"
#include "caliper/units.hpp"
#include "plan/workload.hpp"
#include "serving/startup_pool.hpp"

namespace caliper::serving {

namespace {

// TensorRT-LLM KvCacheConfig.free_gpu_memory_fraction default 0.9.
constexpr double kTrtllmFreeFraction = 0.9;
// CUDA context outside every framework's accounting (pytorch#86509: 0.29-0.67 GB).
constexpr double kCudaContextGiB = 0.5;

double roundUp(double value, double step) { return step > 1 ? std::ceil(value / step) * step : std::ceil(value); }

}  // namespace

double tokensPerRequest(const Scenario& s, const StepModel& model) {
    const double prompt = double(std::max<std::int64_t>(0, s.promptTokens));
    // llama.cpp's slot holds the context its cache was sized for
    // (cacheContextTokens: prompt + output, Ollama's num_ctx, which truncates
    // a longer prompt): a pure prompt run (llama-bench -p) writes no
    // generated token, so it needs no cell for one.
    if (runtimeOf(s.engine) == Engine::LlamaCpp) {
        const double own = prompt + double(std::max<std::int64_t>(0, s.outputTokens));
        return std::max(1.0, std::min(own, double(cacheContextTokens(s))));
    }
    const double output = double(std::max<std::int64_t>(1, s.outputTokens));
    // Reserved at admission: the whole request. Allocated on demand: requests
    // of a steady state are spread over their decode, so one holds its prompt
    // and half its output on average, in whole blocks.
    if (model.engine.kvOnDemand) return roundUp(prompt + output / 2.0, model.engine.kvBlockTokens);
    return roundUp(prompt + output, model.engine.kvBlockTokens);
}

std::optional<StartupAccounting> startupAccounting(const Scenario& s, double weightsGiB, double activationsGiB,
                                                   int tensorParallel, int pipelineParallel) {
    const int tp = std::max(1, tensorParallel), pp = std::max(1, pipelineParallel);
    // Attention data parallelism splits the tensor-parallel ranks (step_model.cpp replicaLayout).
    const int adp = s.parallel.attentionDp > 1 && tp % s.parallel.attentionDp == 0 ? s.parallel.attentionDp : 1;
    StartupAccounting a;
    a.nonTorchGiB = nonTorchMemoryGiB(s, tp / adp);
    switch (runtimeOf(s.engine)) {
        case Engine::TensorrtLlm:
            a.fraction = kTrtllmFreeFraction;
            a.fixedGiB = kTrtllmFreeFraction * (weightsGiB + activationsGiB + kCudaContextGiB + a.nonTorchGiB);
            return a;
        case Engine::Sglang:
            a.fraction = s.gpuMemoryUtilizationStated ? s.gpuMemoryUtilization : sglangMemFractionStatic(s, tp, pp);
            if (!s.gpuMemoryUtilizationStated) a.reservedGiB = (1 - a.fraction) * s.gpu.memoryGib;
            a.fixedGiB = weightsGiB + a.nonTorchGiB;
            return a;
        case Engine::Vllm:
            a.fraction = s.gpuMemoryUtilization;
            a.fixedGiB = weightsGiB + activationsGiB + a.nonTorchGiB;
            return a;
        default:
            return std::nullopt;
    }
}

KvPool kvPool(const Scenario& s, const StepModel& model, const MemoryBreakdown& memory) {
    KvPool p;
    const ReplicaLayout& l = model.layout;
    // KV of one token on one GPU: its pipeline stage's layers, its share of heads.
    p.bytesPerToken = model.kvBytesPerTokenOnRank() / l.pp;
    p.nonTorchGiB = nonTorchMemoryGiB(s, l.attentionTp);
    if (runtimeOf(s.engine) == Engine::LlamaCpp) {
        p.poolGiB = memory.kvCacheGiB;  // the context the request sets (-c): allocated whole
    } else if (const auto a = startupAccounting(s, memory.weightsGiB, memory.activationsGiB, l.gpus / l.pp, l.pp)) {
        p.poolGiB = a->poolGiB(s.gpu.memoryGib);
    } else {
        p.poolGiB = s.gpuMemoryUtilization * s.gpu.memoryGib - memory.weightsGiB - memory.activationsGiB - p.nonTorchGiB;
    }
    p.poolGiB = std::max(0.0, p.poolGiB);
    p.maxModelLen = s.engine == Engine::Ollama ? double(ollamaNumCtx(s))
                    : s.maxModelLen ? double(*s.maxModelLen)
                                    : double(std::max<std::int64_t>(1, s.promptTokens + s.outputTokens));
    // llama.cpp sizes its cache for n_ctx, and on sliding-window layers
    // (gpt-oss, Gemma) keeps only the window's cells: a token of context costs
    // the window-weighted average of the layers, not every layer's full KV.
    double bytesPerContextToken = p.bytesPerToken;
    if (runtimeOf(s.engine) == Engine::LlamaCpp && model.work.slidingLayerShare > 0) {
        bytesPerContextToken = model.kvReadOnRank(p.maxModelLen) / p.maxModelLen / l.pp;
    }
    // DeepSeek-V4: each running request also holds every layer's window and
    // the compressors' state, a fixed amount spread here over its tokens.
    if (hasCompressedAttention(s.model) && p.maxModelLen > 0) {
        const double fixed = compressedWindowElementsPerSequence(s.model, p.maxModelLen) * kvBytesPerElement(s.kvCache) +
                             compressorStateBytesPerSequence(s.model);
        bytesPerContextToken += fixed / p.maxModelLen / l.pp;
    }
    if (bytesPerContextToken > 0) {
        const double block = std::max(1.0, model.engine.kvBlockTokens);
        p.tokens = std::floor(gibToBytes(p.poolGiB) / bytesPerContextToken / block) * block;
    }
    p.maxConcurrency = p.maxModelLen > 0 ? p.tokens * l.attentionDp / p.maxModelLen : 0;
    return p;
}

}  // namespace caliper::serving
