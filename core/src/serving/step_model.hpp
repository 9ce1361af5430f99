#pragma once
// The time of one engine step of a serving replica that carries `decodes`
// running requests at `context` tokens and `prefillTokens` prompt tokens of
// new requests: weights read (MoE: the experts that many tokens touch), KV
// reads, matmul and attention compute where they bind, tensor- and
// expert-parallel communication, and the engine's per-step host work.
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"
#include "speed/comm.hpp"
#include "plan/workload.hpp"
#include "serving/engine_defaults.hpp"
#include "speed/held_per_gpu.hpp"

namespace caliper::serving {

// How one replica spreads over its GPUs.
struct ReplicaLayout {
    int gpus = 1;         // GPUs of one replica: attentionTp x attentionDp x pp
    int attentionTp = 1;  // tensor-parallel ranks of attention and dense layers
    int attentionDp = 1;  // attention data-parallel groups (each holds its own requests' KV)
    int pp = 1;
    int replicas = 1;     // copies of the model serving separate requests
    Link tpLink;
    Link expertLink;      // all-to-all of expert parallelism across the replica
    Link stageLink;
};

ReplicaLayout replicaLayout(const Scenario& scenario, const Plan& plan);

struct StepModel {
    StepModel() = default;
    // On the model's workload, copied in as the model is made (not made
    // empty first and then copied over: a speed figure builds one per cell).
    explicit StepModel(const Workload& w) : work(w) {}

    Workload work;
    ReplicaLayout layout;
    SchedulerDefaults engine;
    double bandwidthBytesPerS = 0;   // achieved, per GPU
    double decodeFlopsPerS = 0;      // achieved per GPU on decode-shaped GEMMs
    double prefillFlopsPerS = 0;     // achieved per GPU on prompt-shaped GEMMs
    double layerOverheadS = 0;       // per layer per step (CUDA-graph replayed kernels)
    double unpackS = 0;              // per GPU per step: ALU time unpacking GGUF K-quant blocks (decode.cpp's term)
    double kvReadFraction = 1;       // paged KV reads' achieved bandwidth / the weights'
    double kvShare = 1;              // share of a token's KV one attention rank reads (full-attention layers)
    double slidingKvShare = 1;       // the same on the sliding-window layers (their own KV heads: MiMo-V2-Flash)
    bool expertParallel = false;
    double draftCostShare = 0;       // speculative drafting cost per drafted token, share of a target step
    double tpLatencyPriorS = 0;      // the tensor-parallel link's latency before calibration
    double expertReadFactor = 1;     // routed experts' read time over whole experts' (split by MoE TP)
    double moeLayers = 0;            // layers with routed experts
    double localExperts = 0;         // routed experts (or slices of them) one rank holds per MoE layer
    double expertTimeS = 0;          // fixed GPU time per local expert per MoE layer per step

    double stepS(double decodes, double context, double prefillTokens, double prefillContext) const;
    // KV bytes one attention rank reads for one sequence at `context`, and
    // one token's KV one rank holds: each kind of layer at its own share.
    double kvReadOnRank(double context) const;
    double kvBytesPerTokenOnRank() const;
    // Time of a prompt step's linear layers over a dense layer's at the same
    // FLOPs: routed experts' grouped GEMMs at the few rows each expert gets.
    double routedExpertSlowdown(double stepTokens) const;
};

StepModel stepModel(const Scenario& scenario, const Plan& plan);
// The same with the scenario's workload already worked out (a matrix row's).
StepModel stepModel(const Scenario& scenario, const Plan& plan, const Workload& work);
// The same for prompt-free decode steps (stepS with no prefill tokens), as
// the single-stream decode figure takes them: the engine's request-level
// constants (request overhead, prefill time factor, synchronized share) are
// left unset, since such a step never reads them.
StepModel decodeStepModel(const Scenario& scenario, const Plan& plan, const Workload& work);
// What a step model reads of one engine and weight format on one GPU, the
// same for every model and plan: the serving calibration's cell, the
// engine's scheduler defaults with their calibrated step constants (before
// the request's knobs), the achieved rates and the calibrated per-layer
// time and KV read rate.
struct StepConstants {
    Engine engine{};
    WeightFormat format{};
    ServingCell cell;
    SchedulerDefaults engineDefaults;  // engineSchedulerDefaults + calibrateStepDefaults
    double bandwidthBytesPerS = 0, decodeFlopsPerS = 0, prefillFlopsPerS = 0;
    double layerOverheadS = 0, kvReadFraction = 1;
    double expertTimeS = 0;         // per local expert per MoE layer (serving engines only)
    double unpackOpsPerWeight = 0;  // dequantOpsPerWeight where the GPU lists an FP32 rate, else 0
    double fp32FlopsPerS = 0;
    // The calibrated NVLink all-reduce latency for the last prior asked (-1: none yet).
    double allReducePriorS = -1, allReduceLatencyS = 0;
};

// The constants above worked out afresh.
StepConstants stepConstants(Engine engine, WeightFormat format, const GpuSpec& gpu);
// While alive, the step constants of `gpu` (that very object) are worked
// out once per engine and weight format and read back: the matrix builds a
// decode step model for every vLLM or SGLang cell of a GPU column. (Engine
// x format pairs of one column; more are not kept.)
using HeldStepConstants = HeldPerGpu<StepConstants, stepConstants, 8>;

// Read time of a routed expert split over `moeTp` ranks (each holds
// intermediate / moeTp of it) over the whole expert's, per byte.
double expertSplitReadFactor(double intermediate, int moeTp);
// Sets the step model's calibrated figures (achieved rates, per-layer and
// all-reduce times, the engine's calibrated defaults) from the active
// calibration: stepModel calls it, and a fit re-applies it per trial.
void calibrateStepModel(StepModel& model, const Scenario& scenario);

}  // namespace caliper::serving
