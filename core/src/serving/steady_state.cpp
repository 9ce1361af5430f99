// The steady state of continuous batching, as a closed queueing network.
//
// Each request alternates between the prefill path (its prompt's chunks,
// several prompts batched into one step up to the engine's token budget) and
// decoding (every running request advances one token per step). Closed loop
// (`batch` users, each sending its next request when the last ends, as serving
// benchmarks run at a fixed concurrency): TTFT = the request latency + its
// own prefill (where the engine mixes prompts with decodes, in a step that
// carries the other running requests' decodes) + the share of the other
// prompts it waits behind + half a decode step (+ one step where an overlap
// scheduler hands the first token out a step late); each cycle the GPU
// prefills every user once, so the decode takes its steps plus the other
// users' prefill time that did not delay the first token; the throughput is
// C / (TTFT + (O-1) TPOT). Under attention data parallelism each group
// prefills its own users' prompts and the groups step together, so prompts go
// in rounds of one per group and a request queues behind its own group's users.
// Prefill steps slow the decodes that ride with them (vLLM, TensorRT-LLM mix
// chunks into decode steps; SGLang pauses decoding for a prefill batch):
// TPOT = decode step / (1 - the share of time prefill adds). Requests beyond
// what the KV pool (or max_num_seqs) holds wait for whole cycles of the
// running ones.
//
// Open loop (request_rate_per_s): Poisson arrivals; a prefill waits
// rho / (2 (1 - rho)) services (M/D/1) and the concurrency follows from
// Little's law.
#include "serving/steady_state.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace caliper::serving {

