// Runtime overhead per GPU (methodology §3).
#include "memory/overhead.hpp"

#include <algorithm>

#include "caliper/memory/memory.hpp"
#include "calibration/calibration.hpp"
#include "caliper/units.hpp"

namespace caliper::sizing {

namespace {

// vLLM and SGLang capture CUDA graphs for decode batch sizes up to 512 / 160;
// vLLM logs report roughly 0.3-1 GiB for 7B-70B models [E]. Depends on the
// layer count and the captured sizes.
constexpr double kCudaGraphsGiB = 0.5;
// NCCL communicators: NCCL_BUFFSIZE 4 MiB per channel and direction, up to 32
// channels (NCCL environment docs) [E]. Only when GPUs exchange data.
constexpr double kNcclBuffersGiB = 0.25;
// PyTorch's caching allocator keeps freed blocks reserved; fragmentation
// leaves memory_reserved above memory_allocated. Methodology §3: reserve
// 5-10% for training [E]; the upper end, because fine-tuning data of varying
// length fragments the cache (ms-swift's fixed-length runs sit about 8% above
// the allocated estimate). Depends on the allocator settings
// (expandable_segments) and how much sequence lengths vary. The prior of a
// calibrated constant: tools/calibrate scales it by engine and weight format
// from the fine-tuning rows that count reserved memory.
constexpr double kTrainingAllocatorReserve = 0.10;
// Pre-training packs its data into sequences of one fixed length: every step
// allocates the same shapes, so the reserve takes the lower end of the same
// 5-10% (the same calibrated scale applies); so does fine-tuning with
// `packing` (Caliper's fixed-length H100 runs, validation/measured-h100.jsonl).
constexpr double kPretrainAllocatorReserve = 0.05;
// Fine-tuning batches are padded to the longest sample of each step, so the
// tensor shapes change from step to step. The caching allocator serves a
// request from a cached block only when one is large enough; a longer step
// allocates new segments and the blocks of the shorter steps stay reserved
// (PyTorch "CUDA semantics: memory management", expandable_segments exists
// for "allocation sizes that change frequently, such as a changing batch
// size"; NVIDIA NeMo #9061 measured re-allocation on every dynamic-shape
// batch). The largest transient blocks of a step are the logits and loss
// tensors over the vocabulary (lossWorkingSetBytes), so the reserve holds
// about one more copy of that working set: ms-swift's Qwen-1 LoRA runs (max
// memory reserved, cls-fudan-news-zh of 3234 +- 2548 tokens) sit 19-25 bytes
// per token and vocabulary entry above the allocated estimate at 512-2048
// tokens, for 1.8B, 7B and 14B alike. Depends on the length spread of the
// data (packed pre-training sequences do not vary) and on expandable_segments
// (off by default); the allocator frees its cache before an allocation fails,
// so this reserve never exceeds the memory left free. A calibrated prior,
// like the allocator reserve.
constexpr double kVaryingLengthLossCopies = 1.0;
// With one sequence length the loss's blocks come back the same each step,
// but within a step the caching allocator still cannot reuse all of them:
// Hugging Face's loss frees the 16-bit logits (2 of its 12 bytes per logit,
// memory/train_activations.cpp) once they are upcast, and the fp32 gradients
// of the backward that follows do not fit that block, so it stays reserved
// beside them: 2 / 12 of the working set. The prior of the same calibrated
// scale as the varying-length copies (one mechanism: loss blocks the
// allocator keeps). Caliper's fixed-length H100 runs keep 0.2-0.33 of the
// working set reserved above their allocated peak (LoRA with and without
// checkpointing, full fine-tuning without).
constexpr double kFixedLengthLossCopies = 2.0 / 12.0;
// transformers' generate() runs the whole prompt in one forward pass and has
// no pre-allocated pool: each layer's transients (the activations term,
// memory/activations.cpp) are freed and requested again by the next layer,
// amid requests of other sizes (the layer's KV, kept; norms' fp32 copies;
// attention and MLP outputs). PyTorch's CUDACachingAllocator
// (c10/cuda/CUDACachingAllocator.cpp) rounds requests above 1 MiB to 2 MiB,
// gives a request above 10 MiB a segment of its own size, and serves a
// request only from a free block at least as large, splitting it: a freed
// block that a smaller request has split no longer holds the next layer's
// largest request, which takes a new segment while the split block stays
// reserved (max_memory_reserved counts it, max_memory_allocated does not).
// Reserved = the allocated peak + these unreusable transient blocks. The
// prior: half the working set (the largest requests of a layer are the
// MLP's intermediates; two of its three are 52% of a Llama 3.1 8B layer's
// transients) [E]. A calibrated prior, fitted on the generate() rows that
// count max_memory_reserved (Caliper's H200 runs: 32 x 4,096-token prompts
// sit 5-14 GiB, 8-25%, above their allocated peaks). Like the varying-length
// reserve it is cached, unused blocks: the allocator frees them and retries
// before an allocation fails, so it never exceeds the memory left free.
constexpr double kGenerateTransientReserve = 0.5;

bool usesNccl(const Inputs& in, const Layout& layout) {
    return layout.count > 1 && runtimeOf(in.scenario->engine) != Engine::LlamaCpp;
}

}  // namespace

void prepareOverhead(const Scenario& s, Inputs& in) {
    if (!in.training) {
        if (runtimeOf(s.engine) == Engine::Transformers) {
            in.generateReserve =
                calibrated(CalibratedConstant::GenerateTransientReserve, s.engine, s.weights, s.gpu, kGenerateTransientReserve);
        }
        return;
    }
    in.allocatorReserve =
        calibrated(CalibratedConstant::TrainingAllocatorReserve, s.engine, s.weights, s.gpu,
                   s.task == Task::Pretrain || s.packing ? kPretrainAllocatorReserve : kTrainingAllocatorReserve);
    // Fine-tuning: loss blocks the allocator keeps, copies of varying-length
    // steps or the fixed-length one (one calibrated scale, two priors).
    in.lossCopies = calibrated(CalibratedConstant::VaryingLengthLossCopies, s.engine, s.weights, s.gpu,
                               s.packing ? kFixedLengthLossCopies : kVaryingLengthLossCopies);
}

Overhead fixedOverhead(const Inputs& in, const Layout& layout) {
    const Engine engine = in.scenario->engine;
    Overhead o;
    o.cudaContext = gibToBytes(kCudaContextGiB);
    if (!in.training && (engine == Engine::Vllm || engine == Engine::Sglang)) o.cudaGraphs = gibToBytes(kCudaGraphsGiB);
    if (usesNccl(in, layout)) o.nccl = gibToBytes(kNcclBuffersGiB);
    return o;
}

// Megatron-Core allocates a model's parameters and gradients as contiguous
// buffers when it wraps the model (megatron/core/distributed/
// param_and_grad_buffer.py: `self.param_data = torch.zeros(...)`,
// `self.grad_data = torch.zeros(...)`; zero_grad_buffer() zeroes grad_data in
// place every step), and its optimizer's fp32 main parameters and Adam moments
// are made once (distrib_optimizer.py: `shard_main_param =
// shard_model_param.clone().float()`; the moments at the first step) and kept
// for the run. The caching allocator's reserve is made of freed blocks that a
// later request of another size cannot reuse, so tensors that are never
// freed add nothing to it: the reserve's share is taken of the memory that
// is freed and allocated again each step (activations, the loss, buckets).
// Hugging Face training frees its gradients every step (zero_grad(
// set_to_none=True)) between the activations' blocks, and its calibrated
// reserve (fitted on whole allocated memory) keeps counting them.
double persistentStateBytes(const Inputs& in, double weightsBytes, double gradientsBytes, double optimizerBytes) {
    if (!in.training || runtimeOf(in.scenario->engine) != Engine::Megatron) return 0;
    return weightsBytes + gradientsBytes + optimizerBytes;
}

Overhead runtimeOverhead(const Inputs& in, const Layout& layout, const Stage& stage, double allocatedBytes,
                         double bufferBytes, double persistentBytes, double transientBytes) {
    Overhead o = fixedOverhead(in, layout);
    o.buffers = bufferBytes;
    const Scenario& s = *in.scenario;
    // The varying-length reserve is cached, unused blocks: when an allocation
    // would fail the caching allocator frees them and retries, so it never
    // grows past the memory left free. The fragmentation reserve is not
    // capped so: blocks split inside segments in use cannot be released.
    auto leftFree = [&] { return std::max(0.0, gibToBytes(usableMemoryGiB(s)) - allocatedBytes - o.total()); };
    if (in.training) o.allocator = in.allocatorReserve * std::max(0.0, allocatedBytes - persistentBytes + bufferBytes);
    if (in.training && s.task == Task::Finetune && !s.packing && stage.last) {
        o.varyingLengths = std::clamp(in.lossCopies * lossLengthBlocksBytes(in, layout), 0.0, leftFree());
    } else if (in.training && s.task == Task::Finetune && stage.last) {
        o.lossBlocks = std::clamp(in.lossCopies * lossLengthBlocksBytes(in, layout), 0.0, leftFree());
    }
    if (!in.training && in.generateReserve > 0) {
        o.generateTransients = std::clamp(in.generateReserve * transientBytes, 0.0, leftFree());
    }
    return o;
}

void explainOverhead(const Overhead& o, double poolSlackBytes, const Explain& ex) {
    if (!ex.on()) return;
    ex.add("cuda_context_gib", "CUDA context per process and GPU (pytorch#86509: 0.29-0.67 GB)",
           bytesToGiB(o.cudaContext));
    if (o.cudaGraphs > 0) ex.add("cuda_graphs_gib", "captured CUDA graphs for decode batches", bytesToGiB(o.cudaGraphs));
    if (o.nccl > 0) ex.add("nccl_buffers_gib", "NCCL communicator buffers (multi-GPU)", bytesToGiB(o.nccl));
    if (o.buffers > 0) {
        ex.add("comm_buffers_gib",
               "gradient buckets (DDP's copy, or DeepSpeed's reduce/allgather buckets: 5e8 elements by default, "
               "hidden^2 with Hugging Face 'auto') and ZeRO-3's gathered parameters (max_live 1e9 + max_reuse_distance 1e9)",
               bytesToGiB(o.buffers));
    }
    if (o.allocator > 0) {
        ex.add("allocator_reserve_gib",
               "share of allocated training memory kept reserved by PyTorch's caching allocator (prior 10%; 5% for "
               "fixed-length pre-training sequences; calibrated; Megatron: of the memory freed each step, not its "
               "persistent parameter, gradient and optimizer buffers)",
               bytesToGiB(o.allocator));
    }
    if (o.lossBlocks > 0) {
        ex.add("loss_block_reserve_gib",
               "blocks of the logits/loss working set the caching allocator cannot reuse within a fixed-length step (the "
               "16-bit logits freed before the fp32 gradients: 2/12 of it; calibrated); part of the allocator reserve",
               bytesToGiB(o.lossBlocks));
    }
    if (o.generateTransients > 0) {
        ex.add("generate_transient_reserve_gib",
               "blocks of the prefill's transients that later, larger requests cannot reuse, kept reserved by PyTorch's "
               "caching allocator in transformers' generate() (a share of the activations: prior 0.5, calibrated; at most "
               "the memory left free); part of the allocator reserve",
               bytesToGiB(o.generateTransients));
    }
    if (o.varyingLengths > 0) {
        ex.add("varying_length_reserve_gib",
               "blocks of earlier fine-tuning steps of other lengths kept by the caching allocator: one more copy of the "
               "logits/loss working set, at most the memory left free",
               bytesToGiB(o.varyingLengths));
    }
    ex.add("overhead_gib",
           [&] { return fmt("context + graphs + NCCL + buckets + allocator reserve%s. torch.cuda.max_memory_reserved() = total "
               "- context - NCCL; max_memory_allocated() = that - allocator reserve",
               poolSlackBytes > 0 ? fmt(" + the unused part of the pre-allocated KV pool (%.3f GiB)",
                                        bytesToGiB(poolSlackBytes)).c_str()
                                  : ""); },
           bytesToGiB(o.total() + poolSlackBytes));
}

}  // namespace caliper::sizing
