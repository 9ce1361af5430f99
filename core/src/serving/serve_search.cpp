// The serve search: for every GPU type, replicas of the fewest GPUs that hold
// the model and of 2x, 4x and 8x that (more tensor parallelism: faster steps,
// a larger KV pool), and the same from the next power of two; for each, the most users (or the highest request rate) one
// replica serves within the SLO, by bisection on the replica's own figures
// (TPOT and TTFT rise with concurrency), then as many replicas as the users
// need. Deployments are ranked by price; when none meets the SLO the closest
// ones are returned, marked.
#include "caliper/serving/serve.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "caliper/cost/cost.hpp"
#include "caliper/model/formats.hpp"
#include "caliper/plan/compat.hpp"
#include "caliper/plan/estimate.hpp"
#include "caliper/serving/estimate_serving.hpp"
#include "serving/capacity.hpp"
#include "serving/evaluator.hpp"
#include "serving/kv_transfer.hpp"
#include "serving/serving_formats.hpp"
#include "serving/steady_state.hpp"
#include "speed/comm.hpp"

namespace caliper {

using serving::kMaxUsersPerReplica;
using serving::ReplicaCapacity;
using serving::usersWithin;
using serving::Formats;
using serving::formatsTried;
using serving::int4FormatsTried;

namespace {

// GPUs per replica tried: the fewest that fit, then doublings.
constexpr int kReplicaSizeDoublings = 3;
constexpr int kRateBisections = 24;
// Curve points: concurrency 1, 2, 4, ... up to the pool's limit.
constexpr int kMaxCurvePoints = 14;

struct Candidate {
    Scenario scenario;  // GPU set, one replica of `gpus` GPUs
    Plan plan;
    MemoryBreakdown memory;
    int gpus = 1;
    bool kvChosen = false;       // the search's FP8 KV cache, not the request's format
    bool weightsChosen = false;  // the search's FP8 or 4-bit weights, not the model's own format
};

std::optional<Candidate> candidate(const Scenario& base, int gpus) {
    Candidate c;
    c.scenario = base;
    c.scenario.gpuCountAuto = false;
    c.scenario.gpuCount = gpus;
    c.scenario.batch = 1;
    c.scenario.serving.requestRatePerS.reset();
    const PlannedMemory r = planMemory(c.scenario);
    if (r.plan.tp * r.plan.pp != gpus) return std::nullopt;  // the planner spreads it otherwise (replicas)
    c.plan = r.plan;
    c.memory = r.memory;
    c.gpus = gpus;
    return c;
}

// Replica sizes tried: the fewest GPUs that hold the model and its
// doublings; where that count is not a power of two (DeepSeek-V3 in FP8 on
// H200s: 6, a tensor-2 x pipeline-3 replica), the next power of two and its
// doublings too, the tensor-parallel widths deployments run (one 8-GPU
// server with tp 8 for that model, SGLang's and vLLM's recipe).
std::vector<int> replicaSizes(int fewest, int maxGpus) {
    std::vector<int> out;
    int pow2 = 1;
    while (pow2 < fewest) pow2 *= 2;
    for (const int first : {fewest, pow2}) {
        for (int k = 0, n = first; k <= kReplicaSizeDoublings && n <= maxGpus; ++k, n *= 2) {
            if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

double ratioAbove(double value, double limit) { return limit > 0 ? value / limit : 0; }

// The SLO targets the figures miss: the first token's wait, the time per
// output token and the speed each user sees.
struct MissedTargets {
    bool ttft = false, tpot = false, userSpeed = false;
};

MissedTargets missedTargets(const ServingFigures& f, const Slo& slo) {
    MissedTargets m;
    m.ttft = slo.ttftS && f.ttftS > *slo.ttftS;
    m.tpot = slo.tpotMs && f.tpotMs > *slo.tpotMs;
    m.userSpeed = slo.minUserTokensPerS && f.userTokensPerS < *slo.minUserTokensPerS;
    return m;
}

std::string figure(double value, const char* unit) {
    char text[48];
    std::snprintf(text, sizeof text, value < 10 ? "%.2f %s" : "%.0f %s", value, unit);
    return text;
}

}  // namespace

std::optional<Warning> sloWarning(const EstimateResult& r, const Slo& slo) {
    if (!r.fits) return std::nullopt;
    if (!r.serving) {
        return Warning{"slo_not_judged", "this plan has no continuous-batching figures to hold against the SLO "
                                         "(caliper serve searches deployments that have them)"};
    }
    if (meetsSlo(*r.serving, slo)) return std::nullopt;
    const ServingFigures& f = *r.serving;
    std::string missed;
    auto add = [&missed](const std::string& part) { missed += (missed.empty() ? "" : "; ") + part; };
    const MissedTargets targets = missedTargets(f, slo);
    if (targets.ttft) add("TTFT " + figure(f.ttftS, "s") + " above " + figure(*slo.ttftS, "s"));
    if (targets.tpot) add("TPOT " + figure(f.tpotMs, "ms") + " above " + figure(*slo.tpotMs, "ms"));
    if (targets.userSpeed) {
        add(figure(f.userTokensPerS, "tokens/s") + " per user below " + figure(*slo.minUserTokensPerS, "tokens/s"));
    }
    if (f.queued && !slo.ttftS) add("requests queue for room in the KV pool");
    if (f.saturated) add("the request rate is above what the plan completes");
    char concurrency[32];
    std::snprintf(concurrency, sizeof concurrency, "%.0f", f.concurrency);
    return Warning{"slo_not_met", std::string("at ") + concurrency + " concurrent requests: " + missed};
}

bool meetsSlo(const ServingFigures& f, const Slo& slo, double* gap) {
    double worst = 0;
    if (slo.ttftS) worst = std::max(worst, ratioAbove(f.ttftS, *slo.ttftS));
    if (slo.tpotMs) worst = std::max(worst, ratioAbove(f.tpotMs, *slo.tpotMs));
    if (slo.minUserTokensPerS && f.userTokensPerS > 0) {
        worst = std::max(worst, *slo.minUserTokensPerS / f.userTokensPerS);
    }
    if (f.saturated) worst = std::max(worst, 1.0 + 1e-9);
    // Users who wait for room in the KV pool are not being served at any
    // speed: without a first-token limit to judge the wait, a queue fails.
    if (f.queued && !slo.ttftS) worst = std::max(worst, 1.0 + 1e-9);
    if (gap) *gap = worst;
    return worst <= 1.0;
}

namespace {

ReplicaCapacity rateWithin(const serving::Evaluator& e, const Slo& slo, double cap) {
    ReplicaCapacity c;
    double lo = cap * 1e-6, hi = cap;
    const auto light = e.at(1, lo);
    if (!light) return c;
    c.best = *light;
    if (!meetsSlo(*light, slo, &c.gap)) return c;
    const auto top = e.at(1, hi);
    if (top && meetsSlo(*top, slo)) return {hi, *light, c.gap};
    for (int i = 0; i < kRateBisections; ++i) {  // geometric bisection
        const double mid = std::sqrt(lo * hi);
        const auto f = e.at(1, mid);
        if (f && meetsSlo(*f, slo)) lo = mid;
        else hi = mid;
    }
    c.perReplica = lo;
    return c;
}

void price(Deployment& d, const Scenario& s) {
    const CostEstimate cost = estimateCost(s, d.plan, SpeedEstimate{}, false);
    d.usdPerHour = cost.usdPerHour;
    d.purchaseUsd = cost.purchaseUsd;
    d.purchaseCny = cost.purchaseCny;
    d.powerW = cost.powerW.value_or(0);  // 0 = unknown board power (serve_json writes null)
    priceServing(d.serving, d.usdPerHour, d.powerW);
}

// A deployment of `gpuCount` GPUs in `replicas` replicas shaped like the
// candidate's (the decode replicas when split).
Deployment shapedLike(const Candidate& c, int replicas, int gpuCount) {
    Deployment d;
    d.gpu = c.scenario.gpu;
    d.kvCache = c.scenario.kvCache;
    d.kvChosen = c.kvChosen;
    d.weights = c.scenario.weights;
    d.weightsChosen = c.weightsChosen;
    d.replicas = replicas;
    d.gpuCount = gpuCount;
    d.plan = c.plan;
    d.plan.gpuCount = gpuCount;
    d.plan.dp = replicas;
    const int perNode = std::max(1, c.scenario.gpu.gpusPerNode);
    d.plan.nodes = (gpuCount + perNode - 1) / perNode;
    return d;
}

// Judges the deployment's figures against the SLO and prices it; the why
// codes it opens with say how the figures stand against the targets.
void judge(Deployment& d, const Scenario& s, const ServeOptions& o) {
    const ServingFigures& f = d.serving;
    d.meetsSlo = meetsSlo(f, o.slo, &d.sloGap);
    price(d, s);
    d.why.push_back(d.meetsSlo ? "meets_slo" : "closest_to_slo");
    const MissedTargets missed = missedTargets(f, o.slo);
    if (missed.ttft) d.why.push_back("ttft_above_slo");
    if (missed.tpot) d.why.push_back("tpot_above_slo");
    if (missed.userSpeed) d.why.push_back("user_speed_below_slo");
    if (f.queued) d.why.push_back("requests_queue_for_kv_pool");
}

// Whether the search chose 4-bit weights (a quality trade the request did
// not ask for; FP8 is the near-lossless one).
bool fourBitChosen(const Deployment& d) { return d.weightsChosen && weightFormatInfo(d.weights).fourBit; }

// The why codes deployments close with.
void closeWhy(Deployment& d) {
    // A 4-bit build says it trades accuracy and was tried because the wider
    // formats serve nothing within the SLO on this GPU.
    if (d.weightsChosen) d.why.push_back(fourBitChosen(d) ? "int4_weights_quality_trade" : "fp8_weights_more_users");
    if (d.kvChosen) d.why.push_back("fp8_kv_cache_more_users");
    if (d.replicas > 1 && !d.disaggregated) d.why.push_back("replicas_for_load");
    if (!d.usdPerHour && !d.purchaseUsd) d.why.push_back("unpriced");
}

// How one replica spreads the model over its GPUs, as a why code: tensor,
// pipeline or expert parallel, or one GPU (nothing for other layouts).
const char* replicaLayoutWhy(const Plan& plan, int gpusPerReplica) {
    if (plan.tp > 1) return "tensor_parallel_in_replica";
    if (plan.pp > 1) return "pipeline_parallel_in_replica";
    if (plan.ep > 1) return "expert_parallel_in_replica";
    if (gpusPerReplica <= 1) return "one_gpu_per_replica";
    return nullptr;
}

// llama.cpp's server runs n_parallel slots from one cache of n_ctx cells,
// each slot n_ctx / n_parallel of them (llama-server -np; Ollama
// OLLAMA_NUM_PARALLEL, KvSize = num_ctx x numParallel; MLX takes llama.cpp's
// figures): a replica is sized with a slot for each user it carries.
bool slotsPerReplica(const Scenario& s) { return runtimeOf(s.engine) == Engine::LlamaCpp; }

// The deployment of `replicas` copies of the candidate carrying the load.
std::optional<Deployment> deploy(const Candidate& c, int replicas, const ServeOptions& o) {
    Deployment d = shapedLike(c, replicas, c.gpus * replicas);
    Scenario s = c.scenario;
    s.gpuCount = d.gpuCount;
    const double users = o.users.value_or(1);
    s.batch = std::int64_t(std::ceil(users));
    // A slotted replica runs the slots it was sized with, not every user.
    if (slotsPerReplica(s)) s.batch = std::max<std::int64_t>(1, c.scenario.batch);
    const serving::Evaluator e(std::move(s), d.plan, c.memory);
    const auto f = e.at(users, o.requestRatePerS);
    if (!f) return std::nullopt;
    d.serving = *f;
    d.concurrencyPerReplica = f->concurrency / replicas;
    judge(d, e.scenario(), o);
    if (const char* layout = replicaLayoutWhy(c.plan, c.gpus)) d.why.push_back(layout);
    closeWhy(d);
    return d;
}

// The candidate re-sized with `slots` parallel slots (its cache holds that
// many contexts), if they still fit its GPUs in the same layout.
std::optional<Candidate> withSlots(const Candidate& c, int slots) {
    Candidate out = c;
    out.scenario.batch = slots;
    const PlannedMemory r = planMemory(out.scenario);
    if (!r.fits || r.plan.tp * r.plan.pp != c.gpus) return std::nullopt;
    out.plan = r.plan;
    out.memory = r.memory;
    return out;
}

struct Slotted {
    Deployment deployment;
    Candidate candidate;
};

// The fewest replicas of a slotted engine whose deployment meets the SLO,
// each replica sized by `sizedFor(replicas)` (nothing where that many do
// not hold their share): fewer users or requests a replica, faster steps and
// a smaller cache, so the replicas that meet the SLO are those above one
// count, found by bisection. Nothing when even `most` do not meet it.
template <typename SizedFor>
std::optional<Slotted> fewestSlottedReplicas(const ServeOptions& o, int most, const SizedFor& sizedFor) {
    auto sized = [&](int replicas) -> std::optional<Slotted> {
        std::optional<Candidate> k = sizedFor(replicas);
        if (!k) return std::nullopt;
        std::optional<Deployment> d = deploy(*k, replicas, o);
        if (!d || !d->meetsSlo) return std::nullopt;
        return Slotted{std::move(*d), std::move(*k)};
    };
    std::optional<Slotted> best = sized(1);
    if (best) return best;
    best = sized(most);
    if (!best) return std::nullopt;
    int lo = 1, hi = most;  // lo misses, hi meets
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        if (std::optional<Slotted> m = sized(mid)) {
            hi = mid;
            best = std::move(m);
        } else {
            lo = mid;
        }
    }
    return best;
}

// The fewest replicas of a slotted engine that carry the users within the
// SLO, each sized with ceil(users / replicas) slots (and meeting it with all
// of them busy).
std::optional<Slotted> slottedDeployment(const Candidate& c, const ServeOptions& o) {
    const double users = *o.users;
    const int most = std::max(1, std::min(o.maxGpus / std::max(1, c.gpus), int(std::ceil(users))));
    return fewestSlottedReplicas(o, most, [&](int replicas) -> std::optional<Candidate> {
        const int slots = int(std::ceil(users / replicas - 1e-9));
        if (slots > kMaxUsersPerReplica) return std::nullopt;
        std::optional<Candidate> k = withSlots(c, slots);
        if (!k) return std::nullopt;
        // Users are whole: the fullest server runs all its slots, and must
        // meet the SLO so (the deployment's figures are the mean load's).
        const serving::Evaluator server(k->scenario, k->plan, k->memory);
        const std::optional<ServingFigures> full = server.at(slots, std::nullopt);
        if (!full || !meetsSlo(*full, o.slo)) return std::nullopt;
        return k;
    });
}

// Fixed-point steps of the slots a request rate needs (slotsForRate): each
// step's slots are at least the last's, and they settle within a few.
constexpr int kSlotIterations = 16;

// The candidate with the most slots in (`fitting`, `over`) its GPUs hold
// (`fitting` holds, `over` does not): the KV pool bounds the slots.
std::optional<Candidate> mostSlotsWithin(const Candidate& c, std::optional<Candidate> atFitting, int fitting, int over) {
    while (over - fitting > 1) {
        const int mid = fitting + (over - fitting) / 2;
        if (std::optional<Candidate> k = withSlots(c, mid)) {
            fitting = mid;
            atFitting = std::move(k);
        } else {
            over = mid;
        }
    }
    return atFitting;
}

// Where no count of slotted replicas meets the SLO: the closest option
// still carries the users asked, on the most replicas max_gpus allows (the
// fewest slots each, so the fastest steps), each sized with its share of
// them, or with the most slots its GPUs hold (the rest then queue, `why`
// requests_queue_for_kv_pool). Nothing where one slot does not fit.
std::optional<Slotted> slottedClosest(const Candidate& c, const ServeOptions& o) {
    const double users = *o.users;
    const int replicas = std::max(1, std::min(o.maxGpus / std::max(1, c.gpus), int(std::ceil(users - 1e-9))));
    const int slots = int(std::min(kMaxUsersPerReplica, std::ceil(users / replicas - 1e-9)));
    std::optional<Candidate> k = withSlots(c, slots);
    if (!k && slots > 1) k = mostSlotsWithin(c, withSlots(c, 1), 1, slots);
    if (!k) return std::nullopt;
    std::optional<Deployment> d = deploy(*k, replicas, o);
    if (!d) return std::nullopt;
    return Slotted{std::move(*d), std::move(*k)};
}

// The slots one replica of a slotted engine needs for its share of a
// request rate, by Little's law: the requests in flight are the arrival
// rate times a request's latency, L = lambda x W, with W = TTFT + (output
// tokens - 1) x TPOT (Little 1961; the open loop of steady_state.cpp uses
// the same law), and W grows with L (each decode step carries more
// sequences). From one slot, the replica is re-sized with ceil(lambda x W)
// slots and judged again until its slots cover the requests in flight (the
// fixed point), or its GPUs hold no more (the most slots the KV pool holds:
// the open loop then finds it saturated, and the deployment misses the SLO).
std::optional<Candidate> slotsForRate(const Candidate& c, double ratePerS) {
    const double outputTokens = double(std::max<std::int64_t>(1, c.scenario.outputTokens));
    int slots = 1;
    std::optional<Candidate> k = withSlots(c, slots);
    for (int i = 0; k && i < kSlotIterations; ++i) {
        const serving::Evaluator e(k->scenario, k->plan, k->memory);
        const std::optional<ServingFigures> f = e.at(1, ratePerS);
        if (!f) return std::nullopt;
        const double latencyS = f->ttftS + (outputTokens - 1.0) * f->tpotMs / 1e3;
        const int next = int(std::min(kMaxUsersPerReplica, std::ceil(ratePerS * latencyS - 1e-9)));
        if (next <= slots) return k;
        std::optional<Candidate> more = withSlots(c, next);
        if (!more) return mostSlotsWithin(c, std::move(k), slots, next);
        k = std::move(more);
        slots = next;
    }
    return k;
}

// The fewest replicas of a slotted engine that carry a request rate within
// the SLO, each sized with the slots its share of the rate keeps in flight
// (slotsForRate).
std::optional<Slotted> slottedRateDeployment(const Candidate& c, const ServeOptions& o) {
    const double rate = *o.requestRatePerS;
    const int most = std::max(1, o.maxGpus / std::max(1, c.gpus));
    return fewestSlottedReplicas(o, most, [&](int replicas) { return slotsForRate(c, rate / replicas); });
}

// Disaggregated serving: how far the sizing loop grows the replicas.
constexpr int kDisaggregatedSizingSteps = 48;

// The per-output-token time the SLO allows (TPOT or the user's speed), or
// infinity without either.
double tpotLimitS(const Slo& slo) {
    double limit = HUGE_VAL;
    if (slo.tpotMs) limit = std::min(limit, *slo.tpotMs / 1e3);
    if (slo.minUserTokensPerS) limit = std::min(limit, 1.0 / *slo.minUserTokensPerS);
    return limit;
}

// The most requests one decode-only replica runs within the TPOT limit (its
// pool's limit at most; 1 when even one misses it): TPOT rises with them.
double decodesWithin(const Scenario& s, const serving::Evaluator& decode, double limitS) {
    double lo = 1, hi = std::max(1.0, std::min(decode.runningLimit(), decode.model().engine.maxRunningRequests));
    if (serving::decodeOnlyTpotS(s, decode.model(), hi) <= limitS) return hi;
    while (hi - lo > 1) {
        const double mid = std::floor((lo + hi) / 2);
        if (serving::decodeOnlyTpotS(s, decode.model(), mid) <= limitS) lo = mid;
        else hi = mid;
    }
    return lo;
}

// A disaggregated deployment of prefill replicas like `prefill` and decode
// replicas like `decode`: decode replicas added until each runs no more
// requests than meet the TPOT target, prefill replicas until the TTFT target
// holds and they keep up with the arrivals.
std::optional<Deployment> disaggregate(const Candidate& prefill, const Candidate& decode, const ServeOptions& o) {
    const serving::Evaluator ep(prefill.scenario, prefill.plan, prefill.memory);
    const serving::Evaluator ed(decode.scenario, decode.plan, decode.memory);
    if (!ep.runs() || !ed.runs()) return std::nullopt;
    Scenario s = decode.scenario;
    s.serving.requestRatePerS = o.requestRatePerS;
    const double users = o.users.value_or(1);
    const double perDecodeReplica = decodesWithin(s, ed, tpotLimitS(o.slo));
    serving::DisaggregatedShape shape;
    shape.kvTransferS = serving::kvTransferS(prefill.scenario, ep.model(), prefill.gpus, decode.gpus);
    shape.decodeRunningLimit = ed.runningLimit();
    auto gpusOf = [&](const serving::DisaggregatedShape& x) {
        return x.prefillReplicas * prefill.gpus + x.decodeReplicas * decode.gpus;
    };
    serving::DisaggregatedState st;
    for (int step = 0; step < kDisaggregatedSizingSteps && gpusOf(shape) <= o.maxGpus; ++step) {
        st = serving::disaggregatedState(s, ep.model(), ed.model(), shape, users);
        const double decoding = st.decodingPerReplica * shape.decodeReplicas;
        if (st.queued || st.decodingPerReplica > perDecodeReplica) {
            shape.decodeReplicas = std::max(shape.decodeReplicas + 1, int(std::ceil(decoding / perDecodeReplica)));
        } else if (st.saturated || (o.slo.ttftS && st.ttftS > *o.slo.ttftS && st.prefillWaitS > 0)) {
            // The prefill replicas whose M/D/1 wait rho / (2 (1 - rho)) x
            // service fits what the target leaves after the rest of the TTFT
            // (at most 90% busy without a TTFT target).
            const double restS = st.ttftS - st.prefillWaitS;
            double rho = 0.9;
            if (o.slo.ttftS) {
                const double waitS = *o.slo.ttftS - restS;
                if (waitS <= 0) break;  // more prefill replicas cannot meet it
                rho = std::min(rho, 2 * waitS / (st.prefillServiceS + 2 * waitS));
            }
            const int needed = int(std::ceil(st.arrivalsPerS * st.prefillServiceS / rho));
            shape.prefillReplicas = std::max(shape.prefillReplicas + 1, needed);
        } else {
            break;
        }
    }
    if (gpusOf(shape) > o.maxGpus) return std::nullopt;
    st = serving::disaggregatedState(s, ep.model(), ed.model(), shape, users);
    if (!(st.tpotS > 0) || !std::isfinite(st.ttftS) || !(st.ttftS > 0)) return std::nullopt;

    Deployment d = shapedLike(decode, shape.prefillReplicas + shape.decodeReplicas, gpusOf(shape));
    d.disaggregated = DisaggregatedSplit{shape.prefillReplicas, prefill.gpus, shape.decodeReplicas, decode.gpus,
                                         shape.kvTransferS};
    const double output = double(std::max<std::int64_t>(1, s.outputTokens));
    serving::DeploymentState whole;
    whole.concurrency = o.requestRatePerS ? st.requestsPerS * (st.ttftS + (output - 1) * st.tpotS) : users;
    whole.ttftS = st.ttftS;
    whole.tpotS = st.tpotS;
    whole.requestsPerS = st.requestsPerS;
    whole.gpus = d.gpuCount;
    whole.runningPerReplica = st.decodingPerReplica;
    whole.prefillOwnS = st.prefillOwnS;
    whole.prefillWaitS = st.prefillWaitS;
    whole.queued = st.queued;
    whole.saturated = st.saturated;
    d.serving = serving::servingFigures(whole, ed.pool(), output);
    d.concurrencyPerReplica = st.decodingPerReplica;
    judge(d, s, o);
    d.why.push_back("disaggregated_prefill_decode");
    closeWhy(d);
    return d;
}

double rankPrice(const Deployment& d, bool purchase) {
    const std::optional<double>& p = purchase ? d.purchaseUsd : d.usdPerHour;
    return p ? *p : HUGE_VAL;
}

std::vector<CurvePoint> frontier(const Candidate& c) {
    std::vector<CurvePoint> points;
    const serving::Evaluator e(c.scenario, c.plan, c.memory);
    if (!e.runs()) return points;
    const double limit = std::min(kMaxUsersPerReplica, e.runningLimit());
    for (double users = 1; users <= limit && int(points.size()) < kMaxCurvePoints; users *= 2) {
        const auto f = e.at(users, std::nullopt);
        if (!f) break;
        // The frontier: more concurrency must buy throughput per GPU.
        if (!points.empty() && f->outputTokensPerSPerGpu <= points.back().outputTokensPerSPerGpu) break;
        points.push_back({users, f->userTokensPerS, f->outputTokensPerSPerGpu, f->ttftS, f->tpotMs});
    }
    return points;
}

// A disaggregated deployment's frontier: its prefill and decode replicas as
// sized, at 1, 2, 4, ... users up to what its decode pools hold.
std::vector<CurvePoint> disaggregatedFrontier(const Candidate& prefill, const Candidate& decode, const Deployment& d) {
    std::vector<CurvePoint> points;
    const serving::Evaluator ep(prefill.scenario, prefill.plan, prefill.memory);
    const serving::Evaluator ed(decode.scenario, decode.plan, decode.memory);
    if (!ep.runs() || !ed.runs() || !d.disaggregated) return points;
    Scenario s = decode.scenario;
    s.serving.requestRatePerS.reset();
    serving::DisaggregatedShape shape;
    shape.prefillReplicas = d.disaggregated->prefillReplicas;
    shape.decodeReplicas = d.disaggregated->decodeReplicas;
    shape.kvTransferS = d.disaggregated->kvTransferS;
    shape.decodeRunningLimit = ed.runningLimit();
    const double output = double(std::max<std::int64_t>(1, s.outputTokens));
    const double limit = std::min(kMaxUsersPerReplica, ed.runningLimit()) * shape.decodeReplicas;
    for (double users = 1; users <= limit && int(points.size()) < kMaxCurvePoints; users *= 2) {
        const serving::DisaggregatedState st = serving::disaggregatedState(s, ep.model(), ed.model(), shape, users);
        if (!(st.tpotS > 0) || st.saturated) break;
        const double perGpu = st.requestsPerS * output / d.gpuCount;
        if (!points.empty() && perGpu <= points.back().outputTokensPerSPerGpu) break;
        points.push_back({users, 1.0 / st.tpotS, perGpu, st.ttftS, st.tpotS * 1e3});
    }
    return points;
}

// How far the search moved from the request's open formats (ranks the
// request's own first at the same price and GPU count, and FP8 weights
// before 4-bit ones).
int formatsChanged(const Deployment& d) { return int(d.kvChosen) + int(d.weightsChosen) + int(fourBitChosen(d)); }

}  // namespace

ServeAnswer serve(const Scenario& workload, const std::vector<GpuSpec>& gpus, const ServeOptions& o) {
    ServeAnswer answer;
    // A context past the model's: vLLM refuses a max_model_len above the
    // model's max_position_embeddings (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN);
    // the figures keep the request's tokens, as the estimate's do.
    if (std::optional<Warning> w = contextWarning(workload)) answer.warnings.push_back(std::move(*w));
    // A candidate is shared by every option made of it (a Scenario's copy,
    // its model's and GPU's strings, per option was most of serve's time).
    using Shared = std::shared_ptr<const Candidate>;
    struct Option {
        Deployment deployment;
        Shared candidate;  // the replica (the decode replica when disaggregated)
        Shared prefill;    // the prefill replica when disaggregated, else null
    };
    std::vector<Option> meeting, closest;
    for (const GpuSpec& gpu : gpus) {
        Scenario base = workload;
        base.gpu = gpu;
        adaptToGpu(base);
        if (!continuousBatching(base)) continue;
        if (!servingFiguresKnown(base)) {  // no figures to serve with, as estimate() gives none
            answer.speedUnknownIds.push_back(gpu.id);
            answer.speedUnknownNames.push_back(gpu.name.empty() ? gpu.id : gpu.name);
            continue;
        }
        base.gpuCountAuto = true;
        base.batch = 1;
        // A GPU the estimate rejects for this engine or format (TensorRT-LLM
        // off NVIDIA, MLX off Apple, FP8 weights below Ampere) serves nothing.
        if (std::optional<Error> rejected = scenarioError(base)) {
            ++answer.rejectedGpus;
            if (!answer.firstRejection) answer.firstRejection = std::move(*rejected);
            continue;
        }
        // The deployments of one replica format on this GPU, added to
        // `meeting` and `closest`; true where some replica meets the SLO at
        // a load of its own (only the users asked are too many for max_gpus).
        auto tryFormats = [&](const Formats formats) {
            bool replicaMeets = false;
            Scenario s = base;
            s.kvCache = formats.kv;
            if (formats.weights != base.weights) {
                s.weights = formats.weights;
                s.weightsWhy = weightFormatInfo(formats.weights).fourBit ? "weights_int4_serving" : "weights_fp8_serving";
            }
            const std::optional<int> fewest = fewestGpus(s);
            if (!fewest || *fewest > o.maxGpus) return replicaMeets;
            std::vector<Shared> sizes;  // replica shapes, for the disaggregated deployments
            for (const int n : replicaSizes(*fewest, o.maxGpus)) {
                std::optional<Candidate> made = candidate(s, n);
                if (!made) continue;
                made->kvChosen = formats.kv != base.kvCache;
                made->weightsChosen = formats.weights != base.weights;
                const Shared c = std::make_shared<const Candidate>(std::move(*made));
                // Disaggregated prefill and decode replicas: the fewest GPUs
                // that hold the model and twice that, each side.
                if (n == *fewest || n == 2 * *fewest) sizes.push_back(c);
                if (o.disaggregation == ServeOptions::Disaggregation::Yes) continue;
                ++answer.candidates;
                if (slotsPerReplica(c->scenario) && (o.users || o.requestRatePerS)) {
                    if (std::optional<Slotted> sl = o.users ? slottedDeployment(*c, o) : slottedRateDeployment(*c, o)) {
                        replicaMeets = true;
                        meeting.push_back({std::move(sl->deployment),
                                           std::make_shared<const Candidate>(std::move(sl->candidate)), nullptr});
                        continue;
                    }
                    if (o.users) {
                        if (std::optional<Slotted> sl = slottedClosest(*c, o)) {
                            (sl->deployment.meetsSlo ? meeting : closest)
                                .push_back({std::move(sl->deployment),
                                            std::make_shared<const Candidate>(std::move(sl->candidate)), nullptr});
                        }
                        continue;
                    }
                }
                const serving::Evaluator e(c->scenario, c->plan, c->memory);
                if (!e.runs()) continue;
                const double cap = o.requestRatePerS ? *o.requestRatePerS : std::min(kMaxUsersPerReplica, *o.users);
                const ReplicaCapacity capacity = o.requestRatePerS ? rateWithin(e, o.slo, cap) : usersWithin(e, o.slo, cap);
                if (capacity.perReplica <= 0) {
                    // Nothing meets the SLO here: keep the lightest-load figures as a "closest" option.
                    if (auto d = deploy(*c, 1, ServeOptions{o.slo, o.users ? std::optional<double>(1.0) : std::nullopt,
                                                             o.requestRatePerS ? std::optional<double>(cap * 1e-6) : std::nullopt,
                                                             o.maxGpus, o.purchasePricing, o.top})) {
                        closest.push_back({std::move(*d), c, nullptr});
                    }
                    continue;
                }
                replicaMeets = true;
                const double load = o.requestRatePerS ? *o.requestRatePerS : *o.users;
                int replicas = int(std::ceil(load / capacity.perReplica - 1e-9));
                if (replicas < 1) continue;
                // The load needs more replicas than max_gpus allows: the most
                // that fit carry it all, judged as they stand (a closest
                // option, not a silent drop that reads as "does not fit").
                if (double(replicas) * n > o.maxGpus) replicas = o.maxGpus / n;
                if (replicas < 1) continue;
                if (auto d = deploy(*c, replicas, o)) {
                    (d->meetsSlo ? meeting : closest).push_back({std::move(*d), c, nullptr});
                }
            }
            if (o.disaggregation == ServeOptions::Disaggregation::No || !continuousBatching(s) ||
                runtimeOf(s.engine) == Engine::LlamaCpp)
                return replicaMeets;
            for (const Shared& prefill : sizes) {
                for (const Shared& decode : sizes) {
                    ++answer.candidates;
                    if (auto d = disaggregate(*prefill, *decode, o)) {
                        replicaMeets = replicaMeets || d->meetsSlo;
                        (d->meetsSlo ? meeting : closest).push_back({std::move(*d), decode, prefill});
                    }
                }
            }
            return replicaMeets;
        };
        const std::size_t meetingBefore = meeting.size();
        for (const Formats formats : formatsTried(base)) tryFormats(formats);
        // A 4-bit build only where the request's formats and FP8 serve
        // nothing within the SLO on this GPU (they do not fit max_gpus, or
        // miss a target): it trades accuracy, so it is the last resort. With
        // an FP8 KV cache only where 4-bit weights with the request's cache
        // meet the SLO at some load but not the load asked within max_gpus
        // (twice the tokens per pool carries more users a replica; a replica
        // too slow for one user is no faster with it).
        if (meeting.size() == meetingBefore) {
            bool replicaMeets = true;
            for (const Formats formats : int4FormatsTried(base)) {
                if (meeting.size() > meetingBefore || !replicaMeets) break;
                replicaMeets = tryFormats(formats);
            }
        }
    }
    answer.anyMeetsSlo = !meeting.empty();
    std::vector<Option>& pool = meeting.empty() ? closest : meeting;
    std::stable_sort(pool.begin(), pool.end(), [&](const Option& a, const Option& b) {
        const Deployment& x = a.deployment;
        const Deployment& y = b.deployment;
        if (!answer.anyMeetsSlo && x.sloGap != y.sloGap) return x.sloGap < y.sloGap;
        const double px = rankPrice(x, o.purchasePricing), py = rankPrice(y, o.purchasePricing);
        if (px != py) return px < py;
        if (x.gpuCount != y.gpuCount) return x.gpuCount < y.gpuCount;
        // At the same price and count the request's own formats (no
        // quality trade) come first.
        if (formatsChanged(x) != formatsChanged(y)) return formatsChanged(x) < formatsChanged(y);
        return x.serving.outputTokensPerSPerGpu > y.serving.outputTokensPerSPerGpu;
    });
    // One line per GPU and layout: the better-ranked formats.
    auto sameLayout = [](const Deployment& x, const Deployment& y) {
        return x.gpu.id == y.gpu.id && x.gpuCount == y.gpuCount && x.replicas == y.replicas && x.plan.tp == y.plan.tp &&
               x.plan.pp == y.plan.pp && x.disaggregated.has_value() == y.disaggregated.has_value();
    };
    std::vector<Option> ranked;
    for (Option& option : pool) {
        const bool seen = std::any_of(ranked.begin(), ranked.end(),
                                      [&](const Option& r) { return sameLayout(r.deployment, option.deployment); });
        if (!seen) ranked.push_back(std::move(option));
    }
    pool = std::move(ranked);
    // A deployment on more GPUs of the same kind than another listed one
    // that is no faster for a user, no sooner to the first token and carries
    // no more of the load buys nothing with them (a larger KV pool than the
    // load fills is no gain): it is left out.
    // A 4-bit deployment leaves one with wider weights listed: its fewer GPUs
    // come at a loss of accuracy, not for nothing.
    auto dominates = [](const Deployment& a, const Deployment& b) {
        const ServingFigures& x = a.serving;
        const ServingFigures& y = b.serving;
        if (fourBitChosen(a) && !fourBitChosen(b)) return false;
        return a.gpu.id == b.gpu.id && a.gpuCount < b.gpuCount && int(a.meetsSlo) >= int(b.meetsSlo) &&
               x.userTokensPerS >= y.userTokensPerS && x.ttftS <= y.ttftS && x.concurrency >= y.concurrency &&
               x.requestsPerS >= y.requestsPerS && int(x.queued) <= int(y.queued) && int(x.saturated) <= int(y.saturated);
    };
    std::vector<bool> dominated(pool.size(), false);
    for (std::size_t i = 0; i < pool.size(); ++i) {
        for (std::size_t j = 0; j < pool.size() && !dominated[i]; ++j) {
            dominated[i] = j != i && dominates(pool[j].deployment, pool[i].deployment);
        }
    }
    std::vector<Option> undominated;
    for (std::size_t i = 0; i < pool.size(); ++i) {
        if (!dominated[i]) undominated.push_back(std::move(pool[i]));
    }
    pool = std::move(undominated);
    for (std::size_t i = 0; i < pool.size() && int(i) < o.top; ++i) answer.deployments.push_back(pool[i].deployment);
    if (!pool.empty()) {
        const Option& first = pool.front();
        answer.curve = first.prefill ? disaggregatedFrontier(*first.prefill, *first.candidate, first.deployment)
                                     : frontier(*first.candidate);
    }
    return answer;
}

}  // namespace caliper
