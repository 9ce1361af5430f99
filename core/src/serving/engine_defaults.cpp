// Scheduler defaults of the serving engines, each from the engine's source.
#include "serving/engine_defaults.hpp"

#include <algorithm>

#include "calibration/calibration.hpp"

namespace caliper::serving {

namespace {

// vLLM vllm/engine/arg_utils.py EngineArgs.get_batch_defaults (OpenAI API
// server): max_num_batched_tokens 8192 and max_num_seqs 1024 on GPUs with
// >= 70 GiB that are not A100, else 2048 and 256. The budget counts the
// running decodes first, then prefill chunks (V1 scheduler, chunked prefill on).
constexpr double kVllmLargeGpuGiB = 70;
constexpr double kVllmBudgetLarge = 8192, kVllmBudgetSmall = 2048;
constexpr double kVllmSeqsLarge = 1024, kVllmSeqsSmall = 256;
// vLLM CacheConfig block_size default: 16 tokens.
constexpr double kVllmBlockTokens = 16;
// SGLang python/sglang/srt/server_args.py: chunked_prefill_size 2048 below
// 35 GiB (A10, L40, 4090), 8192 below 160 GiB (H100, H200, A100, H20), 16384
// above (B200, MI300); prefill batches run apart from decode batches unless
// --enable-mixed-chunk (enable_mixed_chunk: False). With it the scheduler
// merges the running decodes into the prefill batch and takes their tokens
// out of the prefill budget (managers/scheduler.py get_new_batch_prefill
// passes running_bs as PrefillAdder's mixed_with_decode_tokens;
// schedule_policy.py: rem_input_tokens = max_prefill_tokens - that).
// Page size 1 token.
constexpr double kSglangSmallGiB = 35, kSglangLargeGiB = 160;
// SGLang max_running_requests defaults to the pool's capacity; its CUDA
// graphs cover decode batches up to cuda_graph_max_bs (160-512).
constexpr double kSglangMaxRunning = 4096;
// TensorRT-LLM: max_num_tokens 8192 and max_batch_size 2048 (LLM API
// BuildConfig defaults; "Tuning Max Batch Size and Max Num Tokens" guide);
// in-flight batching mixes context chunks with generation steps;
// tokens_per_block 32 (KvCacheConfig) [E: 32 in the PyTorch backend, 64 in older engines].
constexpr double kTrtllmBudget = 8192, kTrtllmMaxBatch = 2048, kTrtllmBlockTokens = 32;
// llama.cpp server: n_batch 2048 logical / n_ubatch 512 physical tokens per
// pass (common/common.h), slots = --parallel (tools/server); prompts of the
// slots are batched with the running generations.
constexpr double kLlamaCppBatch = 2048;
// KV admission. vLLM's V1 scheduler allocates a request's blocks as its
// tokens arrive (vllm/v1/core/sched/scheduler.py: kv_cache_manager
// .allocate_slots for the new tokens of each step; when none are free it
// preempts the newest running request and recomputes it later), and so does
// SGLang (python/sglang/srt/managers/schedule_policy.py admits a prompt on
// the tokens free now, keeping a new_token_ratio of the running requests'
// remaining outputs; retract_decode when the pool runs out): the pool holds
// as many requests as their mean occupancy fits. TensorRT-LLM's capacity
// scheduler defaults to GUARANTEED_NO_EVICT (CapacitySchedulerPolicy,
// tensorrt_llm/llmapi/llm_args.py SchedulerConfig), which admits a request
// only when prompt + max output tokens fit.
constexpr bool kVllmKvOnDemand = true, kSglangKvOnDemand = true, kTrtllmKvOnDemand = false;
// Attention-DP balance. TensorRT-LLM's PyExecutor with attention_dp_config
// enable_balance "withholds context for up to attention_dp_config.timeout_iters
// so all ranks start prefill together" (tensorrt_llm/_torch/pyexecutor/
// py_executor.py); its DeepSeek-R1 attention-DP deployments set
// enable_balance true, timeout_iters 60, batching_wait_iters 0 (the
// InferenceMAX / SemiAnalysis benchmark configs). A new prompt on one rank
// therefore waits decode steps until the other ranks hold one too, up to 60
// of them: the prior is the whole timeout, since in a closed loop of equal
// lengths the other ranks' next prompts come a cycle apart, not within it.
// Scaled per engine x GPU generation x format by the calibration
// (serving_adp_balance_wait_steps) on the attention-DP rows (TensorRT-LLM
// DeepSeek-R1/V3 on H200). vLLM and SGLang hold no prompt for balance.
constexpr double kTrtllmAdpBalanceTimeoutSteps = 60;

// Host time per step and per running request per step. Per step [E]: vLLM's
// V1 engine core runs scheduling, input preparation and sampling on the host
// between steps; SGLang and TensorRT-LLM's PyTorch executor schedule in
// Python too; priors by those orders of magnitude. Per running request:
// TensorRT-LLM's PyExecutor measured a 45.11 ms host step with 1536 requests
// per rank (GPT-OSS-120B on GB200, NVIDIA/TensorRT-LLM pull 10273), 29 us per
// request; the other Python schedulers walk their requests the same way, so
// the same prior [E]. Both are scaled by the calibration
// (serving_step_overhead_s, serving_per_sequence_overhead_s).
constexpr double kVllmStepS = 1.0e-3;
constexpr double kSglangStepS = 0.5e-3;
constexpr double kTrtllmStepS = 0.3e-3;
constexpr double kPerSequencePriorS = 29e-6;
// Which engines prepare the next step on the host while the GPU runs the
// current one, so a step takes the longer of the two rather than their sum:
// SGLang's overlap scheduler (on by default since v0.4, "zero-overhead batch
// scheduler"), TensorRT-LLM's PyExecutor._executor_loop_overlap (on unless
// disable_overlap_scheduler). vLLM's async scheduling (vllm-project/vllm
// pull 19970) was opt-in (--async-scheduling) when introduced; later
// releases turn it on where compatible (vllm/config/vllm.py, async_scheduling
// None -> on; vllm-project/vllm issue 27679). The measured rows mix releases
// (0.11-0.18) without saying which ran it, so the model keeps the serial
// host time, which those rows favour (TPOT median in-sample / leave-one-
// engine-x-GPU-out: serial 13.2% / 17.7%, overlapped 14.1% / 21.5%).
constexpr bool kVllmOverlap = false, kSglangOverlap = true, kTrtllmOverlap = true;
// vLLM's largest CUDA graph: min(2 x max_num_seqs, 512) by default
// (vllm/config/compilation.py max_cudagraph_capture_size); the sizes below
// it and the padding: cuda_graph.cpp. SGLang's and TensorRT-LLM's graphs are
// not modelled: their lists vary by release and deployment (aiconfigurator's
// generator passes every size up to max_batch_size).
constexpr double kVllmGraphSeqsFactor = 2, kVllmGraphMaxBatch = 512;

// Time to the first token beyond the step model's own prefill. Priors [E],
// the same for every engine; tools/calibrate fits a scale on each by engine x
// GPU generation x format from measured serving rows (data/calibration.json):
// - a fixed latency per request: HTTP server, tokenizer, scheduling and the
//   streaming of the first token, tens of milliseconds;
// - a factor on the request's own prefill latency, 1 = the step model's;
// - the share of the other users' prompts a new prompt waits behind. A
//   closed loop of equal lengths (ignore_eos) has the synchronized state as a
//   fixed point: requests that start together finish together and come back
//   together (modelscope/evalscope pull 1641 measures it). An engine that
//   runs every waiting prefill before any decode (SGLang without mixed
//   chunks: scheduler.py get_next_batch_to_run, "Run prefill first if
//   possible") keeps the cohort in step: share 1, each prompt waits behind
//   half the others and the rest of their prefill lands in its decode
//   (SGLang 0.5.1 rows on H100: TTFT and TPOT both follow it). Where prompts
//   ride with the decodes, a prompt admitted a step earlier starts decoding
//   a step earlier and the cohort spreads over the cycle; a quarter as the
//   prior there. A prompt never waits behind more than all the others.
constexpr double kRequestOverheadPriorS = 0.05;
constexpr double kPrefillTimeFactorPrior = 1.0;
constexpr double kSynchronizedSharePrior = 0.25;
constexpr double kSynchronizedShareApart = 1.0;

// vLLM 0.19 start-up logs on H100 (llm-d-planner accuracy/results/v0.19.0,
// public-v2.jsonl non_torch_memory): "non-torch forward increase memory"
// 0.24-0.26 GiB on one GPU, 2.06-2.13 GiB at tp 2-4 (NCCL communicator and
// custom all-reduce buffers are allocated outside PyTorch).
constexpr double kNonTorchSingleGiB = 0.25;
constexpr double kNonTorchMultiGiB = 2.1;

}  // namespace

SchedulerDefaults schedulerDefaults(const Scenario& s) { return schedulerDefaults(s, servingCell(s.engine, s.weights, s.gpu)); }

SchedulerDefaults schedulerDefaults(const Scenario& s, const ServingCell& cell) {
    SchedulerDefaults d = stepSchedulerDefaults(s, cell);
    addRequestConstants(d, cell);
    return d;
}

void addRequestConstants(SchedulerDefaults& d, const ServingCell& cell) {
    if (cell.engine < 0) return;
    auto fitted = [&cell](ServingConstant c, double prior) { return calibratedServing(c, cell, prior); };
    d.requestOverheadS = fitted(ServingConstant::RequestOverheadS, kRequestOverheadPriorS);
    d.prefillTimeFactor = fitted(ServingConstant::PrefillTimeFactor, kPrefillTimeFactorPrior);
    const double sharePrior = d.mixesPrefill ? kSynchronizedSharePrior : kSynchronizedShareApart;
    d.synchronizedShare = std::min(1.0, fitted(ServingConstant::SynchronizedShare, sharePrior));
    if (d.adpBalanceWaitSteps > 0) d.adpBalanceWaitSteps = fitted(ServingConstant::AdpBalanceWaitSteps, d.adpBalanceWaitSteps);
}

SchedulerDefaults stepSchedulerDefaults(const Scenario& s, const ServingCell& cell) {
    SchedulerDefaults d = rawSchedulerDefaults(s);
    calibrateStepDefaults(d, cell);
    return d;
}

void calibrateStepDefaults(SchedulerDefaults& d, const ServingCell& cell) {
    d.stepOverheadS = calibratedServing(ServingConstant::StepOverheadS, cell, d.stepOverheadS);
    d.perSequenceOverheadS = calibratedServing(ServingConstant::PerSequenceOverheadS, cell, d.perSequenceOverheadS);
}

SchedulerDefaults rawSchedulerDefaults(const Scenario& s) {
    SchedulerDefaults d = engineSchedulerDefaults(s.engine, s.gpu);
    applyServingKnobs(d, s);
    return d;
}

SchedulerDefaults engineSchedulerDefaults(Engine engine, const GpuSpec& gpu) {
    SchedulerDefaults d;
    const double memory = gpu.memoryGib;
    switch (runtimeOf(engine)) {
        case Engine::Sglang:
            d.stepTokenBudget = memory < kSglangSmallGiB ? 2048 : memory < kSglangLargeGiB ? 8192 : 16384;
            d.maxRunningRequests = kSglangMaxRunning;
            d.kvBlockTokens = 1;
            d.kvOnDemand = kSglangKvOnDemand;
            d.stepOverheadS = kSglangStepS;
            d.perSequenceOverheadS = kPerSequencePriorS;
            d.hostOverlapsGpu = kSglangOverlap;
            break;
        case Engine::TensorrtLlm:
            d.stepTokenBudget = kTrtllmBudget;
            d.maxRunningRequests = kTrtllmMaxBatch;
            d.kvBlockTokens = kTrtllmBlockTokens;
            d.kvOnDemand = kTrtllmKvOnDemand;
            d.stepOverheadS = kTrtllmStepS;
            d.perSequenceOverheadS = kPerSequencePriorS;
            d.hostOverlapsGpu = kTrtllmOverlap;
            d.adpBalanceWaitSteps = kTrtllmAdpBalanceTimeoutSteps;
            break;
        case Engine::LlamaCpp:
            d.stepTokenBudget = kLlamaCppBatch;
            d.maxRunningRequests = 1e9;  // the slots the request sets (batch)
            d.kvBlockTokens = 1;
            break;
        default: {  // vLLM (and engines served the vLLM way)
            const bool large = memory >= kVllmLargeGpuGiB && gpu.name.find("A100") == std::string::npos;
            d.stepTokenBudget = large ? kVllmBudgetLarge : kVllmBudgetSmall;
            d.maxRunningRequests = large ? kVllmSeqsLarge : kVllmSeqsSmall;
            d.kvBlockTokens = kVllmBlockTokens;
            d.kvOnDemand = kVllmKvOnDemand;
            d.stepOverheadS = kVllmStepS;
            d.perSequenceOverheadS = kPerSequencePriorS;
            d.hostOverlapsGpu = kVllmOverlap;
            d.cudaGraphMaxBatch = std::min(kVllmGraphSeqsFactor * d.maxRunningRequests, kVllmGraphMaxBatch);
            // vllm-metal (Apple silicon) runs MLX eagerly: no captured graphs,
            // so no batch padding (vllm-project/vllm-metal README,
            // VLLM_METAL_EAGER_MODE default 1, "disable graph compilation").
            if (gpu.vendor == "apple") d.cudaGraphMaxBatch = 0;
            break;
        }
    }
    return d;
}

void applyServingKnobs(SchedulerDefaults& d, const Scenario& s) {
    // SGLang merges decodes into prefill batches only with --enable-mixed-chunk.
    if (runtimeOf(s.engine) == Engine::Sglang) {
        d.budgetCountsDecodes = s.serving.mixedChunk;
        d.mixesPrefill = s.serving.mixedChunk;
    }
    // The deployment's own step budget (serving.max_num_batched_tokens)
    // replaces the engine's default; a prompt longer than it runs in chunks.
    if (s.serving.maxNumBatchedTokens) d.stepTokenBudget = std::max(1.0, *s.serving.maxNumBatchedTokens);
}

// python/sglang/srt/server_args.py _handle_gpu_memory_settings
// (sgl-project/sglang 469c63e5): (GPU MiB - reserved) / GPU MiB, reserved =
// 512 + 1.5 x max(chunked_prefill_size, 2048) + 2 x cuda_graph_max_bs +
// tp x pp / 8 x 1024 MiB, at least 10 GiB on GPUs above 60 GiB.
// chunked_prefill_size: 2048 below 35 GiB, 4096 below 60, 8192 below 160,
// 16384 above; cuda_graph_max_bs: 8 below 20 GiB, 24 / 80 below 35, 32 / 160
// below 60, 256 / 512 below 160 (tp < 4 / tp >= 4), 512 above.
double sglangMemFractionStatic(const Scenario& s, int tensorParallel, int pipelineParallel) {
    const double mib = s.gpu.memoryGib * 1024.0;
    const int tp = std::max(1, tensorParallel), pp = std::max(1, pipelineParallel);
    const bool wide = tp >= 4;
    double chunk = 16384, graphBs = 512;
    if (mib < 20 * 1024) {
        chunk = 2048, graphBs = 8;
    } else if (mib < 35 * 1024) {
        chunk = 2048, graphBs = wide ? 80 : 24;
    } else if (mib < 60 * 1024) {
        chunk = 4096, graphBs = wide ? 160 : 32;
    } else if (mib < 160 * 1024) {
        chunk = 8192, graphBs = wide ? 512 : 256;
    }
    double reservedMib = 512 + 1.5 * std::max(chunk, 2048.0) + 2 * graphBs + double(tp * pp) / 8 * 1024;
    if (mib > 60 * 1024) reservedMib = std::max(reservedMib, 10.0 * 1024);
    return mib > reservedMib ? (mib - reservedMib) / mib : 0.0;
}

double nonTorchMemoryGiB(const Scenario&, int tensorParallel) {
    return tensorParallel > 1 ? kNonTorchMultiGiB : kNonTorchSingleGiB;
}

}  // namespace caliper::serving
