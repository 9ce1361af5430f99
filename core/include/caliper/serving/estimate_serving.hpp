#pragma once
// The continuous-batching figures of one estimate (the result's `serving`).
#include <optional>
#include <vector>

#include "caliper/plan/estimate.hpp"
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"
#include "caliper/serving/serving.hpp"

namespace caliper {

// Whether the scenario is served with continuous batching (task inference on
// vLLM, SGLang, TensorRT-LLM or llama.cpp's server).
bool continuousBatching(const Scenario& scenario);

// Whether the catalog gives what the serving figures rest on: the GPU's memory
// bandwidth (decode steps) and a tensor rate for the weights it runs (prompt
// chunks, TTFT). Without either the step model would take that time as zero
// and overstate every figure, so serving estimates give none.
bool servingFiguresKnown(const Scenario& scenario);

// Figures at scenario.batch concurrent requests (or serving.request_rate_per_s)
// under `plan`, whose per-GPU memory is `memory`. Empty when the plan does not
// run or the GPU lacks the figures. `explain`/`warnings` get the terms when given.
std::optional<ServingFigures> estimateServing(const Scenario& scenario, const Plan& plan, const MemoryBreakdown& memory,
                                              std::vector<ExplainTerm>* explain = nullptr,
                                              std::vector<Warning>* warnings = nullptr);

// A disaggregated deployment the request states (serving.disaggregated):
// the estimate of one decode replica (gpu_count, parallel), holding its share
// of the `batch` concurrent requests, whose `serving` figures are the whole
// deployment's: prefill replicas of their own degrees run the prompts and
// send each request's KV cache to the decode replicas (steady_state.hpp).
EstimateResult estimateDisaggregated(const Scenario& request, EstimateDetail detail);

// Cost and energy per output token from the deployment's price and power.
void priceServing(ServingFigures& figures, std::optional<double> usdPerHour, double powerW);

}  // namespace caliper
