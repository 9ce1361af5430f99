// Training states: optimizers, offload and LoRA adapters.
#include <algorithm>

#include <catch2/catch.hpp>

#include "calibration/calibration.hpp"
#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;

TEST_CASE("training states by optimizer and offload", "[memory][training]") {
    Scenario s = finetuning("llama-2-7b", "h100-sxm5-80gb", Method::Full);
    const double n = 6738415616.0;
    // Transformer Math 101: AdamW 12 bytes (master + m + v); 8-bit AdamW 6;
    // SGD with momentum 8 (master + momentum).
    const std::pair<Optimizer, double> optimizers[] = {
        {Optimizer::AdamW, 12}, {Optimizer::AdamW8bit, 6}, {Optimizer::PagedAdamW8bit, 6}, {Optimizer::Sgd, 8}};
    for (const auto& [optimizer, bytes] : optimizers) {
        s.optimizer = optimizer;
        CHECK(memoryOn(s, 1).optimizerGiB == Approx(bytesToGiB(bytes * n)).epsilon(0.003));
    }
    s.optimizer = Optimizer::Adafactor;
    CHECK(memoryOn(s, 1).optimizerGiB < bytesToGiB(4.2 * n));  // master copy + factored moments

    // ZeRO-3 with parameter offload keeps only live layers on the GPU and the
    // states in host RAM (DeepSpeed: 18 P x 1.5 with zero_init).
    s.optimizer = Optimizer::AdamW;
    s.engine = Engine::Deepspeed;
    s.parallel.strategy = Strategy::Zero3;
    s.parallel.offload = Offload::Parameters;
    const MemoryBreakdown off = memoryOn(s, 8);
    CHECK(off.optimizerGiB == 0);
    CHECK(off.cpuOffloadGiB == Approx(bytesToGiB(18 * n * 1.5)).epsilon(0.003));
}

TEST_CASE("LoRA counts r (d_in + d_out) per adapted matrix", "[memory][training]") {
    // Llama-2-7B, rank 16, attention only: 32 layers x 4 matrices x 16 x (4096 + 4096).
    Scenario s = finetuning("llama-2-7b", "h100-sxm5-80gb", Method::Lora);
    s.lora.targets = LoraTargets::Attention;
    const MemoryEstimate e = estimateMemory(s, makePlan(s, 1));
    CHECK(termValue(e, "lora_params") == Approx(32.0 * 4 * 16 * 8192));
    // fp32 adapters, fp32 gradients, AdamW moments: 4 + 4 + 8 bytes each.
    CHECK(e.memory.adapterGiB == Approx(bytesToGiB(4 * 32.0 * 4 * 16 * 8192)));
    CHECK(e.memory.optimizerGiB == Approx(bytesToGiB(8 * 32.0 * 4 * 16 * 8192)));
}

TEST_CASE("LoRA of an MoE model splits the frozen experts over the expert-parallel ranks", "[memory][training]") {
    // Qwen3-30B-A3B (config.json): 48 layers x 128 experts x 3 matrices x
    // 2048 x 768 = 28.99 B routed-expert weights of 30.532 B. LoRA under
    // Megatron at TP 1, PP 1, EP 8 keeps the 1.54 B others whole and an
    // eighth of the experts on each GPU, in bf16:
    // 2 x (1.54 B + 28.99 B / 8) = 10.3 GB, not the whole 61.1 GB.
    Scenario s = finetuning("qwen3-30b-a3b", "h100-sxm5-80gb", Method::Lora, Engine::Megatron);
    s.parallel.tp = 1;
    s.parallel.pp = 1;
    s.parallel.ep = 8;
    const Plan plan = makePlan(s, 8);
    REQUIRE(plan.ep == 8);
    const double experts = 48.0 * 128 * 3 * 2048 * 768;
    const double others = 30.532e9 - experts;
    CHECK(estimateMemory(s, plan).memory.weightsGiB == Approx(bytesToGiB(2 * (others + experts / 8))).epsilon(0.01));
    // Without expert parallelism every GPU holds them all.
    s.parallel.ep = 1;
    CHECK(memoryOn(s, 8).weightsGiB == Approx(bytesToGiB(2 * 30.532e9)).epsilon(0.01));
}

