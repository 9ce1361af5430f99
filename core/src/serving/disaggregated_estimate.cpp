// An estimate of a disaggregated deployment the request states: the decode
// replica's plan and memory, the prefill replica's, and the serving figures
// of both pools together (DistServe, NVIDIA Dynamo, SGLang and vLLM PD
// disaggregation; steady_state.cpp disaggregatedState).
#include <algorithm>
#include <cmath>
#include <string>

#include "caliper/serving/estimate_serving.hpp"
#include "serving/evaluator.hpp"
#include "serving/kv_transfer.hpp"
#include "serving/steady_state.hpp"

namespace caliper {

namespace {

// One prefill replica: the request's model and GPU at the prefill degrees
// (the decode replica's where the request gives none), one prompt at a time.
Scenario prefillReplica(const Scenario& request, const DisaggregatedServing& split) {
    Scenario p = request;
    p.serving.disaggregated.reset();
    if (split.prefillTp > 0 || split.prefillPp > 0 || split.prefillEp > 0 || split.prefillAttentionDp > 0) {
        p.parallel.tp = std::max(1, split.prefillTp);
        p.parallel.pp = std::max(1, split.prefillPp);
        p.parallel.ep = split.prefillEp;
        p.parallel.attentionDp = split.prefillAttentionDp;
        p.parallel.dp = 0;
        p.gpuCount = p.parallel.tp * p.parallel.pp;
        p.gpuCountAuto = false;
    }
    p.batch = 1;
    return p;
}

// One decode replica holding its share of the deployment's requests.
Scenario decodeReplica(const Scenario& request, const DisaggregatedServing& split) {
    Scenario d = request;
    d.serving.disaggregated.reset();
    d.batch = std::max<std::int64_t>(1, (request.batch + split.decodeReplicas - 1) / split.decodeReplicas);
    return d;
}

void warn(EstimateResult& r, const char* code, const std::string& message) {
    for (const Warning& w : r.warnings) {
        if (w.code == code) return;
    }
    r.warnings.push_back(Warning{code, message});
}

}  // namespace

EstimateResult estimateDisaggregated(const Scenario& request, EstimateDetail detail) {
    const DisaggregatedServing split = *request.serving.disaggregated;
    const Scenario decodeRequest = decodeReplica(request, split);
    EstimateResult r = estimate(decodeRequest, detail);
    r.serving.reset();
    if (!continuousBatching(request)) return r;
    const EstimateResult p = estimate(prefillReplica(request, split), EstimateDetail{false, false, false, false});
    // A replica that does not fit has no figures (r.fits and its warnings
    // say so for the decode one; the prefill one's is the same model on its
    // own degrees).
    if (!p.fits || !r.fits) return r;
    // The steady state reads each replica's resolved scenario (its plan's degrees).
    Scenario prefillScenario = prefillReplica(request, split);
    prefillScenario.parallel.tp = p.plan.tp;
    prefillScenario.parallel.pp = p.plan.pp;
    prefillScenario.gpuCount = p.plan.gpuCount;
    const serving::Evaluator ep(prefillScenario, p.plan, p.memory);
    Scenario decodeScenario = decodeRequest;
    decodeScenario.parallel.tp = r.plan.tp;
    decodeScenario.parallel.pp = r.plan.pp;
    decodeScenario.gpuCount = r.plan.gpuCount;
    const serving::Evaluator ed(decodeScenario, r.plan, r.memory);
    if (!ep.runs() || !ed.runs()) return r;

    serving::DisaggregatedShape shape;
    shape.prefillReplicas = split.prefillReplicas;
    shape.decodeReplicas = split.decodeReplicas;
    shape.decodeRunningLimit = ed.runningLimit();
    shape.prefillMaxBatch = split.prefillMaxBatch;
    shape.benchmarkRounds = split.benchmarkRounds;
    shape.kvTransferS = serving::kvTransferS(prefillScenario, ep.model(), p.plan.gpuCount, r.plan.gpuCount);
    Scenario whole = decodeScenario;
    whole.batch = request.batch;
    const double users = double(std::max<std::int64_t>(1, request.batch));
    const serving::DisaggregatedState st = serving::disaggregatedState(whole, ep.model(), ed.model(), shape, users);
    if (!(st.tpotS > 0) || !std::isfinite(st.tpotS) || !(st.ttftS > 0) || !std::isfinite(st.ttftS)) return r;

    const double gpus = double(split.prefillReplicas) * p.plan.gpuCount + double(split.decodeReplicas) * r.plan.gpuCount;
    const double output = double(std::max<std::int64_t>(1, request.outputTokens));
    serving::DeploymentState d;
    d.concurrency = request.serving.requestRatePerS ? st.requestsPerS * (st.ttftS + (output - 1) * st.tpotS) : users;
    d.ttftS = st.ttftS;
    d.tpotS = st.tpotS;
    d.requestsPerS = st.requestsPerS;
    d.gpus = gpus;
    d.runningPerReplica = st.decodingPerReplica;
    d.prefillOwnS = st.prefillOwnS;
    d.prefillWaitS = st.prefillWaitS;
    d.queued = st.queued;
    d.saturated = st.saturated;
    ServingFigures f = serving::servingFigures(d, ed.pool(), output);
    // The price of every GPU of the deployment, at the decode replica's per GPU.
    const double perGpu = 1.0 / std::max(1, r.plan.gpuCount);
    priceServing(f, r.usdPerHour ? std::optional<double>(*r.usdPerHour * perGpu * gpus) : std::nullopt,
                 r.powerW.value_or(0) * perGpu * gpus);
    r.serving = f;
    if (st.saturated) {
        warn(r, "request_rate_above_capacity", "the prefill replicas are busier than they can keep up with: the queue grows");
    }
    if (detail.explain) {
        // The decode replica's own serving terms describe it serving alone.
        r.explain.erase(std::remove_if(r.explain.begin(), r.explain.end(),
                                       [](const ExplainTerm& t) { return t.term.rfind("serving_", 0) == 0; }),
                        r.explain.end());
        r.explain.push_back({"serving_kv_pool_gib", "the decode replica's KV pool per GPU", f.kvPoolGiB});
        r.explain.push_back({"serving_running_requests", "requests decoding together per decode replica",
                             st.decodingPerReplica});
        r.explain.push_back({"serving_ttft_own_prefill_s", "the request's own prefill on a prefill replica", st.prefillOwnS});
        r.explain.push_back({"serving_ttft_wait_s",
                             "its wait for a prefill replica: M/D/1, and in a closed loop at least users x prefill time / "
                             "prefill replicas less the rest of the cycle; with benchmark_rounds R, plus (the first "
                             "round's wait, (users / prefill replicas - 1) / 2 prefill times, less that) / R",
                             st.prefillWaitS});
        r.explain.push_back({"serving_kv_transfer_ms",
                             "one request's prompt KV, each prefill GPU its share, over NVLink within a server or the "
                             "network between servers",
                             shape.kvTransferS * 1e3});
        r.explain.push_back({"serving_ttft_s",
                             "request overhead + own prefill on a prefill replica + its M/D/1 wait + KV transfer + half a "
                             "decode step (+ one with an overlap scheduler)",
                             f.ttftS});
        r.explain.push_back({"serving_tpot_ms", "the decode replica's step alone (no prompt chunk rides in it)", f.tpotMs});
    }
    return r;
}

}  // namespace caliper
