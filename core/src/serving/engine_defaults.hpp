#pragma once
// What each serving engine's scheduler does by default: the token budget of
// one step, how many requests run at once, whether prefill chunks ride in
// the same step as decodes, and the host-side cost of one step.
#include "caliper/scenario.hpp"
#include "calibration/calibration.hpp"

namespace caliper::serving {

struct SchedulerDefaults {
    double stepTokenBudget = 8192;  // tokens one forward pass may carry (decodes + prefill chunk)
    bool budgetCountsDecodes = true;  // decode tokens take budget (vLLM, TRT-LLM) or not (SGLang chunk size)
    bool mixesPrefill = true;       // prefill chunks share steps with decodes
    double maxRunningRequests = 256;
    double kvBlockTokens = 16;      // KV pool allocated in blocks of this many tokens
    bool kvOnDemand = false;        // blocks allocated as tokens arrive (vLLM, SGLang) rather than
                                    // reserved for prompt + max output at admission (TensorRT-LLM)
    double stepOverheadS = 0;       // host work per step (scheduling, sampling, output)
    double perSequenceOverheadS = 0;  // host work per running request per step
    bool hostOverlapsGpu = false;   // the host prepares step n+1 while the GPU runs step n
    double requestOverheadS = 0;    // per request before its first token: API server, tokenizer, scheduling, streaming
    double prefillTimeFactor = 1;   // a prompt's prefill latency under serving / the step model's
    double synchronizedShare = 0;   // share of the other users' prompts a new prompt waits behind
                                    // (closed-loop benchmarks keep requests of equal length in step)
    double adpBalanceWaitSteps = 0; // decode steps a new prompt waits under attention DP until every
                                    // rank holds one (TensorRT-LLM attention_dp_config balance); 0: none
    double cudaGraphMaxBatch = 0;   // largest decode batch replayed from a CUDA graph captured at the
                                    // engine's padded size list (cuda_graph.cpp); 0: none modelled
};

// With the calibrated serving constants (data/calibration.json).
SchedulerDefaults schedulerDefaults(const Scenario& scenario);
// The same with the scenario's calibration cell already looked up.
SchedulerDefaults schedulerDefaults(const Scenario& scenario, const ServingCell& cell);
// Only the calibrated constants one engine step's time reads (host work per
// step and per running request); the request-level ones (request overhead,
// prefill time factor, synchronized share) keep their unset defaults.
SchedulerDefaults stepSchedulerDefaults(const Scenario& scenario, const ServingCell& cell);
// The request-level calibrated constants (request overhead, prefill time
// factor, synchronized share) over step defaults whose knobs are applied
// (the share's prior reads whether prompts ride with the decodes).
void addRequestConstants(SchedulerDefaults& defaults, const ServingCell& cell);
// Scales the two step constants above (host work per step and per running
// request) by the cell's calibration.
void calibrateStepDefaults(SchedulerDefaults& defaults, const ServingCell& cell);
// The engine's own defaults and the priors, before calibration.
SchedulerDefaults rawSchedulerDefaults(const Scenario& scenario);
// The same in two parts: what the engine and the GPU set (the same for
// every model of a matrix column), then the request's serving knobs
// (SGLang's mixed chunks, max_num_batched_tokens) over it.
SchedulerDefaults engineSchedulerDefaults(Engine engine, const GpuSpec& gpu);
void applyServingKnobs(SchedulerDefaults& defaults, const Scenario& scenario);

// Memory outside PyTorch's allocator that vLLM's profile subtracts before the
// KV pool (NCCL and custom all-reduce buffers at tp >= 2), GiB per GPU.
double nonTorchMemoryGiB(const Scenario& scenario, int tensorParallel);

// SGLang's default mem_fraction_static (weights + KV pool over the GPU's
// memory; activations and CUDA graphs live in the rest), for a request that
// does not set gpu_memory_utilization, at the replica's tensor- and
// pipeline-parallel sizes.
double sglangMemFractionStatic(const Scenario& scenario, int tensorParallel, int pipelineParallel);

}  // namespace caliper::serving
