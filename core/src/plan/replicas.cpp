// Inference replicas at a stated count (replicas.hpp).
#include "plan/replicas.hpp"

#include <algorithm>

#include "caliper/memory/memory.hpp"
#include "caliper/plan/plan.hpp"
#include "memory/sizing.hpp"

namespace caliper {

bool runsReplicas(const Scenario& s, const Plan& plan) {
    return s.task == Task::Inference && plan.dp > 1 && plan.gpuCount > 1;
}

namespace {

int groupGpus(const Plan& plan) { return std::max(1, plan.gpuCount / std::max(1, plan.dp)); }

int nodesOf(const Scenario& s, int gpus) {
    const int perNode = std::max(1, s.gpu.gpusPerNode);
    return (gpus + perNode - 1) / perNode;
}

}  // namespace

Scenario replicaScenario(const Scenario& s, const Plan& plan) {
    Scenario one = s;
    const std::int64_t replicas = std::max(1, plan.dp);
    one.gpuCount = groupGpus(plan);
    one.gpuCountAuto = false;
    // The fullest replica's share of the concurrent requests.
    one.batch = (std::max<std::int64_t>(1, s.batch) + replicas - 1) / replicas;
    return one;
}

Plan replicaPlan(const Scenario& s, const Plan& plan) {
    Plan one = plan;
    one.gpuCount = groupGpus(plan);
    one.dp = 1;
    one.nodes = nodesOf(s, one.gpuCount);
    if (one.gpuCount == 1) one.strategy = Strategy::Single;
    return one;
}

}  // namespace caliper

namespace caliper::planner {

int wholeNodes(const Scenario& s, int count) {
    const int perNode = std::max(1, s.gpu.gpusPerNode);
    if (count <= perNode) return count;
    return (count + perNode - 1) / perNode * perNode;
}

bool replicasWeighed(const Scenario& s) {
    return s.task == Task::Inference && !s.gpuCountAuto && s.model.workload == WorkloadKind::Llm &&
           s.parallel.strategy == Strategy::Auto && s.parallel.tp <= 0 && s.parallel.pp <= 0 && s.parallel.dp <= 0 &&
           s.parallel.offload == Offload::None && s.engine != Engine::Ollama;
}

bool replicasTried(const Scenario&, bool oneGroupUsable) {
    // Where one group can use the count, it stays one engine instance over
    // all of it (the benchmark rows run so: vLLM --tensor-parallel-size 8;
    // llmfit's single-stream vLLM rows on eight RTX 5880 Ada, which the
    // catalog counts as two 4-GPU servers), and a serving deployment keeps
    // its layout as its concurrency rises.
    return !oneGroupUsable;
}

namespace {

double tokensPerS(const SpeedEstimate& speed) {
    return speed.decodeTokensPerS.value_or(speed.prefillTokensPerS.value_or(0));
}

// Replicas of `group` GPUs out of `count`, when one such group fits.
std::optional<ReplicaFit> replicasOf(const Scenario& s, int count, int group, bool tensorOnly) {
    const int replicas = count / group;
    if (replicas < 1) return std::nullopt;
    Scenario one = s;
    one.gpuCount = group;
    one.batch = (std::max<std::int64_t>(1, s.batch) + replicas - 1) / replicas;
    const sizing::Inputs in = sizing::prepare(one);
    const Plan groupPlan = sizing::planFor(in, group);
    if (tensorOnly && groupPlan.pp > 1) return std::nullopt;  // within a server: tensor parallelism only
    if (!sizing::countUsable(in, groupPlan)) return std::nullopt;
    std::optional<MemoryBreakdown> memory = sizing::evaluateIfFits(in, groupPlan);
    if (!memory) return std::nullopt;
    ReplicaFit fit;
    fit.plan = groupPlan;
    fit.plan.gpuCount = group * replicas;
    fit.plan.dp = replicas;
    fit.plan.nodes = nodesOf(s, fit.plan.gpuCount);
    if (fit.plan.strategy == Strategy::Single) fit.plan.strategy = Strategy::Ddp;  // replicas of one GPU each
    fit.memory = std::move(*memory);
    fit.speed = speedFigures(s, fit.plan);
    fit.tokensPerS = tokensPerS(fit.speed);
    return fit;
}

}  // namespace

std::optional<ReplicaFit> bestReplicas(const Scenario& s, int count) {
    const int perNode = std::max(1, s.gpu.gpusPerNode);
    // llama.cpp splits layers (no tensor parallelism): any group in a server.
    const bool layerSplit = runtimeOf(s.engine) == Engine::LlamaCpp;
    std::optional<ReplicaFit> best;
    auto weigh = [&](std::optional<ReplicaFit> fit) {
        // Equal rates keep the smaller group (weighed first): more replicas,
        // fewer collectives.
        if (fit && (!best || fit->tokensPerS > best->tokensPerS * (1 + 1e-9))) best = std::move(fit);
    };
    for (int group = 1; group <= std::min(perNode, count); ++group) {
        if (!layerSplit && group > 1 && !sizing::validTensorDegree(s.model, group)) continue;
        weigh(replicasOf(s, count, group, !layerSplit));
    }
    if (best) return best;
    // No group within a server fits: the fewest whole servers that do, one
    // replica's tensor parallelism within each server and pipeline stages
    // across them (vLLM's and SGLang's multi-node recipes). A group that
    // fits keeps fitting with more servers, and the more replicas the more
    // throughput, so the first is kept.
    for (int group = 2 * perNode; group <= count; group += perNode) {
        if (std::optional<ReplicaFit> fit = replicasOf(s, count, group, false)) return fit;
    }
    return std::nullopt;
}

}  // namespace caliper::planner
