// Lower bounds of the GPU-count search (count_bounds.hpp). Each rests on a
// test the plan's evaluation applies itself (memory.cpp evaluateIfFits), so
// a count below a bound fails that test whatever plan is made for it.
#include "plan/count_bounds.hpp"

#include <algorithm>
#include <cmath>

#include "caliper/plan/plan.hpp"
#include "caliper/units.hpp"
#include "memory/overhead.hpp"

namespace caliper {

namespace {

// The full tests (a stage's whole memory, KV cache and activations beside
// the weights) tried per degree, from the most layers its weights allow
// down; past them the bound keeps the layers not yet ruled out, which are
// still at least the most that fit. One: in the whole-catalog matrix a
// second test costs more than the probes it saves.
constexpr int kFullTestsPerDegree = 1;

// What the stage tests of every tensor degree share: serving plans above
// one GPU hold the same overheads whatever their count.
struct FirstStages {
    const sizing::Inputs& in;
    sizing::Layout layout;
    double fixedBytes = 0;

    sizing::Stage stage(int layers) const {
        sizing::Stage first;
        first.layers = layers;
        first.last = false;  // stages after it hold lm_head
        return first;
    }
    bool weightsPass(int layers) const {
        const double weights = sizing::weightBytes(in, layout, stage(layers), sizing::Explain());
        return !sizing::floorOverflows(in, weights, fixedBytes);
    }
    bool fits(int layers) const { return sizing::stageFits(in, layout, stage(layers)); }
};

// The most layers a first stage at the layout's degree can hold by its
// weights (evaluateIfFits' floor): a closed-form guess, settled by that
// test (the weights grow with the layers).
int mostLayersByWeights(const FirstStages& f) {
    const int layers = f.in.shape().stackLayers;
    const sizing::WeightParts& w = f.in.weights();
    const double room = (gibToBytes(f.in.usableGiB) - f.fixedBytes) * f.layout.tp - w.embedBytes - w.extraBytes;
    int k = w.layerBytes > 0 ? int(std::clamp(std::floor(room / w.layerBytes), 0.0, double(layers))) : layers;
    while (k < layers && f.weightsPass(k + 1)) ++k;
    while (k > 0 && !f.weightsPass(k)) --k;
    return k;
}

// Of those, the layers below the first whose whole memory fits (its KV
// cache and activations beside the weights): every more layers failed a
// test, so a fitting first stage holds at most this many.
int mostLayersThatFit(const FirstStages& f, int byWeights) {
    int k = byWeights;
    for (int tests = 0; k > 0 && tests < kFullTestsPerDegree && !f.fits(k); ++tests) --k;
    return k;
}

int ceilDiv(int a, int b) { return (a + b - 1) / b; }

}  // namespace

// No plan spreads the weights thinner than evenly over all GPUs, and every
// GPU also holds its CUDA context: a count below weights / (usable - context)
// cannot fit, so no probe goes below it (not even one GPU: most cells that
// fit on none of the catalog's GPU counts are ruled out here unevaluated).
// Not where training keeps the weights in host RAM (ZeRO-3's offload_param):
// its GPUs hold a gathered working set, whatever the model's size.
double lowestPossibleCount(const sizing::Inputs& in) {
    if (in.training && in.scenario->parallel.offload == Offload::Parameters) return 1;
    const double budget = in.usableGiB - sizing::kCudaContextGiB;
    const double weights = bytesToGiB(in.weights().total(in.shape().stackLayers));
    return budget > 0 ? weights / budget : double(kMaxGpus) + 1;
}

// The same bound for counts above one, where every GPU also holds the
// overheads no plan removes beside the context (memory.cpp evaluateIfFits
// tests a stage's weights with them): the NCCL buffers of a multi-GPU plan
// and a serving engine's captured graphs (overhead.cpp fixedOverhead; the
// count enters only as "more than one"). A stage's total is never below its
// weights plus these, and the fullest stage holds at least weights / count,
// so a count below weights / (usable - these) cannot fit. It rules out
// probes of the first-fit scan and the gap check before their plan is
// made; the search's own `lowest` (read by the planner) stays the
// context-only bound.
double lowestMultiGpuCount(const sizing::Inputs& in) {
    sizing::Layout two;
    two.count = 2;
    const double budget = in.usableGiB - bytesToGiB(sizing::fixedOverhead(in, two).total());
    const double weights = bytesToGiB(in.weights().total(in.shape().stackLayers));
    return budget > 0 ? weights / budget : double(kMaxGpus) + 1;
}

// Serving plans above one GPU split the model as tp x pp = count (planFor:
// tensor parallel within a server, pipeline stages for the rest; llama.cpp
// by layers, tp 1). Above the widest degree every plan has two stages or
// more, the first holding ceil(L / pp) layers beside the embeddings, and
// its figures read the degree and its layers alone (not the count). Where
// at degree t it holds at most K(t) layers, pp >= ceil(L / K(t)) and the
// count >= t x that: the fewest over the degrees planFor may use bounds
// every count. A large model on small GPUs needs whole layers per stage,
// and so many more GPUs than its weights spread evenly: GLM-5 on 12 GB
// cards no fewer than 312, where the weights spread evenly allow ~145.
double lowestStagedCount(const sizing::Inputs& in, double above) {
    const Scenario& s = *in.scenario;
    if (in.training || s.parallel.strategy != Strategy::Auto || s.parallel.tp > 0 || s.parallel.pp > 0 ||
        s.parallel.offload != Offload::None) {
        return above;
    }
    FirstStages f{in, sizing::Layout(), 0};
    f.layout.strategy = defaultStrategy(s, 2);
    f.layout.layerSplit = f.layout.strategy == Strategy::LayerSplit;
    f.layout.count = 2;  // every count above one holds the same overheads
    f.fixedBytes = sizing::fixedOverhead(in, f.layout).total();
    const int widest = f.layout.strategy == Strategy::Tensor ? sizing::maxTensorDegree(in) : 1;
    if (above <= widest) return above;  // a single stage may come below
    const int layers = in.shape().stackLayers;
    // Each degree's bound by the weights first, the full tests only where it
    // is below the fewest so far (they only raise it); the widest degrees,
    // which spread a stage thinnest, first.
    int lowest = kMaxGpus + 1;
    for (int t = widest; t >= 1; --t) {
        if (t > 1 && !sizing::validTensorDegree(s.model, t)) continue;
        f.layout.tp = t;
        const int byWeights = mostLayersByWeights(f);
        if (byWeights == 0 || t * ceilDiv(layers, byWeights) >= lowest) continue;
        const int most = mostLayersThatFit(f, byWeights);
        if (most > 0) lowest = std::min(lowest, t * ceilDiv(layers, most));
    }
    return std::max(above, double(lowest));
}

}  // namespace caliper