namespace {

// Fixed-point iterations of the open loop's concurrency (damped; converged well before).
constexpr int kIterations = 40;
// Beyond this utilization of the prefill path an open-loop queue grows without bound.
constexpr double kMaxUtilization = 0.98;
// The disaggregated fixed point (damped by half): its shape is fixed, so
// fewer turns settle it.
constexpr int kDisaggregatedIterations = 24;
// Turns of the closed loop's riding-decodes fixed point (the decode share
// moves little with the prompt's own time; three settle it well under 0.1%).
constexpr int kRidingIterations = 3;

struct Lengths {
    double prompt = 0;   // prompt tokens computed per request (after prefix-cache hits)
    double output = 1;
    double context = 0;  // mean context while decoding
    double accepted = 1; // tokens per sequence per decode step (speculative decoding)
};

Lengths lengthsOf(const Scenario& s) {
    Lengths n;
    const double prompt = double(std::max<std::int64_t>(0, s.promptTokens));
    n.prompt = prompt * (1.0 - std::clamp(s.serving.prefixCacheHitRate, 0.0, 1.0));
    n.output = double(std::max<std::int64_t>(1, s.outputTokens));
    n.context = prompt + n.output / 2.0;
    if (s.serving.speculative) n.accepted = std::max(1.0, s.serving.speculative->acceptedTokensPerStep);
    return n;
}

// One decode step for `decodes` requests, with speculative verification:
// each request carries `accepted` tokens (plus the draft's cost).
double decodeStepS(const StepModel& m, const Lengths& n, double decodes) {
    if (n.accepted <= 1.0) return m.stepS(decodes, n.context, 0, 0);
    // Verification runs accepted + 1 positions per request in one pass
    // (the drafted tokens and the bonus token); drafting costs draftCostShare
    // of a step per drafted token.
    const double verifyTokens = decodes * n.accepted;
    const double verifyS = m.stepS(verifyTokens, n.context, 0, 0);
    return verifyS * (1.0 + m.draftCostShare * n.accepted);
}

// An overlap scheduler launches step n+1 before it handles step n's outputs,
// so a request's first token leaves one step after its prefill step
// ("introduces one extra decoding step": TensorRT-LLM docs, torch/features/
// overlap_scheduler.md; NVIDIA/TensorRT-LLM pull 14061 adds an opt-in early
// emission of that token; SGLang's zero-overhead scheduler works the same
// way, lmsys.org/blog/2024-12-04-sglang-v0-4).
double firstTokenDelayS(const StepModel& m, double decodeS) { return m.engine.hostOverlapsGpu ? decodeS : 0.0; }

// Under attention DP an engine that balances prompts over the ranks
// (TensorRT-LLM attention_dp_config enable_balance, engine_defaults.cpp)
// holds a new prompt for decode steps until every rank has one, up to its
// timeout: that many decode steps at the running batch.
double adpBalanceWaitS(const StepModel& m, double decodeS) {
    return m.layout.attentionDp > 1 ? m.engine.adpBalanceWaitSteps * decodeS : 0.0;
}

// The prefill path at a queue of `waiting` prompts while `decodes` requests decode.
struct PrefillPath {
    double ownS = 0;        // one prompt's own prefill latency (its chunks)
    double perPromptS = 0;  // server time per prompt when prompts are batched together
    double extraS = 0;      // time per prompt added to the decodes (all of it when not mixed)
};

PrefillPath prefillPath(const StepModel& m, const Lengths& n, double decodes, double waiting) {
    PrefillPath p;
    if (n.prompt <= 0) return p;
    const SchedulerDefaults& e = m.engine;
    // Attention data parallelism: each attention group schedules its own
    // prompts within its own token budget and runs their attention and dense
    // layers on its own GPUs, and the groups step together, since every step's
    // expert all-to-all needs all of them (TensorRT-LLM py_executor: one
    // forward per iteration on every rank, an idle rank padded with a dummy
    // request, _pad_attention_dp_dummy_request; vLLM's data-parallel MoE runs
    // dummy batches on idle ranks; SGLang's DP attention idle batches). The
    // engines balance new requests over the groups (TensorRT-LLM
    // executor_request_queue.py _balance_requests_across_ranks), so a
    // prompt's step is a round in which every group runs a chunk of its own:
    // the chunk's dense work on one group's GPUs, not spread over the replica.
    // A lone group's chunk costs the same round, since the experts' tokens
    // are padded to the largest group's (TensorRT-LLM py_executor.py: "a few
    // ranks' large prefill chunks ... setting the DP-padded MoE workload for
    // every rank").
    const double groups = std::max(1, m.layout.attentionDp);
    const double riding = e.mixesPrefill ? decodes : 0.0;
    const double ridingPerGroup = riding / groups;
    const double budget = e.budgetCountsDecodes ? std::max(e.stepTokenBudget / 8, e.stepTokenBudget - ridingPerGroup)
                                                : e.stepTokenBudget;
    const double baseS = m.stepS(riding, n.context, 0, 0);
    // Alone: whole chunks of the budget, then the remainder.
    const double ownChunk = std::min(budget, n.prompt);
    const double ownStepS = m.stepS(riding, n.context, groups * ownChunk, n.prompt / 2.0);
    const double wholeChunks = std::floor(n.prompt / ownChunk);
    const double remainder = n.prompt - wholeChunks * ownChunk;
    p.ownS = wholeChunks * ownStepS + (remainder > 0 ? m.stepS(riding, n.context, groups * remainder, n.prompt) : 0.0);
    // Queued prompts share steps up to the budget: weights are read once per step.
    const double batched = std::min(budget, n.prompt * std::max(1.0, waiting));
    const double batchedStepS =
        batched > ownChunk ? m.stepS(riding, n.context, groups * batched, n.prompt / 2.0) : ownStepS;
    const double perStepPrompts = groups * batched / n.prompt;
    p.perPromptS = batchedStepS / perStepPrompts;
    p.extraS = e.mixesPrefill ? std::max(0.0, batchedStepS - baseS) / perStepPrompts : p.perPromptS;
    return p;
}

ClosedLoopPrefill prefillOf(const StepModel& m, const Lengths& n) {
    // One prompt's prefill alone, and what a prefill adds to the decode
    // steps it shares (all of its time where the engine does not mix them).
    // Alone, no other request decodes in its steps: a lone user's prompt
    // carries none, and the closed loop adds the riding decodes of the
    // others itself (so TTFT never falls from one user to two).
    const PrefillPath p = prefillPath(m, n, 0.0, 1.0);
    const double factor = m.engine.prefillTimeFactor;
    ClosedLoopPrefill out;
    out.ownS = n.prompt > 0 ? factor * p.ownS : decodeStepS(m, n, 1.0);
    // The GPU time a prefill adds, never more than the prefill latency it is part of.
    out.extraS = n.prompt > 0 ? std::min(p.extraS, out.ownS) : 0.0;
    return out;
}

ReplicaState closedLoop(const StepModel& m, const Lengths& n, double users, double running, const ClosedLoopPrefill& p) {
    ReplicaState r;
    const double c = std::max(1.0, std::min(users, running));
    r.running = c;
    const double decodeS = decodeStepS(m, n, c);
    double ownS = p.ownS;
    // Prompts go round by round, one per attention group (prefillPath): a
    // request waits behind the other users of its own group, and each round
    // holds `groups` prompts (one round per prompt without attention DP).
    const double groups = std::max(1, m.layout.attentionDp);
    const double groupUsers = std::max(1.0, c / groups);
    const double roundExtraS = std::min(groups * p.extraS, p.ownS);
    // Equal-length requests of a closed loop stay in step: a prompt waits
    // behind a share of the other users' prompts (fitted, engine_defaults.cpp),
    // their prefill alone: prompts batched into one step carry the running
    // decodes once, and the prompt's own step already counts them.
    const double perOtherWaitS = m.engine.synchronizedShare / 2.0 * p.ownS;
    const double steps = std::max(0.0, n.output - 1.0);
    // The GPU serves every user's prefill once per cycle: of the other
    // rounds' prefill time, what does not delay this request's first token
    // lands in its decode.
    const double decodeTotalS =
        steps * decodeS / n.accepted + (groupUsers - 1.0) * std::max(0.0, roundExtraS - perOtherWaitS);
    const double fixedTtftS = m.engine.requestOverheadS + (groupUsers - 1.0) * perOtherWaitS + decodeS / 2.0 +
                              firstTokenDelayS(m, decodeS) + adpBalanceWaitS(m, decodeS);
    if (m.engine.mixesPrefill && c > 1.0 && n.prompt > 0) {
        // Where prompts ride with the decodes (vLLM, TensorRT-LLM in-flight
        // batching), the prompt's steps carry the decodes of the other users
        // that are decoding then, and its chunks get the budget they leave:
        // its latency is those steps', not a lone prefill's. The others spend
        // the decode share of their cycle decoding (the rest waiting for or
        // running their own prefill), so that share of them rides along
        // (Little's law); a few turns of the fixed point settle it. (What the
        // prompt adds to the others' decodes stays the lone prefill's time.)
        const double others = std::max(0.0, c - groups);
        double riding = others;
        for (int i = 0; i < kRidingIterations; ++i) {
            ownS = m.engine.prefillTimeFactor * prefillPath(m, n, riding, 1.0).ownS;
            riding = others * decodeTotalS / (fixedTtftS + ownS + decodeTotalS);
        }
    }
    const double ttft = fixedTtftS + ownS;
    r.ttftS = ttft;
    r.tpotS = steps > 0 ? decodeTotalS / steps : decodeS / n.accepted;
    r.prefillOwnS = ownS;
    r.prefillWaitS = (groupUsers - 1.0) * perOtherWaitS + adpBalanceWaitS(m, decodeS);
    r.requestsPerS = c / (ttft + decodeTotalS);
    if (users > c) {
        // Requests beyond the running ones wait in waves of `c` for whole cycles.
        const double cycleS = ttft + decodeTotalS;
        r.ttftS += (users / c - 1.0) / 2.0 * cycleS;
        r.prefillWaitS += (users / c - 1.0) / 2.0 * cycleS;
        r.queued = true;
    }
    return r;
}

ReplicaState openLoop(const StepModel& m, const Lengths& n, double ratePerS, double running) {
    ReplicaState r;
    double inFlight = 1.0;
    for (int i = 0; i < kIterations; ++i) {
        const double decodes = std::min(std::max(1.0, inFlight), running);
        const double decodeS = decodeStepS(m, n, decodes);
        double ttft = decodeS / 2.0 + m.engine.requestOverheadS + firstTokenDelayS(m, decodeS);
        double tpotS = decodeS / n.accepted;
        if (n.prompt > 0) {
            const PrefillPath alone = prefillPath(m, n, decodes, 1.0);
            const double rho = std::min(kMaxUtilization, ratePerS * alone.perPromptS);
            const PrefillPath p = prefillPath(m, n, decodes, 1.0 + rho / (1.0 - rho));
            r.prefillOwnS = m.engine.prefillTimeFactor * p.ownS;
            r.prefillWaitS = rho / (2.0 * (1.0 - rho)) * p.perPromptS + adpBalanceWaitS(m, decodeS);
            ttft += r.prefillOwnS + r.prefillWaitS;
            const double share = std::min(kMaxUtilization, ratePerS * p.extraS);
            tpotS /= (1.0 - share);
            r.saturated = ratePerS * alone.perPromptS >= kMaxUtilization || share >= kMaxUtilization;
        } else {
            ttft += decodeS;
        }
        const double latencyS = ttft + (n.output - 1.0) * tpotS;
        const double next = std::max(1.0, ratePerS * latencyS);
        r.ttftS = ttft;
        r.tpotS = tpotS;
        if (next > running) r.saturated = true;
        inFlight = 0.5 * inFlight + 0.5 * std::min(next, 4.0 * running);
    }
    r.running = std::min(inFlight, running);
    // Completions cannot outrun what the running requests finish per second.
    const double capacity = r.running / (r.ttftS + (n.output - 1.0) * r.tpotS);
    r.requestsPerS = std::min(ratePerS, capacity);
    r.queued = r.saturated;
    return r;
}

double mdOneWaitS(double rho, double serviceS) { return rho / (2.0 * (1.0 - rho)) * serviceS; }

}  // namespace

