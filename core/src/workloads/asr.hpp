#pragma once
// Speech recognition pipelines (asr.cpp).
#include "workloads/pipeline.hpp"

namespace caliper::workloads {

PipelineMemory asrMemory(const Scenario& s, const WorkloadInputs& in, double bytesPerWeight);
PipelineTime asrTime(const Scenario& s, const WorkloadInputs& in, bool withExplain);

}  // namespace caliper::workloads
