#pragma once
// Disaggregated serving: one request's prompt KV sent from the prefill
// replica that computed it to the decode replica that continues it.
#include "caliper/scenario.hpp"
#include "serving/step_model.hpp"

namespace caliper::serving {

// Seconds to move one request's prompt KV. Each prefill GPU sends the KV it
// holds, all at once: its pipeline stage's layers at its share of the KV
// heads (MLA's latent is whole on every attention rank, and an attention-DP
// rank holds only its own requests), the KV pool's bytes per token
// (kv_pool.cpp). Over NVLink when both replicas fit one server, else the
// network (NIXL / Mooncake transfer engines move it GPU to GPU over RDMA).
double kvTransferS(const Scenario& prefillScenario, const StepModel& prefill, int prefillGpus, int decodeGpus);

}  // namespace caliper::serving
