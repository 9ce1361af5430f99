#pragma once
// The request keys of the non-LLM workloads (docs/CONTRACT.md "Scenario",
// workload keys): audio_seconds, image_width, image_height, steps,
// video_frames. Each has a range; a bad value is invalid_value at its pointer.
#include "caliper/scenario.hpp"
#include "json/json_read.hpp"

namespace caliper::io {

void readWorkloadKeys(Scenario& scenario, ObjectReader& request);

// The resolved values of the keys that apply to the scenario's model, for
// the result's "scenario" echo (nothing for LLMs).
void writeWorkloadKeys(const Scenario& scenario, Json& scenarioEcho);

}  // namespace caliper::io