namespace {

bool hasTerm(const MemoryEstimate& m, const std::string& term) {
    for (const ExplainTerm& t : m.explain) {
        if (t.term == term) return true;
    }
    return false;
}

// Llama-3-8B pre-training in Megatron on one H100, s 4096, b 1, bf16, no
// recomputation: the saved-activation cases below start from it.
Scenario megatronLlama3At4k() {
    Scenario s = finetuning("llama-3-8b", "h100-sxm5-80gb", Method::Full, Engine::Megatron);
    s.task = Task::Pretrain;
    s.seqLen = 4096;
    s.gradientCheckpointing = false;
    return s;
}

}  // namespace

TEST_CASE("variable-length fine-tuning keeps one more loss working set reserved", "[memory][training]") {
    // Qwen-7B (vocab 151,936 from its config.json), bf16 LoRA, 2048 tokens:
    // the logits/loss working set is 12 bytes per token and vocabulary entry
    // (memory/train_activations.cpp), and the caching allocator keeps one
    // more copy of it for the steps of other lengths (the prior; the
    // calibration scales it, tested in test_calibration.cpp).
    const CalibrationTable priors;
    const ScopedCalibration usePriors(&priors);
    Scenario s = finetuning("qwen-7b", "a100-sxm4-80gb", Method::Lora);
    s.gradientCheckpointing = true;
    const MemoryEstimate e = estimateMemory(s, makePlan(s, 1), true);
    const double loss = 12.0 * 2048 * 151936;
    CHECK(termValue(e, "varying_length_reserve_gib") == Approx(bytesToGiB(loss)));

    // Packed (or fixed-length) fine-tuning allocates the same blocks every
    // step: no such reserve, and the fragmentation reserve takes pre-training's
    // 5% prior instead of fine-tuning's 10% (memory/overhead.cpp).
    Scenario packedFinetune = s;
    packedFinetune.packing = true;
    const MemoryEstimate p = estimateMemory(packedFinetune, makePlan(packedFinetune, 1), true);
    CHECK_FALSE(hasTerm(p, "varying_length_reserve_gib"));
    CHECK(termValue(p, "allocator_reserve_gib") == Approx(termValue(e, "allocator_reserve_gib") / 2).epsilon(1e-6));

    // Pre-training packs sequences to one length: no such reserve.
    Scenario packed = s;
    packed.task = Task::Pretrain;
    packed.method = Method::Full;
    CHECK_FALSE(hasTerm(estimateMemory(packed, makePlan(packed, 1), true), "varying_length_reserve_gib"));

    // The allocator empties its cache before an allocation fails, so the
    // reserve stops at the usable memory: batch 8 (ms-swift ran it on one
    // A100 80GB) fills the card instead of exceeding it.
    s.batch = 8;
    const MemoryBreakdown full = memoryOn(s, 1);
    CHECK(full.totalGiB == Approx(usableMemoryGiB(s)));
    CHECK(fitsMemory(s, full));
}

TEST_CASE("a chunked loss in the model's dtype holds 4 bytes per token and vocabulary entry, not 12",
          "[memory][training]") {
    // phi-1.5 (vocabulary 51,200 from its config.json), LoRA in bf16, micro-batch
    // 4 of 1,044 tokens (LitGPT's resource tables). Hugging Face heads upcast
    // the logits: 12 bytes; LitGPT's lm_head_chunk_size=128 with
    // chunked_cross_entropy keeps the bf16 logits and their bf16 log-softmax:
    // 4 bytes (memory/train_activations.cpp).
    Scenario s = finetuning("phi-1.5", "a100-sxm4-40gb", Method::Lora);
    s.seqLen = 1044;
    s.batch = 4;
    const MemoryBreakdown upcast = memoryOn(s, 1);
    s.lossKernel = LossKernel::Chunked;
    const MemoryBreakdown chunked = memoryOn(s, 1);
    CHECK(upcast.activationsGiB - chunked.activationsGiB == Approx(bytesToGiB(8.0 * 1044 * 4 * 51200)));
}

