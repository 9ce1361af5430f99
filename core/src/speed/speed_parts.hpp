#pragma once
// The three speed models behind estimateSpeed. Each fills its fields of
// SpeedEstimate and appends warnings, and explain terms when asked (the
// matrix evaluates thousands of cells without reading them).
#include "caliper/speed/speed.hpp"
#include "speed/comm.hpp"
#include "speed/efficiency.hpp"
#include "plan/workload.hpp"

namespace caliper {

// How one inference replica spreads over GPUs.
struct ServingLayout {
    int tp = 1;           // tensor-parallel ranks
    int pp = 1;           // pipeline stages (or llama.cpp layer-split devices)
    int replicas = 1;     // data-parallel copies serving separate requests
    int microbatches = 1; // batches in flight across the stages (1 = layer split)
    Link tpLink;          // link of the tensor-parallel group (set where tp > 1)
    Link stageLink;       // link between pipeline stages (set where pp > 1)
    double sequences = 1; // concurrent sequences per replica
};

ServingLayout servingLayout(const Scenario& scenario, const Plan& plan);

// `engine`: engineRates(scenario.engine, scenario.weights, scenario.gpu),
// read once per estimate.
void estimateDecode(const Scenario& scenario, const EngineRates& engine, const ServingLayout& layout,
                    const Workload& work, bool withExplain, SpeedEstimate& out);
void estimatePrefill(const Scenario& scenario, const EngineRates& engine, const ServingLayout& layout,
                     const Workload& work, bool withExplain, SpeedEstimate& out);
// withWarnings = false leaves `warnings` empty (speedFigures).
void estimateTraining(const Scenario& scenario, const Plan& plan, const Workload& work, bool withExplain,
                      SpeedEstimate& out, bool withWarnings = true);

// speedFigures() with the scenario's workload already worked out
// (makeWorkload(scenario)): a matrix row holds it for its cells.
SpeedEstimate speedFigures(const Scenario& scenario, const Plan& plan, const Workload& work);

// Seconds of one decode step of the whole replica at `context` tokens.
double decodeStepS(const Scenario& scenario, const EngineRates& engine, const ServingLayout& layout, const Workload& work,
                   double context);

}  // namespace caliper
