#pragma once
// Runtime memory outside the model's tensors: CUDA context, engine buffers,
// NCCL, and the caching allocator's reserve. Each constant says what it
// depends on; overhead_gib is their sum, so a reader comparing with
// torch.cuda.max_memory_allocated() subtracts it (the context and the
// reserve are not allocations).
#include "memory/sizing.hpp"

namespace caliper::sizing {

// CUDA context of one process: 287 MB with lazy module loading and 667 MB
// eager (pytorch#86509), "~300-400 MB" with CUDA >= 11.7 (pytorch#107667);
// methodology default 0.5 GB per GPU. Depends on the CUDA version and the
// kernels a framework loads; not part of torch.cuda.max_memory_allocated().
constexpr double kCudaContextGiB = 0.5;

struct Overhead {
    double cudaContext = 0;  // per process and GPU
    double cudaGraphs = 0;   // captured decode graphs (vLLM, SGLang)
    double nccl = 0;         // communicator buffers when GPUs talk
    double buffers = 0;      // DDP / DeepSpeed gradient buckets
    double allocator = 0;    // caching-allocator reserve in training
    double varyingLengths = 0;  // cached blocks of earlier, differently sized fine-tuning steps
    double lossBlocks = 0;      // loss blocks a fixed-length step cannot reuse (shown in the allocator reserve)
    double generateTransients = 0;  // generate()'s prefill blocks later requests cannot reuse (allocator reserve)
    double total() const {
        return cudaContext + cudaGraphs + nccl + buffers + allocator + varyingLengths + lossBlocks + generateTransients;
    }
};

// The part of runtimeOverhead() that every stage of a plan holds whatever
// its tensors: the CUDA context, the serving engines' captured graphs and
// the NCCL buffers. (A fit test's floor: the total is never below the
// weights plus these.)
Overhead fixedOverhead(const Inputs& in, const Layout& layout);

// allocatedBytes: the tensors of the breakdown (weights, KV, activations,
// states), from which the training reserve is taken; persistentBytes: the
// part of them held in buffers allocated once before the first step, which
// the reserve leaves out (see trainingReserveBase in overhead.cpp).
// stage: the GPU's pipeline stage (only the last holds the loss).
// transientBytes: inference's activations, the transients of the forward
// pass (the generate() reserve is a share of them).
Overhead runtimeOverhead(const Inputs& in, const Layout& layout, const Stage& stage, double allocatedBytes,
                         double bufferBytes, double persistentBytes = 0, double transientBytes = 0);

// Bytes of a training stage's states that Megatron-Core allocates once, before
// the first micro-batch, and never frees: the parameter and gradient buffers
// and the distributed optimizer's main parameters and moments (0 elsewhere).
double persistentStateBytes(const Inputs& in, double weightsBytes, double gradientsBytes, double optimizerBytes);

void explainOverhead(const Overhead& o, double poolSlackBytes, const Explain& ex);

}  // namespace caliper::sizing
