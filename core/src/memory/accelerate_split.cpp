// accelerate's device_map="auto" placement for transformers inference
// (accelerate src/accelerate/utils/modeling.py):
// - get_balanced_memory caps every GPU but the last at
//   per_gpu = total_bytes // n + int(1.25 x max(no-split block, mean leaf
//   module)); transformers names its decoder layer the no-split block
//   (_no_split_modules), the largest of those, so the buffer is 1.25 layers.
//   The last GPU keeps its whole memory "in case the buffer is not enough".
// - infer_auto_device_map fills the GPUs in order, module by module
//   (embeddings, layer 0, 1, ..., norm, lm_head), moving on when the next
//   does not fit; on GPU 0 (a "main device") it keeps room for the largest
//   top-level module (max_layer_size: the embedding table, lm_head or a
//   layer), so GPU 0 takes per_gpu - largest. A tied lm_head goes with the
//   embeddings it shares (get_module_size_with_ties), so it and the logits
//   sit on GPU 0; an untied one comes last, on the last GPU.
// So the middle GPUs take floor(per_gpu / layer) layers each, more than
// the average, GPU 0 fewer, and the last what is left: the fit is decided
// by the fullest of them, not by an even ceil(L/n).
#include "memory/accelerate_split.hpp"

#include <algorithm>
#include <cmath>

namespace caliper::sizing {

namespace {

// accelerate's buffer: 1.25 x the no-split block (get_balanced_memory).
constexpr double kBufferLayers = 1.25;

}  // namespace

std::optional<AccelerateStages> accelerateStages(const Inputs& in, const Layout& layout) {
    const Scenario& s = *in.scenario;
    if (in.training || !layout.layerSplit || layout.pp < 2 || s.engine != Engine::Transformers || layout.gpuLayers >= 0) {
        return std::nullopt;
    }
    const WeightParts& w = in.weights();
    const int layers = in.shape().stackLayers;
    const double layer = w.layerBytes;
    if (layer <= 0 || layers < layout.pp) return std::nullopt;
    const bool tied = s.model.tiedEmbeddings;
    const double embed = w.embedBytes + w.extraBytes;
    const double total = w.total(layers);
    const int n = layout.pp;
    const double perGpu = std::floor(total / n) + std::floor(kBufferLayers * layer);
    const double largest = std::max({layer, embed, w.headBytes});
    // GPU 0: the embeddings (and a tied head, no extra bytes), then layers
    // while they fit under per_gpu - largest.
    const double room0 = perGpu - largest - embed;
    int first = room0 > 0 ? std::min(layers, int(std::floor(room0 / layer))) : 0;
    const int middle = std::max(1, int(std::floor(perGpu / layer)));
    int left = layers - first;
    int middleGpus = 0;
    for (int gpu = 1; gpu < n - 1 && left > 0; ++gpu) {
        left -= std::min(left, middle);
        ++middleGpus;
    }
    AccelerateStages out;
    Stage g0;
    g0.layers = first;
    g0.first = true;
    g0.last = tied;  // a tied lm_head and the logits sit on GPU 0
    g0.inFlight = 1;
    out.stages[out.count++] = g0;
    if (middleGpus > 0) {
        Stage mid;
        mid.layers = std::min(middle, layers - first);
        mid.first = false;
        mid.last = false;
        mid.inFlight = 1;
        out.stages[out.count++] = mid;
    }
    Stage last;
    last.layers = std::max(0, left);
    last.first = false;
    last.last = !tied;
    last.inFlight = 1;
    out.stages[out.count++] = last;
    return out;
}

}  // namespace caliper::sizing