TEST_CASE("ZeRO-3 parameter offload keeps live, re-used and whole-module weights", "[memory][training]") {
    // mT0-XXL in fp32 (PEFT's ZeRO-3 CPU-offload example): the largest module
    // is lm_head, vocab 250,112 x d_model 4,096 (config.json), gathered whole.
    Scenario s = finetuning("mt0-xxl", "a100-sxm4-80gb", Method::Lora, Engine::Deepspeed);
    s.weights = WeightFormat::Fp32;
    s.seqLen = 64;
    s.parallel.strategy = Strategy::Zero3;
    s.parallel.offload = Offload::Parameters;
    const MemoryEstimate e = estimateMemory(s, makePlan(s, 1), true);
    CHECK(e.memory.weightsGiB == Approx(bytesToGiB(250112.0 * 4096 * 4)));
    // DeepSpeed defaults: stage3_max_live_parameters 1e9 plus
    // stage3_max_reuse_distance 1e9 fp32 parameters stay gathered, beside the
    // reduce (5e8) and prefetch (5e7) buckets, each capped at the fp32
    // adapter parameters.
    const double adapters = termValue(e, "lora_params");
    const double buckets = 4 * (std::min(5e8, adapters) + std::min(5e7, adapters));
    CHECK(termValue(e, "comm_buffers_gib") == Approx(bytesToGiB(2e9 * 4 + buckets)));

    // A model smaller than 2e9 parameters is gathered whole (Qwen-1.8B: 1.84B).
    Scenario small = s;
    small.model = catalogModel("qwen-1.8b");
    const MemoryEstimate es = estimateMemory(small, makePlan(small, 1), true);
    const double params = countParams(small.model).total;
    CHECK(params < 2e9);
    const double smallAdapters = termValue(es, "lora_params");
    const double smallBuckets = 4 * (std::min(5e8, smallAdapters) + std::min(5e7, smallAdapters));
    CHECK(termValue(es, "comm_buffers_gib") == Approx(bytesToGiB(params * 4 + smallBuckets)));
}

TEST_CASE("the loss kernel sets the logits working set of training", "[memory][training]") {
    // Llama-2-7B, one sequence of 2048 tokens, vocabulary 32000: the logits
    // term differs between kernels by (bytes per logit) x s x b x V, with 12
    // bytes for Hugging Face's fp32 upcast (transformers 4.49 on), 16 before
    // it (the shifted logits' copy), 6 for Megatron's vocab-parallel
    // fp32 copy over 16-bit logits and 4 for a fused kernel on 16-bit logits
    // (memory/train_activations.cpp cites each implementation).
    // Two micro-batches per step keep the gradients alive, so the logits
    // count in full (not only beyond the gradients).
    Scenario s = finetuning("llama-2-7b", "h100-sxm5-80gb", Method::Full);
    s.seqLen = 2048;
    s.batch = 1;
    s.globalBatch = 2;
    const double logits = 2048.0 * 1 * 32000;
    auto activations = [&](LossKernel k) {
        s.lossKernel = k;
        return memoryOn(s, 1).activationsGiB;
    };
    const double eager = activations(LossKernel::Eager);
    const double vocabParallel = activations(LossKernel::VocabParallel);
    const double fused = activations(LossKernel::Fused);
    const double shifted = activations(LossKernel::EagerShifted);
    CHECK(shifted - eager == Approx(bytesToGiB((16 - 12) * logits)).epsilon(1e-6));
    CHECK(eager - vocabParallel == Approx(bytesToGiB((12 - 6) * logits)).epsilon(1e-6));
    CHECK(vocabParallel - fused == Approx(bytesToGiB((6 - 4) * logits)).epsilon(1e-6));
    // Without a request, the engine decides: Megatron's own loss, else eager.
    s.lossKernel.reset();
    CHECK(lossKernelOf(s) == LossKernel::Eager);
    s.engine = Engine::Megatron;
    CHECK(lossKernelOf(s) == LossKernel::VocabParallel);
}

