// LoRA's saved tensors by the modules it adapts and the framework's layers:
// targets, fused qkv, bitsandbytes' 4-bit matmul, repeated k/v heads.
#include <catch2/catch.hpp>

#include "lora_step_fixture.hpp"

namespace caliper::test {

namespace {

// Activations in GB of one estimate on one GPU.
double activationsGb(const Scenario& s) { return gb(memoryOn(s, 1).activationsGiB); }

}  // namespace

TEST_CASE("Frozen linear layers keep no input for a weight gradient", "[memory][lora]") {
    // Llama 2 7B (h = 4096, f = 11008, 32 layers), one 2,048-token sample.
    // PyTorch's mm saves its input only for the weight's gradient
    // (derivatives.yaml mm: `mat2: mm_mat2_backward(grad, self, ...)`, the
    // saved `self` guarded by should_compute_output), so with the MLP frozen
    // the gate/up input (h) and down's input (f) leave the count: 2 (h + f)
    // = 30,208 bytes per token and layer.
    Scenario s = loraStep("llama-2-7b");
    s.lora.targets = LoraTargets::AllLinear;
    const double all = activationsGb(s);
    s.lora.targets = LoraTargets::Attention;
    CHECK(all - activationsGb(s) == Approx(30208.0 * 2048 * 32 / 1e9).epsilon(0.001));
}

TEST_CASE("bitsandbytes 4-bit layers keep their inputs although their weights are frozen", "[memory][lora]") {
    // bitsandbytes/autograd/_functions.py MatMul4Bit.forward before 0.43.2
    // (lora.kept_4bit_inputs): `if any(ctx.needs_input_grad[:2]):
    // ctx.tensors = (A, B)`; from 0.43.2 on `(None, B)`. Llama 2 7B,
    // LoRA on every linear layer: PEFT's fp32 adapters save a 4-byte cast of
    // each adapted input, 4 (3h + q width + 2h + f) = 142,336 bytes per token
    // and layer; over a 16-bit base the frozen layers' 2-byte inputs (the
    // normed input twice and down's, 2 x (2 x 4096 + 11008) = 38,400) leave,
    // over an NF4 base of bitsandbytes before 0.43.2 they stay; from 0.43.2 on
    // they leave as over a 16-bit base.
    const double tokenLayers = 2048.0 * 32;
    for (const Method method : {Method::Lora, Method::Qlora}) {
        for (const bool kept : {false, true}) {
            Scenario s = loraStep("llama-2-7b", method);
            s.gradientCheckpointing = false;
            s.lora.targets = LoraTargets::AllLinear;
            s.lora.kept4bitInputs = kept;
            const double model = activationsGb(s);
            s.lora.adapterDtype = AdapterDtype::Fp32;
            const double expected = method == Method::Qlora && kept ? 142336.0 : 142336.0 - 38400.0;
            INFO(toString(method) << (kept ? " kept" : ""));
            CHECK(activationsGb(s) - model == Approx(expected * tokenLayers / 1e9).epsilon(0.001));
        }
    }
}

TEST_CASE("LitGPT's LoRA on q and v: one fused qkv layer, repeated k/v heads", "[memory][lora]") {
    // Mistral 7B (h = 4096, f = 14336, 8 of 32 KV heads, 32 layers,
    // vocabulary 32,768), LitGPT's config hub LoRA (lora_r 32, lora_query and
    // lora_value, lora_dropout 0.05, bf16-true, micro-batch 2 x 512 tokens,
    // chunked loss). Saved per token and layer (litgpt/model.py, lora.py):
    // RMSNorm's fp32 input twice (2 x 4h), LoRAQKVLinear's one dropout output
    // and mask on the shared input (3h), q and k, v repeated to all 32 heads
    // (3 x 2h), the attention output (2h), SiLU's input, its output and up's
    // output (6f): 19h + 6f = 163,840 bytes; and the adapters' q and v output
    // that LoRAQKVLinear.zero_pad's index_copy saves as its `source`
    // (PyTorch derivatives.yaml index_copy: `...expand_as(source)`), 2 x
    // (4096 + 1024) = 10,240 bytes: 174,080. The frozen o, gate, up and down
    // keep nothing; the chunked loss keeps 4 bytes per logit. With GQA the
    // repeat copies v, so no view keeps the fused qkv output.
    Scenario s = loraStep("mistral-7b-v0.3");
    s.batch = 2;
    s.globalBatch = 4;  // accumulation, as the config's global_batch_size 8
    s.seqLen = 512;
    s.lossKernel = LossKernel::Chunked;
    s.lora.rank = 32;
    s.lora.targets = LoraTargets::QueryValue;
    s.lora.fusedQkv = true;
    s.lora.dropout = 0.05;
    s.kvHeadsRepeated = true;
    const double tokens = 1024;
    CHECK(activationsGb(s) == Approx(tokens * (174080.0 * 32 + 4.0 * 32768) / 1e9).epsilon(0.001));

    // Adapters on q (4096 -> 4096) and v (4096 -> 1024): 32 x 32 x 13,312 =
    // 13,631,488 parameters, 2 bytes each in bf16, and their gradients alike.
    const MemoryEstimate e = estimateMemory(s, makePlan(s, 1));
    CHECK(termValue(e, "lora_params") == Approx(13631488.0));
    CHECK(gb(e.memory.adapterGiB) == Approx(2 * 13631488.0 / 1e9).epsilon(0.001));
    CHECK(gb(e.memory.gradientsGiB) == Approx(2 * 13631488.0 / 1e9).epsilon(0.001));

    // Grouped k and v as they are (8 of 32 heads): 4h x (1 - 8/32) = 12,288
    // bytes per token and layer less.
    const double repeated = activationsGb(s);
    s.kvHeadsRepeated = false;
    CHECK(repeated - activationsGb(s) == Approx(12288.0 * tokens * 32 / 1e9).epsilon(0.001));

    // PEFT's separate q and v modules each keep their own dropout output and
    // mask (one more 3h) and pad nothing (no index_copy source, 10,240 less).
    s.lora.fusedQkv = false;
    const double separate = activationsGb(s);
    s.lora.fusedQkv = true;
    CHECK(separate - activationsGb(s) == Approx((3.0 * 4096 - 10240.0) * tokens * 32 / 1e9).epsilon(0.001));
}

TEST_CASE("LitGPT's multi-head attention keeps the fused qkv output behind the saved v", "[memory][lora]") {
    // Llama 2 7B (32 query and 32 KV heads, h = 4096), LitGPT's LoRA on q and
    // v. lit_gpt/model.py (8641822) and litgpt/model.py take q, k, v as views
    // of one qkv output and repeat k and v only when there are fewer KV heads,
    // so with MHA the v that scaled_dot_product_attention saves is a view that
    // keeps the q and k parts alive: 2 x (4096 + 4096) = 16,384 bytes per
    // token and layer (a replay of one 8641822 block under autograd's
    // saved-tensor hooks: a 6h-byte storage behind v). The LoRA padding adds
    // its q and v output, 16,384 more (the previous case).
    Scenario s = loraStep("llama-2-7b");
    s.seqLen = 1024;
    s.lossKernel = LossKernel::Chunked;
    s.lora.targets = LoraTargets::QueryValue;
    s.lora.fusedQkv = true;
    s.lora.dropout = 0.05;
    s.kvHeadsRepeated = true;
    const double tokenLayers = 1024.0 * 32;
    const double litgpt = activationsGb(s);
    s.kvHeadsRepeated = false;
    CHECK(litgpt - activationsGb(s) == Approx(16384.0 * tokenLayers / 1e9).epsilon(0.001));
    // LoRA on all of q, k and v pads nothing (zero_pad returns its input).
    s.kvHeadsRepeated = true;
    const double queryValue = activationsGb(s);
    s.lora.targets = LoraTargets::Attention;
    s.lora.fusedQkv = true;
    const double attention = activationsGb(s);
    // Attention targets add o's adapter (its dropout copy and mask, 3 x 4096)
    // and drop the index_copy source (16,384).
    CHECK(attention - queryValue == Approx((3.0 * 4096 - 16384.0) * tokenLayers / 1e9).epsilon(0.001));
}

TEST_CASE("A framework that unties the head holds a tied table twice", "[memory][lora]") {
    // LitGPT's GPT has separate wte and lm_head modules (litgpt/model.py);
    // convert_hf_checkpoint.py copies Llama 3.2 1B's tied table into
    // lm_head.weight. The table is vocabulary x hidden = 128,256 x 2,048
    // (its config.json): one more bf16 copy, 525,336,576 bytes.
    Scenario s = loraStep("llama-3.2-1b");
    const double tied = gb(memoryOn(s, 1).weightsGiB);
    s.untiedHead = true;
    CHECK(gb(memoryOn(s, 1).weightsGiB) - tied == Approx(128256.0 * 2048 * 2 / 1e9).epsilon(0.001));
    // An untied checkpoint (Llama 2 7B) has two tables already.
    Scenario untied = loraStep("llama-2-7b");
    const double before = gb(memoryOn(untied, 1).weightsGiB);
    untied.untiedHead = true;
    CHECK(gb(memoryOn(untied, 1).weightsGiB) == Approx(before));
}

TEST_CASE("A 4-bit lm_head is stored in 4 bits and dequantized whole for its matmul", "[memory][lora]") {
    // Lightning Fabric's BitsandbytesPrecision converts lm_head with every
    // other nn.Linear (LitGPT's QLoRA); bitsandbytes' MatMul4Bit dequantizes
    // the whole weight to 16 bits for each call. Llama 3.2 1B under NF4 with
    // double quantization (4.127 bits a weight: formats.cpp) and its head
    // untied: the head's 262,668,288 weights go from 2 bytes to 4.127 / 8,
    // and the dequantization buffer grows from the largest block matrix
    // (2,048 x 8,192 = 16,777,216) to the head, in 2 bytes a weight.
    Scenario s = loraStep("llama-3.2-1b", Method::Qlora);
    s.untiedHead = true;
    const MemoryBreakdown sixteen = memoryOn(s, 1);
    s.lora.quantizedHead = true;
    const MemoryBreakdown four = memoryOn(s, 1);
    const double head = 128256.0 * 2048;
    CHECK(gb(four.weightsGiB) - gb(sixteen.weightsGiB) == Approx(head * (4.127 / 8 - 2) / 1e9).epsilon(0.001));
    CHECK(gb(four.activationsGiB) - gb(sixteen.activationsGiB) ==
          Approx((head - 2048.0 * 8192) * 2 / 1e9).epsilon(0.001));
    // A 16-bit base has no 4-bit head to dequantize.
    Scenario lora = loraStep("llama-3.2-1b");
    const double plain = gb(memoryOn(lora, 1).totalGiB);
    lora.lora.quantizedHead = true;
    CHECK(gb(memoryOn(lora, 1).totalGiB) == Approx(plain));
}

TEST_CASE("The previous step's 4-bit matmul inputs stay through the next forward where the loop holds its loss",
          "[memory][lora]") {
    // bitsandbytes 0.42.0 (LitGPT's pin) keeps MatMul4Bit's input as
    // `ctx.tensors = (A, B)`, which backward does not free, and LitGPT's fit
    // loop keeps the last step's loss (so its graph) until the next step's
    // loss replaces it. Llama 2 7B as the config hub runs it: 2 x 512 tokens,
    // no checkpointing, NF4 base. Per token and layer: the qkv input h =
    // 4,096, the attention output read by proj q width 4,096, the MLP's normed
    // input h = 4,096 (two norms a layer), the down projection's input f =
    // 11,008: 23,296 elements; over 32 layers, plus lm_head's input h once:
    // 749,568 elements a token, 2 bytes each in bf16, 1,024 tokens =
    // 1,535,115,264 bytes.
    Scenario s = loraStep("llama-2-7b", Method::Qlora);
    s.weights = WeightFormat::Nf4;
    s.lora.targets = LoraTargets::QueryValue;
    s.seqLen = 512;
    s.batch = 2;
    s.globalBatch = 4;
    s.lora.kept4bitInputs = true;  // the pinned 0.42.0
    const double kept = activationsGb(s);
    s.lora.previousStepInputs = true;
    CHECK(activationsGb(s) - kept == Approx(2.0 * 1024 * (32 * 23296.0 + 4096) / 1e9).epsilon(0.001));
    // Checkpointing runs the forward without a graph: nothing to keep.
    s.gradientCheckpointing = true;
    const double checkpointed = activationsGb(s);
    s.lora.previousStepInputs = false;
    CHECK(activationsGb(s) == Approx(checkpointed));
    // A 16-bit base's frozen matmuls save through save_for_backward, freed by backward.
    Scenario lora = loraStep("llama-2-7b");
    lora.seqLen = 512;
    lora.batch = 2;
    const double plain = activationsGb(lora);
    lora.lora.previousStepInputs = true;
    CHECK(activationsGb(lora) == Approx(plain));
}

TEST_CASE("LitGPT's adapter v2 saves every linear layer's output and trains the norms", "[memory][lora]") {
    // litgpt/adapter_v2.py: AdapterV2Linear.forward returns
    // `self.adapter_scale * (self.linear(x) + self.adapter_bias)`, and
    // adapter_scale requires grad, so the multiply saves linear(x) + bias: one
    // 16-bit output per linear layer. Llama 2 7B (h = 4096, 32 heads and 32
    // kv heads of 128, f = 11008, 32 layers, V = 32000), one 2,048-token
    // sample over an NF4 base of LitGPT's bitsandbytes 0.42 (whose matmul
    // keeps every input either way, lora.kept_4bit_inputs, so
    // only the outputs differ): qkv 3h + proj h + fc_1, fc_2 2f + proj h =
    // 42,496 elements, plus the adapter prefix's gated output `gating_factor *
    // ay` (adapter.py), h = 4,096: 2 x 46,592 = 93,184 bytes per token and
    // layer. mark_only_adapter_v2_as_trainable trains norm_1 and norm_2, so
    // each RMSNorm also saves its normalized 16-bit tensor for the weight's
    // gradient: 2 x 2 x 4096 = 16,384. lm_head is an AdapterV2Linear too: its
    // output (2 bytes per logit) is saved beside the logits.
    Scenario s = loraStep("llama-2-7b", Method::Qlora);
    s.weights = WeightFormat::Nf4;
    s.lora.targets = LoraTargets::QueryValue;
    s.lora.kept4bitInputs = true;
    const double lora = activationsGb(s);
    s.lora.outputScale = true;
    const double expected = (93184.0 + 16384.0) * 2048 * 32 + 2.0 * 2048 * 32000;
    CHECK(activationsGb(s) - lora == Approx(expected / 1e9).epsilon(0.001));
}

TEST_CASE("LoRA on fused experts merges every expert's weight and keeps it for backward", "[memory][lora]") {
    // Qwen3-30B-A3B: h = 2048, expert f = 768, 128 experts, top-8, 48 layers,
    // q width 4096, k/v 512; bf16 on an H200, one 2,048-token sample, fp32
    // adapters (PEFT's default), no checkpointing.
    Scenario s = loraStep("qwen3-30b-a3b");
    s.gpu = catalogGpu("h200-sxm-141gb");
    s.lora.adapterDtype = AdapterDtype::Fp32;
    s.lora.experts = ExpertAdapters::Modules;
    const MemoryBreakdown modules = memoryOn(s, 1);
    s.lora.experts = ExpertAdapters::Fused;
    const MemoryBreakdown fused = memoryOn(s, 1);
    // Adapters: per layer r [q 2048+4096, k and v 2048+512, o 4096+2048] =
    // 16 x 17,408; per expert modules 3 x 16 (2048 + 768); fused gate_up at
    // rank 32 over 2048 + 1536 and down at 16 over 768 + 2048, and the
    // router's gate.weight at 16 over 2048 + 128: 20,760,576 a layer, 48
    // layers = 996,507,648 adapters, the trainable count PEFT 0.21 printed
    // for Caliper's H200 run (validation/measured/h200-finetune-set3.jsonl).
    CHECK(fused.adapterGiB * kBytesPerGiB / 4 == Approx(996507648.0).epsilon(1e-6));
    CHECK(modules.adapterGiB * kBytesPerGiB / 4 == Approx(843841536.0).epsilon(1e-6));
    // Activations: each layer keeps its merged 16-bit experts, 128 x 3 x 2048
    // x 768 x 2 = 1,207,959,552 bytes; per token and layer the modules' fp32
    // lora_A input copies (8 experts x (gate, up) x 4 x 2048, less the 2-byte
    // normed input, + 4 x 6144 for down less its 2-byte input: 139,264 bytes)
    // give way to each routed pass's gathered 16-bit input (8 x 2 x 2048 =
    // 32,768): -106,496 bytes. Both peak when the loss starts backward (the
    // 3.7 GB of logits outweigh gate_up's 2.4 GB gradient working set).
    const double expected = 48 * (1207959552.0 - 106496.0 * 2048);
    CHECK((fused.activationsGiB - modules.activationsGiB) * kBytesPerGiB == Approx(expected).epsilon(0.001));
    // "auto" is fused under transformers, per-expert modules under torchtune.
    s.lora.experts = ExpertAdapters::Auto;
    CHECK(memoryOn(s, 1).activationsGiB == Approx(fused.activationsGiB));
    s.engine = Engine::Torchtune;
    s.lora.experts = ExpertAdapters::Modules;
    const double torchtuneModules = memoryOn(s, 1).activationsGiB;
    s.lora.experts = ExpertAdapters::Auto;
    CHECK(memoryOn(s, 1).activationsGiB == Approx(torchtuneModules));
}

}  // namespace caliper::test

