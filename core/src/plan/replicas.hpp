#pragma once
// Inference at a stated GPU count as replicas: copies of one model-parallel
// group (data parallelism), each serving its own requests. Nobody serves an
// 8B model on 1,024 GPUs as one tensor x pipeline group of 1,024 (it has 32
// layers); they run many engine instances, each with the group that suits
// the model. Throughput figures sum over the replicas (plan.dp, read by
// servingLayout and replicaLayout), per-request latency is one replica's,
// and the memory per GPU is one replica's, holding its share of the
// concurrent requests.
#include <optional>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"
#include "caliper/speed/speed.hpp"

namespace caliper::planner {

// Whether a stated count is weighed as replicas: inference on an LLM where
// the request leaves the layout to the planner (strategy "auto", no tp, pp
// or dp), no offload and not Ollama (whose context follows the VRAM).
bool replicasWeighed(const Scenario& s);

// Whether a stated count is tried as replicas: where one model-parallel
// group cannot use every GPU (`oneGroupUsable` false: a pipeline of more
// stages than layers, a tensor degree the heads do not divide). A count one
// group can use stays one engine instance over all of it (vLLM's
// --tensor-parallel-size N, as the benchmark rows run it).
bool replicasTried(const Scenario& s, bool oneGroupUsable);

// An "auto" count past one server, rounded up to whole servers; within one
// server, the count itself. Clusters are allocated by the node (cloud
// instances are whole 8-GPU servers: AWS p5.48xlarge, Azure ND H100 v5, GCP
// a3-highgpu-8g; Slurm jobs on HGX nodes take them --exclusive), and every
// layout the planner builds spreads over nodes evenly: Megatron keeps
// tensor parallelism in a node and pipeline/data parallelism across whole
// ones, serving engines run TP = GPUs per node x PP = nodes, and ZeRO/FSDP
// shard over any count. So 21 GPUs of 8 per node is three servers with
// three GPUs idle: 24 is the plan (gpus_needed keeps the fewest that fit).
// Within a server any count the layout divides (the planner's layouts
// check tp | heads and pp <= layers) is a plan people run.
int wholeNodes(const Scenario& s, int count);

// Whole-server counts tried above the fewest that fit before the fewest
// count is kept as it is: pipeline layouts can miss at the next multiples
// (stages round layers up; GLM-5 on MI250X fits 84 and 92 GPUs, not 88 or
// 96), and four servers more is past what anyone adds to round up.
constexpr int kWholeNodeSteps = 4;

struct ReplicaFit {
    Plan plan;               // the whole deployment: group degrees, dp = replicas, gpuCount = GPUs used
    MemoryBreakdown memory;  // per GPU, one replica's
    SpeedEstimate speed;     // summed over replicas
    double tokensPerS = 0;   // decode (else prefill) tokens/s of all replicas
};

// The fastest deployment of `count` GPUs as replicas of one group: groups of
// a tensor-parallel degree within a server (every valid degree up to GPUs
// per node; layer-split engines any count), or, where none fits a server,
// the fewest whole servers that do (tensor parallelism within each, pipeline
// stages across). Replicas: count / group, rounded down (the GPUs left over
// idle). Empty when no group fits.
std::optional<ReplicaFit> bestReplicas(const Scenario& s, int count);

}  // namespace caliper::planner

namespace caliper {

// Whether an inference plan runs separate replicas (dp > 1): its memory per
// GPU is one replica's (replicaScenario, replicaPlan).
bool runsReplicas(const Scenario& s, const Plan& plan);

// One replica's request: the concurrent requests spread evenly over the
// replicas (the fullest holds ceil(batch / dp)), its own GPUs.
Scenario replicaScenario(const Scenario& s, const Plan& plan);

// One replica's plan: the group's degrees on its own GPUs (no collective
// spans replicas, so no NCCL buffer is sized for them).
Plan replicaPlan(const Scenario& s, const Plan& plan);

}  // namespace caliper