TEST_CASE("Megatron's fused SwiGLU and Transformer Engine's FP8 inputs set the saved activations", "[memory][training]") {
    // Llama-3-8B (h 4096, f 14336, 32 layers, 8 of 32 KV heads, V 128256),
    // s 4096, b 1, no recomputation, one GPU's whole stack:
    // bf16, Megatron: per layer s b h (12 + 4 x 0.25) + 6 s b f (fused_bias_swiglu
    // saves the fc1 output, fc2 its input) = 218,103,808 + 352,321,536 bytes;
    // x 32 layers + vocab-parallel loss 6 s b V = 3,151,822,848: 21,405,433,856
    // bytes = 19.9355 GiB.
    Scenario s = megatronLlama3At4k();
    const double bf16 = memoryOn(s, 1).activationsGiB;
    CHECK(bf16 == Approx(21405433856.0 / kBytesPerGiB).epsilon(1e-4));
    // FP8: Transformer Engine saves the QKV, fc1 and fc2 inputs as FP8 casts
    // and adds an FP8 copy of the attention output: -1 s b h - 1 s b f per
    // layer, 32 x (16,777,216 + 58,720,256) bytes = 2.25 GiB less.
    s.weights = WeightFormat::Fp8;
    CHECK(bf16 - memoryOn(s, 1).activationsGiB == Approx(2.25).epsilon(1e-4));
    // The Hugging Face stack keeps gate, up, act(gate) and the product: 8 s b f,
    // 32 x 2 s b f = 3.5 GiB more than Megatron in the layers (its loss differs
    // too), and its eager RMSNorm an fp32 copy of each norm's input and the
    // normalized bf16 tensor: 2 x (2 + 2) s b h, 32 x 8 s b h = 4 GiB more.
    // Two micro-batches per step keep the gradients alive through the forward.
    Scenario hf = s;
    hf.engine = Engine::Transformers;
    hf.weights = WeightFormat::Bf16;
    hf.lossKernel = LossKernel::VocabParallel;
    hf.globalBatch = 2;
    const double hfLayers = memoryOn(hf, 1).activationsGiB;
    CHECK(hfLayers - bf16 == Approx(3.5 + 4.0).epsilon(1e-4));
}

TEST_CASE("Megatron's recompute_modules layernorm and moe_act free the outputs they recompute", "[memory][training]") {
    // Llama-3-8B (h 4096, 32 layers), s 4096, b 1, bf16, one GPU: "layernorm"
    // frees both norms' outputs, the QKV and fc1 inputs, 2 x 2 s b h bytes
    // per layer: 32 x 2 x 2 x 4096 x 4096 = 2,147,483,648 bytes = 2 GiB.
    // A dense model has no experts, so "moe_act" frees nothing.
    Scenario s = megatronLlama3At4k();
    const double kept = memoryOn(s, 1).activationsGiB;
    s.recomputeLayernorm = true;
    CHECK(kept - memoryOn(s, 1).activationsGiB == Approx(2.0).epsilon(1e-6));
    s.recomputeMoeAct = true;
    CHECK(kept - memoryOn(s, 1).activationsGiB == Approx(2.0).epsilon(1e-6));
    // Under FP8 linears the freed inputs are 1-byte casts: 1 GiB.
    Scenario fp8 = s;
    fp8.recomputeMoeAct = false;
    fp8.weights = WeightFormat::Fp8;
    Scenario fp8Kept = fp8;
    fp8Kept.recomputeLayernorm = false;
    CHECK(memoryOn(fp8Kept, 1).activationsGiB - memoryOn(fp8, 1).activationsGiB == Approx(1.0).epsilon(1e-6));

    // Qwen3-30B-A3B: 48 MoE layers, top-8 experts of inner size 768. "moe_act"
    // frees fc2's input in every expert a token visits, 2 x 8 x 768 bytes per
    // token and layer: 48 x 4096 x 12,288 = 2,415,919,104 bytes = 2.25 GiB.
    Scenario moe = finetuning("qwen3-30b-a3b", "h100-sxm5-80gb", Method::Full, Engine::Megatron);
    moe.task = Task::Pretrain;
    moe.seqLen = 4096;
    moe.gradientCheckpointing = false;
    const double moeKept = memoryOn(moe, 1).activationsGiB;
    moe.recomputeMoeAct = true;
    CHECK(moeKept - memoryOn(moe, 1).activationsGiB == Approx(2.25).epsilon(1e-6));
}

