// CUDA-graph batch padding. vLLM captures its decode graphs at
// [1, 2, 4] + range(8, 256, 8) + range(256, max + 1, 16) with max =
// min(2 x max_num_seqs, 512) unless the deployment lists its own sizes
// (vllm/config/compilation.py CompilationConfig.max_cudagraph_capture_size,
// vllm/config/vllm.py _set_cudagraph_sizes), and pads a decode batch up to
// the next of them (bs_to_padded_graph_size); batches above the largest run
// without a full graph, unpadded. The padded rows carry no KV, so they cost
// only their GEMM rows: nothing while the weights' reads bind the step, their
// FLOPs once the matmuls do.
#include "serving/cuda_graph.hpp"

#include <algorithm>
#include <cmath>

namespace caliper::serving {

namespace {

// The capture list's steps (vllm/config/compilation.py, above).
constexpr double kFineStepBelow = 256, kFineStep = 8, kCoarseStep = 16;

}  // namespace

double cudaGraphBatch(const SchedulerDefaults& engine, double decodes) {
    const double batch = std::ceil(std::max(1.0, decodes) - 1e-9);
    if (engine.cudaGraphMaxBatch <= 0 || batch > engine.cudaGraphMaxBatch) return decodes;
    double padded = batch;
    if (batch <= 2) padded = batch;
    else if (batch <= 4) padded = 4;
    else if (batch < kFineStepBelow) padded = std::ceil(batch / kFineStep) * kFineStep;
    else padded = kFineStepBelow + std::ceil((batch - kFineStepBelow) / kCoarseStep) * kCoarseStep;
    return std::max(decodes, std::min(padded, engine.cudaGraphMaxBatch));
}

}  // namespace caliper::serving