namespace caliper::test {

TEST_CASE("PEFT's all-linear leaves Qwen2-MoE's routed experts frozen under transformers v5", "[memory][lora]") {
    // Qwen1.5-MoE-A2.7B: h = 2048, 16 heads of 128 (q, k, v, o all 2048 wide),
    // 60 experts of f = 1408 (top-4), one shared expert of 4 x 1408 = 5632
    // with its scalar gate, 24 layers. transformers 5.17 has no qwen2_moe
    // entry in conversion_mapping._MODEL_TO_CONVERSION_PATTERN, so PEFT 0.21
    // converts nothing and "all-linear" adapts the nn.Linear modules only:
    // q, k, v, o 4 x 16 (2048 + 2048) = 262,144; the shared expert's gate, up
    // and down 3 x 16 (2048 + 5632) = 368,640; shared_expert_gate 16 (2048 +
    // 1) = 32,784: 663,568 a layer, 24 layers = 15,925,632, the trainable
    // count of Caliper's H200 run (validation/measured/h200-finetune-set5.jsonl).
    Scenario s = finetuning("qwen1.5-moe-a2.7b", "h200-sxm-141gb", Method::Lora);
    s.gradientCheckpointing = false;
    s.globalBatch = 2;
    s.lora.adapterDtype = AdapterDtype::Fp32;
    const MemoryBreakdown frozen = memoryOn(s, 1);
    CHECK(frozen.adapterGiB * kBytesPerGiB / 4 == Approx(15925632.0).epsilon(1e-6));
    s.lora.experts = ExpertAdapters::Frozen;
    CHECK(memoryOn(s, 1).adapterGiB == Approx(frozen.adapterGiB));
    // Stated fused, the experts' merged 16-bit copy comes back: 60 x 3 x 2048
    // x 1408 x 2 = 1,038,090,240 bytes a layer. Per token and layer the fused
    // path keeps the gate's fp32 input copy (4 x 2048), the 4 routed passes'
    // gathered inputs (4 x 2 x 2048) and drops the shared expert's down input
    // (-2 x 5632): 13,312 bytes; the frozen path keeps the fp32 copies of the
    // shared expert's gate/up and its scalar gate, less the 2-byte normed input
    // (3 x 4 x 2048 - 2 x 2048), the shared down's fp32 copy for its 2-byte
    // input (2 x 5632) and drops the routed down inputs (-2 x 4 x 1408):
    // 20,480 bytes.
    s.lora.experts = ExpertAdapters::Fused;
    const MemoryBreakdown fused = memoryOn(s, 1);
    const double expected = 24 * (1038090240.0 - (20480.0 - 13312.0) * 2048);
    CHECK((fused.activationsGiB - frozen.activationsGiB) * kBytesPerGiB == Approx(expected).epsilon(0.001));
}

TEST_CASE("PEFT's MoE conversion adapts the experts and router, not the dense or shared MLPs", "[memory][lora]") {
    // Mixtral 8x7B: h = 4096, q 4096, k/v 1024, 8 experts of f = 14,336, 32
    // layers. Attention 16 [2 (4096 + 4096) + 2 (4096 + 1024)] = 425,984;
    // gate_up_proj at rank 32 over 8 experts: 32 x 8 (4096 + 28,672) =
    // 8,388,608; down_proj 16 x 8 (14,336 + 4096) = 2,359,296; the router
    // 16 (4096 + 8) = 65,664: 11,239,552 a layer, x 32 = 359,665,664.
    Scenario s = finetuning("mixtral-8x7b", "h200-sxm-141gb", Method::Lora);
    s.lora.adapterDtype = AdapterDtype::Fp32;
    CHECK(memoryOn(s, 1).adapterGiB * kBytesPerGiB / 4 == Approx(359665664.0).epsilon(1e-6));
    // DeepSeek-V2-Lite: MLA q 2048 -> 16 x 192, kv_a 2048 -> 576, kv_b 512 ->
    // 16 x 256, o 2048 -> 2048: 16 x 16,448 = 263,168 a layer over 27 layers;
    // 26 MoE layers of 64 experts (f = 1408): gate_up 32 x 64 (2048 + 2816) =
    // 9,961,472, down 16 x 64 (1408 + 2048) = 3,538,944, router 16 (2048 +
    // 64) = 33,792. The first layer's dense MLP and the shared experts carry
    // the converted names gate_proj/up_proj/down_proj and get no adapter:
    // 7,105,536 + 26 x 13,534,208 = 358,994,944, the count of Caliper's H200
    // runs of both (validation/measured/h200-finetune-set5.jsonl).
    s = finetuning("deepseek-v2-lite", "h200-sxm-141gb", Method::Lora);
    s.lora.adapterDtype = AdapterDtype::Fp32;
    CHECK(memoryOn(s, 1).adapterGiB * kBytesPerGiB / 4 == Approx(358994944.0).epsilon(1e-6));
}

}  // namespace caliper::test