namespace {

// One H100 80GB, Hugging Face transformers, fixed-length sequences: the setups
// of Caliper's H100 runs (validation/measured-h100.jsonl).
Scenario h100Run(const std::string& model, Method method, std::int64_t batch, std::int64_t seqLen, bool checkpointing) {
    Scenario s = finetuning(model, "h100-sxm5-80gb", method);
    s.batch = batch;
    s.seqLen = seqLen;
    s.gradientCheckpointing = checkpointing;
    s.packing = true;
    if (method == Method::Full) s.optimizer = Optimizer::AdamWBf16;
    return s;
}

}  // namespace

TEST_CASE("Hugging Face's eager RMSNorm saves an fp32 copy of its input, and the normalized tensor where it trains",
          "[memory][training]") {
    // Llama-3.1-8B (h 4096, f 14336, 32 layers, 8 of 32 KV heads, V 128256),
    // full bf16, micro-batch 2 x 2048, two micro-batches per step (the
    // gradients stay alive, so the activations count in full): per layer
    // s b h (12 + 4 x 0.25 + 2 norms x (2 fp32-copy + 2 normalized)) + 8 s b f
    // = 200,704 bytes per token; x 32 layers x 4096 tokens = 26,306,674,688
    // bytes, + 12 s b V = 6,303,793,152 bytes of logits: 30.371 GiB. The
    // H100 run at one micro-batch per step peaks at 75.45 GiB allocated,
    // 30.58 GiB above the weights and AdamW states (14.96 + 29.92 GiB).
    Scenario s = h100Run("llama-3.1-8b", Method::Full, 2, 2048, false);
    s.globalBatch = 4;
    CHECK(memoryOn(s, 1).activationsGiB == Approx(32610467840.0 / kBytesPerGiB).epsilon(1e-4));
    // LoRA (norm weights frozen: no normalized copy), micro-batch 1 x 1024:
    // s b h (12 + 4 x 0.25 + 2 x 2) + 8 s b f, plus PEFT's fp32 adapter inputs
    // 4 (3h + h + 2h + f) - 2 (h + h + f) = 20 h + 2 f: 294,912 bytes per
    // token x 32 x 1024 + 12 x 1024 x V = 11,239,686,144 bytes = 10.468 GiB
    // with the adapters' gradients (the run: 26.00 GiB allocated, 10.57 above
    // the base weights and the adapters' states).
    Scenario lora = h100Run("llama-3.1-8b", Method::Lora, 1, 1024, false);
    const MemoryBreakdown m = memoryOn(lora, 1);
    CHECK(m.activationsGiB + m.gradientsGiB == Approx(11239686144.0 / kBytesPerGiB).epsilon(1e-4));
}

