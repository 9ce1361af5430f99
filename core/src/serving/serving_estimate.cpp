// The result's `serving` object: the KV pool at start-up, then the steady
// state of the engine's continuous batching at the request's concurrency.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "caliper/serving/estimate_serving.hpp"
#include "serving/evaluator.hpp"
#include "speed/efficiency.hpp"

namespace caliper {

namespace {

std::string text(const char* format, double a, double b = 0) {
    char buffer[400];
    std::snprintf(buffer, sizeof buffer, format, a, b);
    return buffer;
}

}  // namespace

bool continuousBatching(const Scenario& s) {
    if (s.task != Task::Inference) return false;
    return runtimeOf(s.engine) == Engine::Vllm || runtimeOf(s.engine) == Engine::Sglang || runtimeOf(s.engine) == Engine::TensorrtLlm ||
           runtimeOf(s.engine) == Engine::LlamaCpp;
}

bool servingFiguresKnown(const Scenario& s) {
    return s.model.layers > 0 && s.gpu.bandwidthGBps > 0 && matmulPeak(s.engine, s.weights, s.gpu).tflops > 0;
}

std::optional<ServingFigures> estimateServing(const Scenario& s, const Plan& plan, const MemoryBreakdown& memory,
                                              std::vector<ExplainTerm>* explain, std::vector<Warning>* warnings) {
    if (!continuousBatching(s) || !servingFiguresKnown(s)) return std::nullopt;
    // Layers or experts on the CPU (llama.cpp -ngl, --n-cpu-moe): the step
    // model runs every layer on the GPUs, and its KV pool counts only the GPU
    // layers' cache, so it would answer a GPU-only speed and a pool that holds
    // no request. The estimate's own decode and TTFT carry the host's share.
    const bool layersOnCpu = s.parallel.offload == Offload::Layers && plan.gpuLayers >= 0 &&
                             plan.gpuLayers < s.model.layers + std::max(0, s.model.encoderLayers);
    const bool expertsOnCpu = s.parallel.offload == Offload::MoeExperts && plan.cpuMoeLayers > 0;
    if (layersOnCpu || expertsOnCpu) return std::nullopt;
    const serving::Evaluator evaluator(s, plan, memory);
    if (!evaluator.runs()) {
        // One warning per code (the page shows each code's text once). The
        // engine's own start-up pool decides here: it subtracts the memory
        // outside PyTorch its profile sees (NCCL and all-reduce buffers at
        // tp >= 2), which the memory breakdown's pool does not, so a
        // memory-side text that points at serving.max_concurrency (null now)
        // gives way to this one.
        const serving::KvPool& pool = evaluator.pool();
        const Warning w{"kv_pool_too_small",
                        text("the engine's own KV pool at start-up (after %.2f GiB outside PyTorch) holds %.2f GiB per GPU, "
                             "less than one request of max_model_len: the engine refuses to start at this memory "
                             "fraction (gpu_memory_utilization), so there are no serving figures",
                             pool.nonTorchGiB, std::max(0.0, pool.poolGiB))};
        if (warnings) {
            const auto said = [](const Warning& x) { return x.code == "kv_pool_too_small"; };
            const auto at = std::find_if(warnings->begin(), warnings->end(), said);
            if (at == warnings->end()) warnings->push_back(w);
            else *at = w;
        }
        return std::nullopt;
    }
    std::optional<ServingFigures> f =
        evaluator.at(double(std::max<std::int64_t>(1, s.batch)), s.serving.requestRatePerS);
    if (!f) return f;
    if (warnings && f->queued && !s.serving.requestRatePerS) {
        warnings->push_back({"requests_queue",
                             text("the KV pool runs %.0f requests at once per replica; the others wait, which TTFT includes",
                                  f->runningPerReplica)});
    }
    if (warnings && f->saturated) {
        warnings->push_back({"request_rate_above_capacity",
                             text("%.3g requests/s arrive but the deployment completes about %.3g: the queue grows",
                                  *s.serving.requestRatePerS, f->requestsPerS)});
    }
    if (explain) {
        const serving::SchedulerDefaults& e = evaluator.model().engine;
        const serving::KvPool& pool = evaluator.pool();
        explain->push_back({"serving_kv_pool_gib",
                            std::string(toString(s.engine)) +
                                " KV pool per GPU: memory fraction x capacity - weights - activation peak - non-torch "
                                "memory (NCCL / all-reduce buffers at tp >= 2)",
                            pool.poolGiB});
        explain->push_back({"serving_non_torch_gib",
                            "memory outside PyTorch the profile subtracts (vLLM 0.19 logs: 0.25 GiB on one GPU, ~2.1 GiB "
                            "with NCCL and custom all-reduce buffers at tp >= 2)",
                            pool.nonTorchGiB});
        explain->push_back({"serving_kv_cache_tokens", "pool bytes / KV bytes per token on one GPU, in whole blocks",
                            pool.tokens});
        explain->push_back({"serving_step_token_budget",
                            "tokens per step (vLLM max_num_batched_tokens, SGLang chunked_prefill_size, TensorRT-LLM "
                            "max_num_tokens, llama.cpp n_batch)",
                            e.stepTokenBudget});
        explain->push_back({"serving_running_requests", "requests decoding together per replica (the pool's limit)",
                            f->runningPerReplica});
        explain->push_back({"serving_ttft_s",
                            s.serving.requestRatePerS
                                ? "own prefill chunks x (1 + rho / (2 (1 - rho))) + half a decode step (+ one step with "
                                  "an overlap scheduler)"
                                : "own prefill chunks + the (C-1)/2 prefills ahead + half a decode step (+ one step with "
                                  "an overlap scheduler; + waiting cycles when the pool is full)",
                            f->ttftS});
        explain->push_back({"serving_ttft_own_prefill_s", "the request's own prefill chunks", f->prefillOwnS});
        explain->push_back({"serving_ttft_wait_s", "prefill work queued ahead of it (and waiting for room in the pool)",
                            f->prefillWaitS});
        explain->push_back({"serving_tpot_ms",
                            "decode step at the running batch (weights, touched experts, KV at the mean context, compute, "
                            "communication, host work) / accepted tokens + the prefill steps that land during the decode",
                            f->tpotMs});
        explain->push_back({"serving_output_tokens_per_s_per_gpu", "replicas x requests/s x output tokens / GPUs",
                            f->outputTokensPerSPerGpu});
    }
    return f;
}

void priceServing(ServingFigures& f, std::optional<double> usdPerHour, double powerW) {
    if (f.outputTokensPerS <= 0) return;
    if (usdPerHour && *usdPerHour > 0) f.usdPerMillionOutputTokens = *usdPerHour / (f.outputTokensPerS * 3600.0) * 1e6;
    if (powerW > 0) f.joulesPerOutputToken = powerW / f.outputTokensPerS;
}

}  // namespace caliper
