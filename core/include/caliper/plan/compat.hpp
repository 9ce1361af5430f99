#pragma once
// What to watch on a GPU for a scenario: hard incompatibilities (rejected
// by checkScenario) and soft ones (warnings).
#include <optional>
#include <vector>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

std::vector<Warning> compatibilityWarnings(const Scenario& scenario, const Plan& plan);

// "context_exceeds_model" where the request's context (prompt + output, or
// seq_len) is longer than the model's max_context; every answer that sizes
// the request carries it (the estimate, serve).
std::optional<Warning> contextWarning(const Scenario& scenario);

bool isGgufFormat(WeightFormat format);
// Whether llama.cpp can load the format from a GGUF file.
bool ggufLoads(WeightFormat format);
bool isTrainingEngine(Engine engine);
// vLLM on Apple silicon (vllm-metal) serves from one Mac: an "auto" count is
// that one, wherever a count is judged (the planner, limits, suggestions).
bool runsOnOneDevice(const Scenario& scenario);
// Which kind of job an engine runs: Transformers both, the training
// frameworks (DeepSpeed, FSDP, Megatron) training, the others inference.
bool engineRunsJob(Engine engine, bool inference);

}  // namespace caliper