TEST_CASE("gradients written during backward and saved activations do not peak together", "[memory][training]") {
    // One micro-batch per step: backward frees each layer's activations as it
    // writes that layer's gradients, so the step peaks at the larger of the
    // two, and the activation term is what the peak holds beyond the
    // gradients (memory/train_activations.cpp).
    // Llama-3.1-8B full bf16 at 2 x 2048: the 30.371 GiB of activations (see
    // the eager-RMSNorm case) outweigh the 14.96 GiB of gradients.
    Scenario s = h100Run("llama-3.1-8b", Method::Full, 2, 2048, false);
    MemoryBreakdown m = memoryOn(s, 1);
    CHECK(m.gradientsGiB == Approx(2 * 8030261248.0 / kBytesPerGiB).epsilon(1e-4));
    CHECK(m.activationsGiB + m.gradientsGiB == Approx(32610467840.0 / kBytesPerGiB).epsilon(1e-4));
    // At 1 x 512 the gradients outweigh the activations (3.80 GiB): the peak is
    // the first layer's backward, all gradients + one layer (200,704 bytes per
    // token x 512 = 0.0957 GiB). The run: 59.90 GiB allocated against 59.83
    // GiB of weights, gradients and states.
    s = h100Run("llama-3.1-8b", Method::Full, 1, 512, false);
    CHECK(memoryOn(s, 1).activationsGiB == Approx(200704.0 * 512 / kBytesPerGiB).epsilon(1e-4));
    // Tied embeddings (Llama-3.2-1B: V 128256 x h 2048): at the end of backward
    // autograd adds lm_head's gradient to the embedding's out of place, two
    // more bf16 vocabulary x hidden tensors: 2 x 128256 x 2048 x 2 =
    // 1,050,673,152 bytes. The run: 10.26 GiB allocated, 1.06 GiB above the
    // weights, gradients and states (2.30 + 2.30 + 4.60 GiB).
    s = h100Run("llama-3.2-1b", Method::Full, 1, 512, false);
    CHECK(memoryOn(s, 1).activationsGiB == Approx(1050673152.0 / kBytesPerGiB).epsilon(1e-4));
    // Megatron keeps its main-grad buffers allocated: its activations count
    // in full, as when micro-batches accumulate.
    s.engine = Engine::Megatron;
    Scenario accumulating = s;
    accumulating.globalBatch = 2;
    CHECK(memoryOn(s, 1).activationsGiB == Approx(memoryOn(accumulating, 1).activationsGiB));
}

TEST_CASE("with checkpointing the loss's working set and the recomputed layer do not coexist", "[memory][training]") {
    // Mistral-7B v0.3 (h 4096, f 14336, 32 layers, 8 of 32 KV heads, V 32768),
    // LoRA with checkpointing at 1 x 32,768 tokens: checkpoints 2 s h x 32 =
    // 8 GiB, logits 12 s V = 12 GiB, one recomputed layer (294,912 bytes per
    // token, see the eager-RMSNorm case) = 9 GiB. Backward frees the loss's
    // tensors before it recomputes the last layer: 8 + max(12, 9) = 20 GiB,
    // where a sum would hold 29. The run: 34.55 GiB allocated, 20.58 GiB above
    // the base weights and the adapters' states.
    Scenario s = h100Run("mistral-7b-v0.3", Method::Lora, 1, 32768, true);
    const MemoryBreakdown m = memoryOn(s, 1);
    CHECK(m.activationsGiB + m.gradientsGiB == Approx(20.0).epsilon(1e-4));
}

TEST_CASE("fixed-length fine-tuning keeps the loss blocks the allocator cannot reuse", "[memory][training]") {
    // Llama-3.1-8B LoRA at 4 x 2048 packed tokens, at the sourced priors: the
    // 16-bit logits freed before the fp32 gradients, 2 of the loss's 12 bytes
    // per logit: 2 x 8192 x 128256 = 2,101,346,304 bytes, in the allocator's
    // reserve; no varying-length copies.
    CalibrationTable priors;
    const ScopedCalibration use(&priors);
    Scenario s = h100Run("llama-3.1-8b", Method::Lora, 4, 2048, true);
    MemoryEstimate e = estimateMemory(s, makePlan(s, 1), true);
    CHECK(termValue(e, "loss_block_reserve_gib") == Approx(2101346304.0 / kBytesPerGiB).epsilon(1e-6));
    CHECK(e.memory.overheadParts.varyingLengthReserveGiB == 0);
    CHECK(e.memory.overheadParts.allocatorReserveGiB ==
          Approx(termValue(e, "allocator_reserve_gib") + termValue(e, "loss_block_reserve_gib")).epsilon(1e-9));
    // Variable-length batches: the varying-length copies take its place.
    s.packing = false;
    e = estimateMemory(s, makePlan(s, 1), true);
    CHECK(termValue(e, "varying_length_reserve_gib") > 0);
    CHECK(e.memory.overheadParts.allocatorReserveGiB == Approx(termValue(e, "allocator_reserve_gib")).epsilon(1e-9));
}

