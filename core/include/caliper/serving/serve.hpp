#pragma once
// `caliper serve`: the deployments that serve a model to a number of users
// (or a request rate) within a latency target (SLO), ranked by cost, with the
// throughput/interactivity frontier of the first one. Disaggregated prefill /
// decode deployments are not searched.
#include <optional>
#include <string>
#include <vector>

#include "caliper/catalog.hpp"
#include "caliper/error.hpp"
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"
#include "caliper/serving/serving.hpp"

namespace caliper {

struct Slo {
    std::optional<double> ttftS;
    std::optional<double> tpotMs;
    std::optional<double> minUserTokensPerS;
};

struct ServeOptions {
    Slo slo;
    std::optional<double> users;           // concurrent users (closed loop)
    std::optional<double> requestRatePerS; // or arrivals per second (open loop)
    int maxGpus = 64;
    bool purchasePricing = false;          // rank by purchase price instead of the cloud bill
    int top = 5;
    // Disaggregated prefill/decode deployments: not tried (no, the
    // default: a split deployment cannot yet be estimated alone), tried
    // beside the others (auto) or the only ones (yes).
    enum class Disaggregation { Auto, Yes, No } disaggregation = Disaggregation::No;
};

// A disaggregated deployment's split: prompts on prefill replicas, the
// decoding on decode replicas, each request's KV cache sent between them.
struct DisaggregatedSplit {
    int prefillReplicas = 1;
    int prefillGpusPerReplica = 1;
    int decodeReplicas = 1;
    int decodeGpusPerReplica = 1;
    double kvTransferS = 0;  // one request's prompt KV
};

struct Deployment {
    GpuSpec gpu;
    int gpuCount = 1;
    Plan plan;                 // the whole deployment (dp = replicas)
    int replicas = 1;
    double concurrencyPerReplica = 1;
    KvFormat kvCache = KvFormat::Bf16;  // the replica's KV cache
    bool kvChosen = false;              // FP8 KV chosen by the search, the request left it open
    WeightFormat weights = WeightFormat::Bf16;  // the replica's weights
    bool weightsChosen = false;         // FP8 or 4-bit weights chosen by the search, the request left them open
    std::optional<DisaggregatedSplit> disaggregated;  // unset: every replica prefills and decodes
    ServingFigures serving;
    std::optional<double> usdPerHour;   // cloud bill of every GPU
    std::optional<double> purchaseUsd;  // all cards
    std::optional<double> purchaseCny;  // all cards, in CNY (the catalog's CNY price where it has one)
    double powerW = 0;
    bool meetsSlo = false;
    double sloGap = 0;         // worst ratio of a figure to its target (<= 1 meets)
    std::vector<std::string> why;  // short codes
};

struct CurvePoint {
    double concurrency = 0;
    double userTokensPerS = 0;
    double outputTokensPerSPerGpu = 0;
    double ttftS = 0;
    double tpotMs = 0;
};

struct ServeAnswer {
    std::vector<Deployment> deployments;
    std::vector<CurvePoint> curve;
    bool anyMeetsSlo = false;
    int candidates = 0;  // (GPU, GPUs per replica) pairs evaluated
    // GPUs left out because the catalog gives no memory bandwidth: no decode
    // speed can be estimated for them (the estimate's speed_unknown).
    std::vector<std::string> speedUnknownIds, speedUnknownNames;
    // GPUs whose single estimate rejects the request (scenarioError), and
    // the first such error: where every GPU is, the request is the mistake.
    int rejectedGpus = 0;
    std::optional<Error> firstRejection;
    // What holds for every deployment (the request's context against the
    // model's, as the estimate warns).
    std::vector<Warning> warnings;
};

// `workload` carries the model, engine, lengths and serving options; its GPU
// is set from `gpus` one by one.
ServeAnswer serve(const Scenario& workload, const std::vector<GpuSpec>& gpus, const ServeOptions& options);

// Whether serving figures meet the SLO, and the worst figure/target ratio.
bool meetsSlo(const ServingFigures& figures, const Slo& slo, double* gap = nullptr);

// What one estimate says against an SLO: "slo_not_met" naming each target
// its serving figures miss, "slo_not_judged" where it has no serving figures
// (an engine without continuous batching, or no speed), nothing when met or
// when the plan does not fit (does_not_fit says so).
std::optional<Warning> sloWarning(const EstimateResult& result, const Slo& slo);

}  // namespace caliper