double decodeOnlyTpotS(const Scenario& s, const StepModel& m, double decodes) {
    const Lengths n = lengthsOf(s);
    return decodeStepS(m, n, std::max(1.0, decodes)) / n.accepted;
}

DisaggregatedState disaggregatedState(const Scenario& s, const StepModel& prefill, const StepModel& decode,
                                      const DisaggregatedShape& shape, double users) {
    const Lengths n = lengthsOf(s);
    const double prefillReplicas = std::max(1, shape.prefillReplicas);
    const double decodeReplicas = std::max(1, shape.decodeReplicas);
    const double pool = std::max(1.0, std::min(shape.decodeRunningLimit, decode.engine.maxRunningRequests));
    const std::optional<double> rate = s.serving.requestRatePerS;
    DisaggregatedState r;
    double ttft = 0, tpot = decodeStepS(decode, n, 1.0) / n.accepted;
    double ratePerS = rate ? *rate : 0;
    for (int i = 0; i < kDisaggregatedIterations; ++i) {
        // Little's law: the closed loop's arrivals follow its latency.
        const double cycleS = ttft + (n.output - 1.0) * tpot;
        const double arrivals = rate ? *rate : (cycleS > 0 ? users / cycleS : 0);
        ratePerS = i == 0 || rate ? arrivals : 0.5 * ratePerS + 0.5 * arrivals;
        const double decoding = std::max(1.0, ratePerS * (n.output - 1.0) * tpot / decodeReplicas);
        const double running = std::min(decoding, pool);
        r.queued = decoding > pool * (1 + 1e-9);
        r.prefillOwnS = r.prefillWaitS = 0;
        r.saturated = false;
        const double decodeS = decodeStepS(decode, n, running);
        tpot = decodeS / n.accepted;
        double queueS = 0;
        if (n.prompt > 0) {
            const PrefillPath alone = prefillPath(prefill, n, 0.0, 1.0);
            // A prefill replica that runs one prompt at a time on each
            // attention-DP rank (aiconfigurator's generated workers: "prefill
            // max_batch_size = 1", rule_plugin/benchmark/trtllm.rule and
            // sglang.rule; the engines' batch limit is per rank) takes a new
            // prompt per rank only when the last one's prefill ends.
            const double serviceS =
                shape.prefillMaxBatch == 1
                    ? std::max(alone.perPromptS, prefill.engine.prefillTimeFactor * alone.ownS /
                                                     std::max(1, prefill.layout.attentionDp))
                    : alone.perPromptS;
            r.prefillServiceS = serviceS;
            const double rho = std::min(kMaxUtilization, ratePerS / prefillReplicas * serviceS);
            r.saturated = ratePerS / prefillReplicas * serviceS >= kMaxUtilization;
            const PrefillPath p = prefillPath(prefill, n, 0.0, 1.0 + rho / (1.0 - rho));
            r.prefillOwnS = prefill.engine.prefillTimeFactor * p.ownS;
            r.prefillWaitS = mdOneWaitS(rho, shape.prefillMaxBatch == 1 ? serviceS : p.perPromptS);
            if (!rate) {
                // A closed loop cannot outrun its bottleneck: N users whose
                // prompts each hold a prefill replica for D seconds complete
                // at most P / D requests per second, so a request's time in
                // the prefill queue is at least N D / P less the rest of its
                // cycle (the asymptotic bound of closed queueing networks,
                // R(N) >= N Dmax - Z: Lazowska et al., Quantitative System
                // Performance, 1984, section 5.2). Past the knee the prompts
                // queue on the prefill replicas, not in an open-loop M/D/1.
                const double outsideS = decode.engine.requestOverheadS + r.prefillOwnS + shape.kvTransferS +
                                        decodeS / 2.0 + firstTokenDelayS(decode, decodeS) + (n.output - 1.0) * tpot;
                r.prefillWaitS = std::max(r.prefillWaitS, users * serviceS / prefillReplicas - outsideS);
            }
        }
        // Requests beyond the decode pools wait for a running one to finish.
        if (r.queued) queueS = (decoding / running - 1.0) * (n.output - 1.0) * tpot;
        ttft = decode.engine.requestOverheadS + r.prefillOwnS + r.prefillWaitS + shape.kvTransferS + decodeS / 2.0 +
               firstTokenDelayS(decode, decodeS) + queueS;
        r.prefillWaitS += queueS;
        r.decodingPerReplica = running;
    }
    if (!rate && n.prompt > 0 && shape.benchmarkRounds > 0) {
        // A benchmark run starts every user at once (benchmark_serving
        // --request-rate inf under --max-concurrency: the semaphore lets the
        // first `batch` requests go together; vLLM benchmarks/serve.py,
        // SGLang bench_serving.py), so the first round's prompts reach the
        // prefill replicas together: the k-th of the N / P on a replica
        // waits k - 1 services, (N / P - 1) / 2 on average, and a queue the
        // steady state already holds is not shortened. The run's mean TTFT
        // counts that round once in `benchmarkRounds`.
        const double rampS = std::max(0.0, users / prefillReplicas - 1.0) / 2.0 * r.prefillServiceS;
        r.firstRoundWaitS = std::max(rampS, r.prefillWaitS);
        const double extraS = (r.firstRoundWaitS - r.prefillWaitS) / shape.benchmarkRounds;
        ttft += extraS;
        r.prefillWaitS += extraS;
    }
    r.ttftS = ttft;
    r.tpotS = tpot;
    r.arrivalsPerS = ratePerS;
    const double capacity = decodeReplicas * r.decodingPerReplica / std::max(tpot, (n.output - 1.0) * tpot);
    r.requestsPerS = rate ? std::min(*rate, capacity) : ratePerS;
    if (rate && *rate > capacity * (1 + 1e-9)) r.saturated = true;
    return r;
}

ClosedLoopPrefill closedLoopPrefill(const Scenario& s, const StepModel& m) { return prefillOf(m, lengthsOf(s)); }

ReplicaState steadyState(const Scenario& s, const StepModel& m, double usersPerReplica, double runningLimit,
                         const ClosedLoopPrefill* prefill) {
    const Lengths n = lengthsOf(s);
    const double running = std::max(1.0, std::min(runningLimit, m.engine.maxRunningRequests));
    if (s.serving.requestRatePerS) {
        return openLoop(m, n, *s.serving.requestRatePerS / m.layout.replicas, running);
    }
    return closedLoop(m, n, usersPerReplica, running, prefill ? *prefill : prefillOf(m, n));
}

}  // namespace caliper::serving