TEST_CASE("under autocast an fp32 model saves 16-bit activations, fp32 norms and 16-bit weight casts", "[memory][training]") {
    // Llama-3.2-1B (h 2048, f 8192, 16 layers, 8 of 32 KV heads, V 128256,
    // tied), fp32 weights under bf16 autocast, micro-batch 2 x 2048 without
    // checkpointing. Per token and layer: the base s b h (12 + 4 x 0.25) +
    // 8 s b f in 16 bits = 92,160 bytes; the RMSNorms' fp32 inputs and fp32
    // normalized outputs, 2 x h x (2 + 4) = 24,576; k, v and up casting the
    // normed input again, 2 x h x 3 = 12,288: 129,024 bytes x 16 layers x 4096
    // tokens = 8,455,716,864. Each layer's linears save their bf16 weight
    // casts, 2 x 60,821,504 parameters x 16 = 1,946,288,128; lm_head's cast
    // 2 x V x h = 525,336,576; the loss 12 s b V = 6,303,793,152. In all
    // 17,231,134,720 bytes = 16.048 GiB; the gradients (fp32, 4.60 GiB) are
    // written as backward frees them. The H100 run: 30.01 GiB allocated, 16.20
    // above the fp32 weights and AdamW states (4.60 + 9.21 GiB).
    Scenario s = h100Run("llama-3.2-1b", Method::Full, 2, 2048, false);
    s.optimizer = Optimizer::AdamW;
    s.weights = WeightFormat::Fp32;
    s.autocast = true;
    MemoryBreakdown m = memoryOn(s, 1);
    CHECK(m.activationsGiB + m.gradientsGiB == Approx(17231134720.0 / kBytesPerGiB).epsilon(1e-4));
    // With checkpointing at 4 x 2048: fp32 layer inputs 4 s b h x 16 = 1 GiB,
    // then the larger of the loss in backward with lm_head's cast (12 s b V +
    // 525,336,576 = 13,132,922,880 bytes), the autocast cache at the end of the
    // forward (every layer's casts 1,946,288,128 + lm_head's + the forward's
    // 10 s b V = 12,977,946,624) and one recomputed layer (1.18e9): 14,206,664,704
    // bytes = 13.231 GiB. The run: 27.27 GiB allocated, 13.46 above the states.
    s.batch = 4;
    s.gradientCheckpointing = true;
    m = memoryOn(s, 1);
    CHECK(m.activationsGiB + m.gradientsGiB == Approx(14206664704.0 / kBytesPerGiB).epsilon(1e-4));
    // Without autocast the fp32 model saves fp32 activations and no casts: at
    // 2 x 2048 without checkpointing, s b h (12 + 1) x 4 + 16 s b f + the
    // norms' fp32 normalized outputs 2 x 4 h = 200,704 bytes per token and
    // layer x 65,536 + 12 s b V = 19,457,130,496 bytes, more than autocast's.
    s.autocast = false;
    s.batch = 2;
    s.gradientCheckpointing = false;
    m = memoryOn(s, 1);
    CHECK(m.activationsGiB + m.gradientsGiB == Approx(19457130496.0 / kBytesPerGiB).epsilon(1e-4));
}

TEST_CASE("Megatron's persistent parameter, gradient and optimizer buffers add nothing to the allocator's reserve",
          "[memory][training]") {
    // Llama-3-8B pre-training on one H100 under Megatron, at the sourced
    // priors: the reserve is 5% (fixed-length pre-training) of what is freed
    // and allocated again each step, the activations alone here (no
    // buckets): 0.05 x 19.9355 GiB (the fused-SwiGLU count of the test above)
    // = 0.99677 GiB, not 5% of the states beside them (bf16 weights and
    // gradients, 12 bytes of fp32 Adam state: 16 bytes a parameter).
    CalibrationTable priors;
    const ScopedCalibration use(&priors);
    Scenario s = megatronLlama3At4k();
    MemoryEstimate e = estimateMemory(s, makePlan(s, 1), true);
    CHECK(termValue(e, "allocator_reserve_gib") == Approx(0.05 * e.memory.activationsGiB).epsilon(1e-9));
    CHECK(e.memory.activationsGiB == Approx(21405433856.0 / kBytesPerGiB).epsilon(1e-4));
    // Hugging Face training frees its gradients every step between the
    // activations' blocks: its reserve stays a share of all it allocates.
    Scenario hf = s;
    hf.engine = Engine::Transformers;
    hf.lossKernel = LossKernel::VocabParallel;
    e = estimateMemory(hf, makePlan(hf, 1), true);
    const MemoryBreakdown& m = e.memory;
    const double allocated = m.weightsGiB + m.activationsGiB + m.gradientsGiB + m.optimizerGiB + m.adapterGiB;
    CHECK(termValue(e, "allocator_reserve_gib") == Approx(0.05 * allocated).epsilon(1e-9));
}

