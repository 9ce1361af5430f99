#pragma once
// One scenario in, one result out: plan, memory, fit, GPU count, speed,
// cost, warnings and the explanation. Pure; never throws on valid scenarios.
#include <optional>

#include "caliper/error.hpp"
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

// Why a scenario is impossible (QLoRA with a GGUF format, fp8 on a GPU
// without fp8, tensor parallel above the head count, ...), or empty. A
// value, not an exception: a matrix or recommendation checks every GPU
// and excludes the rejected ones.
std::optional<Error> scenarioError(const Scenario& scenario);
// The same, throwing the error as an InputError.
void checkScenario(const Scenario& scenario);

// What to add beyond the figures: the matrix asks for figures alone.
struct EstimateDetail {
    bool quickRules = true;   // the source documents' rules of thumb
    bool suggestions = true;  // "make it fit" changes when the scenario does not fit
    bool explain = true;      // every term's formula in words (memory, speed, cost)
    bool text = true;         // a non-LLM workload's names and warnings (a matrix cell reads its figures only)
    // Training at a stated count: gpus_needed as an "auto" count finds it
    // (a second plan; limits' probes read the fit alone).
    bool fewestAnyCount = true;
};

EstimateResult estimate(const Scenario& scenario, EstimateDetail detail = {});

// The plan, its memory and whether it fits, as estimate() works them out,
// without the figures that follow from them (speed, cost, serving,
// warnings): for a search that works out its own figures from the plan.
struct PlannedMemory {
    Plan plan;
    MemoryBreakdown memory;
    bool fits = false;
};
PlannedMemory planMemory(const Scenario& scenario);

// The fewest GPUs of the scenario's type that fit, or empty beyond kMaxGpus.
std::optional<int> fewestGpus(const Scenario& scenario);

}  // namespace caliper
