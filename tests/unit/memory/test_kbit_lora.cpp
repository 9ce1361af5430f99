// LoRA over bitsandbytes bases: what LLM.int8's matmul keeps for backward and
// what PEFT's prepare_model_for_kbit_training casts to fp32.
#include <catch2/catch.hpp>

#include "lora_step_fixture.hpp"

namespace caliper::test {

TEST_CASE("LLM.int8 layers keep their 16-bit inputs although their weights are frozen", "[memory][lora][kbit]") {
    // bitsandbytes/autograd/_functions.py MatMul8bitLt.forward (0.42.0 to
    // 0.50.1): `if any(ctx.needs_input_grad[:2]): ctx.tensors = (CAt, subA, A)`.
    // Llama 2 7B, one 2,048-token sample, LoRA on every linear layer:
    // switching the adapters to fp32 adds a 4-byte cast of each adapted input,
    // 4 (3h + q width + 2h + f) = 4 (3 x 4096 + 4096 + 2 x 4096 + 11008) =
    // 142,336 bytes per token and layer; the 2-byte inputs the layers read
    // (the normed input twice and down's: 2 (2 x 4096 + 11008) = 38,400)
    // stay saved by the int8 matmul, where over a 16-bit base they would
    // leave once lora_A reads its own copy.
    const double tokenLayers = 2048.0 * 32;
    Scenario s = loraStep("llama-2-7b", Method::Lora, WeightFormat::Int8);
    s.lora.targets = LoraTargets::AllLinear;
    const double model = gb(memoryOn(s, 1).activationsGiB);
    s.lora.adapterDtype = AdapterDtype::Fp32;
    CHECK(gb(memoryOn(s, 1).activationsGiB) - model == Approx(142336.0 * tokenLayers / 1e9).epsilon(0.001));
}

TEST_CASE("PEFT's k-bit preparation keeps the unquantized parameters in fp32", "[memory][lora][kbit]") {
    // peft/utils/other.py prepare_model_for_kbit_training: every fp16/bf16
    // parameter that is not a Params4bit goes to fp32. Llama 3 8B (vocabulary
    // 128,256, h = 4,096, untied head, 32 layers with two RMSNorms each and
    // the final norm): embed_tokens and lm_head, 2 x 128,256 x 4,096 =
    // 1,050,673,152 parameters, and the norms, 65 x 4,096 = 266,240, go from
    // 2 bytes to 4: 2 x 1,050,939,392 = 2,101,878,784 bytes more.
    const double upcast = 2.0 * (2 * 128256.0 * 4096 + 65 * 4096.0);
    for (const WeightFormat format : {WeightFormat::Nf4, WeightFormat::Nf4Dq, WeightFormat::Int8}) {
        Scenario s = loraStep("llama-3-8b", format == WeightFormat::Int8 ? Method::Lora : Method::Qlora, format);
        const double sixteen = gb(memoryOn(s, 1).weightsGiB);
        s.lora.upcastUnquantized = true;
        INFO(toString(format));
        CHECK(gb(memoryOn(s, 1).weightsGiB) - sixteen == Approx(upcast / 1e9).epsilon(0.001));
    }
    // PEFT skips the cast for GPTQ bases, and a 16-bit base is not k-bit.
    for (const WeightFormat format : {WeightFormat::GptqInt4, WeightFormat::Bf16}) {
        Scenario s = loraStep("llama-3-8b", format == WeightFormat::Bf16 ? Method::Lora : Method::Qlora, format);
        const double plain = gb(memoryOn(s, 1).totalGiB);
        s.lora.upcastUnquantized = true;
        INFO(toString(format));
        CHECK(gb(memoryOn(s, 1).totalGiB) == Approx(plain));
    }
}

TEST_CASE("A 4-bit lm_head stays quantized under PEFT's k-bit preparation", "[memory][lora][kbit]") {
    // Params4bit parameters are skipped by the cast
    // (`param.__class__.__name__ != "Params4bit"`): with lora.quantized_head
    // only the embedding table and the norms grow. Llama 3 8B: 128,256 x 4,096
    // + 65 x 4,096 = 525,602,816 parameters, 2 bytes more each.
    Scenario s = loraStep("llama-3-8b", Method::Qlora, WeightFormat::Nf4);
    s.lora.quantizedHead = true;
    const double sixteen = gb(memoryOn(s, 1).weightsGiB);
    s.lora.upcastUnquantized = true;
    CHECK(gb(memoryOn(s, 1).weightsGiB) - sixteen == Approx(2.0 * (128256.0 * 4096 + 65 * 4096.0) / 1e9).epsilon(0.001));
}

TEST_CASE("bitsandbytes leaves transformers v5's fused MoE experts in 16 bits", "[memory][lora][kbit]") {
    // transformers v5 keeps the routed experts as 3D nn.Parameter tensors
    // (gate_up_proj, down_proj), and its bitsandbytes loading replaces only
    // nn.Linear and Conv1D modules. Qwen3 30B-A3B: 48 layers x 128 experts x
    // 3 matrices x 2,048 x 768 = 28,991,029,248 expert weights at 16 bits
    // instead of NF4's 4.5: (16 - 4.5) / 8 x 28,991,029,248 = 41,674,604,544
    // bytes more than with one nn.Linear per expert (v4, lora.experts
    // "modules"), the other layers unchanged.
    Scenario s = loraStep("qwen3-30b-a3b", Method::Qlora, WeightFormat::Nf4);
    s.lora.experts = ExpertAdapters::Modules;
    const double modules = gb(memoryOn(s, 1).weightsGiB);
    s.lora.experts = ExpertAdapters::Fused;
    CHECK(gb(memoryOn(s, 1).weightsGiB) - modules == Approx(28991029248.0 * (16 - 4.5) / 8 / 1e9).epsilon(0.001));
    // Unstated (auto), a k-bit base keeps one quantized module per expert.
    s.lora.experts = ExpertAdapters::Auto;
    CHECK(gb(memoryOn(s, 1).weightsGiB) == Approx(modules));
}

}  // namespace caliper::test