TEST_CASE("FP8-stored weights take one byte a linear parameter and move the master copy into the optimizer's dtype",
          "[memory][training]") {
    // NeMo 24.07's Llama 2 70B SFT recipe (NeMo-Framework-Launcher
    // examples/peft/llama/h100/70b_2node.sh): 16 H100, TP 4, PP 4, VP 20,
    // fp8 with ++peft.model.fp8_params=true, 4096 packed tokens, Apex
    // distributed Adam with dtype bf16 and bf16 gradient sync
    // (launcher_scripts/conf/peft/llama/sft.yaml).
    Scenario s = finetuning("llama-2-70b", "h100-sxm5-80gb", Method::Full, Engine::Megatron);
    s.seqLen = 4096;
    s.weights = WeightFormat::Fp8;
    s.fp32Gradients = false;
    s.gradientCheckpointing = false;
    s.parallel.tp = 4;
    s.parallel.pp = 4;
    s.parallel.vp = 20;
    s.optimizer = Optimizer::AdamWBf16;
    const MemoryBreakdown plain = memoryOn(s, 16);
    s.fp8Params = true;
    const MemoryBreakdown fp8 = memoryOn(s, 16);
    // One decoder layer's linears: q and o 8192 x 8192, k and v 8192 x 1024
    // (8 KV heads of 128), gate, up and down 8192 x 28672 = 855,638,016.
    // A GPU holds 20 layers over TP 4: 4,278,190,080 of them, one byte
    // each in FP8 instead of two.
    CHECK(plain.weightsGiB - fp8.weightsGiB == Approx(4278190080.0 / kBytesPerGiB).epsilon(1e-3));
    // The master copy joins the bf16 moments: 2 + 4 bytes a parameter
    // instead of 4, and the parameters on the GPU are the 16-bit weights'
    // bytes / 2: 6 x weights / 2 = 3 x the 16-bit weights.
    CHECK(fp8.optimizerGiB == Approx(1.5 * plain.optimizerGiB).epsilon(1e-9));
    CHECK(fp8.optimizerGiB == Approx(3 * plain.weightsGiB).epsilon(1e-9));
    // Gradients keep the weights' 16 bits (grad_sync_dtype bf16).
    CHECK(fp8.gradientsGiB == Approx(plain.weightsGiB).epsilon(1e-9));
    // 1 + 2 + 6 = 9 bytes a linear parameter (35.9 GiB for 4.28B), and 10
    // for the first stage's 16-bit embedding shard (32000 x 8192 / 4 =
    // 65.5M, 1.5% more parameters): within 2% of 9 bytes a linear
    // parameter, leaving room for the activations on an 80 GB card.
    CHECK(fp8.weightsGiB + fp8.gradientsGiB + fp8.optimizerGiB ==
          Approx(9 * 4278190080.0 / kBytesPerGiB).epsilon(0.02));
    CHECK(fp8.totalGiB < 78);
    // With fp32 Adam states the master copy stays fp32: fp8_params changes
    // only the weights.
    s.optimizer = Optimizer::AdamW;
    const MemoryBreakdown fp32States = memoryOn(s, 16);
    s.fp8Params = false;
    CHECK(memoryOn(s, 16).optimizerGiB == Approx(fp32States.optimizerGiB).epsilon(1e-9));
}
