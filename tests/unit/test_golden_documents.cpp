// Claims of the project's source articles (Chinese GPU-buying guides,
// shared/seeds 000-004), checked against the engine. Each case states the
// claim, the reasoning, and where the article is wrong the correct figure.
#include <optional>
#include <catch2/catch.hpp>

#include <algorithm>

#include "caliper/plan/estimate.hpp"
#include "caliper/answers/quick_rules.hpp"
#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;

namespace {

double states(const MemoryBreakdown& m) { return m.weightsGiB + m.gradientsGiB + m.optimizerGiB + m.adapterGiB; }

double ruleGiB(const std::vector<QuickRule>& rules, const std::string& name) {
    const auto it = std::find_if(rules.begin(), rules.end(), [&](const QuickRule& r) { return r.rule == name; });
    if (it == rules.end()) FAIL("no rule " << name);
    return it == rules.end() ? 0 : it->valueGiB;
}

}  // namespace

TEST_CASE("article 001 §9: 4x V100 32GB cannot full fine-tune or serve a 65B LLaMA in fp16", "[golden]") {
    // Claim: LLaMA-65B (Vicuna 65B) weights need 5 V100 32GB; full training
    // is impossible on 4; LoRA/QLoRA is the way. Reasoning: 65.3B x 2 bytes =
    // 130.6 GB of fp16 weights > 4 x 32 GB; full fine-tuning carries 16-18
    // bytes per parameter (over 1 TB).
    Scenario serve = generateRun("llama-65b", "v100-sxm2-32gb", 1, 512, 128);
    CHECK_FALSE(fitsMemory(serve, memoryOn(serve, 4)));
    const std::optional<int> toServe = fewestGpus(serve);
    REQUIRE(toServe.has_value());
    CHECK(*toServe >= 5);

    Scenario full = finetuning("llama-65b", "v100-sxm2-32gb", Method::Full);
    full.gradientCheckpointing = true;
    CHECK_FALSE(fitsMemory(full, memoryOn(full, 4)));
    CHECK(gb(states(memoryOn(full, 1))) > 1000);

    // QLoRA: 65B in NF4 with double quantization is ~34 GB; sharded over four
    // V100s (ZeRO-3) it fits. V100 has no FlashAttention-2, so the eager
    // attention scores of the recomputed layer are counted.
    Scenario qlora = finetuning("llama-65b", "v100-sxm2-32gb", Method::Qlora);
    REQUIRE_FALSE(qlora.flashAttention);
    CHECK(fitsMemory(qlora, memoryOn(qlora, 4)));
}

TEST_CASE("article 002: DeepSeek-R1 needs ~1,342 GB in 16-bit, more than 16 A100 80GB", "[golden]") {
    // Claim: ~1,342 GB, "NVIDIA A100 80GB x16". The weights are right:
    // 671.0B x 2 bytes = 1342 GB. The GPU count is not: 16 x 80 GB = 1280 GB
    // < 1342 GB. With vLLM's 0.9 budget the fewest that fit are 20 (tensor 4
    // x pipeline 5); 17-19 GPUs leave 75-87 GiB on the fullest one.
    Scenario s = serving("deepseek-r1", "a100-sxm4-80gb", Engine::Vllm);
    CHECK(gb(memoryOn(s, 1).weightsGiB) == Approx(1342).epsilon(0.002));
    CHECK_FALSE(fitsMemory(s, memoryOn(s, 16)));
    const std::optional<int> needed = fewestGpus(s);
    REQUIRE(needed);
    CHECK(*needed > 16);
    CHECK(fitsMemory(s, memoryOn(s, *needed)));
    CHECK_FALSE(fitsMemory(s, memoryOn(s, *needed - 1)));
}

TEST_CASE("article 001 §8: 7B full fine-tuning holds ~112 GB of model states", "[golden]") {
    // Claim: weights 2n + gradients 2n + optimizer 12n = 16n GB, so 7B -> 112 GB
    // before activations. Llama-2-7B has 6.74B parameters (config.json), hence
    // 107.8 GB; the article rounds the size to 7B.
    Scenario s = finetuning("llama-2-7b", "a100-sxm4-80gb", Method::Full);
    CHECK(gb(states(memoryOn(s, 1))) == Approx(16 * 6.738415616).epsilon(0.002));
    CHECK(ruleGiB(quickRules(s), "training_16_bytes_per_param") == Approx(bytesToGiB(16 * 6738415616.0)));
    // "Vicuna 7B trains, barely, under FSDP on 160 GB": two A100 80GB with
    // FSDP and checkpointing fit; one does not.
    Scenario fsdp = finetuning("vicuna-7b-v1.5", "a100-sxm4-80gb", Method::Full, Engine::Fsdp);
    fsdp.gradientCheckpointing = true;
    CHECK(fitsMemory(fsdp, memoryOn(fsdp, 2)));
    CHECK_FALSE(fitsMemory(fsdp, memoryOn(fsdp, 1)));
}

TEST_CASE("Llama-3-70B needs two 80 GB cards for bf16 inference", "[golden]") {
    // Articles 000 (70B: >= 2 x 80 GB) and 002 (~140 GB): 70.55B x 2 bytes =
    // 141 GB; half of it (65.7 GiB) fits vLLM's 0.9 x 79.65 GiB on an H100.
    Scenario s = serving("llama-3-70b", "h100-sxm5-80gb", Engine::Vllm);
    CHECK(fewestGpus(s) == 2);
    s.gpu = catalogGpu("a100-sxm4-80gb");
    CHECK(fewestGpus(s) == 2);
}

TEST_CASE("article 000 table: model size against single-card memory", "[golden]") {
    // The table: 1-3B 12-24 GB (RTX 4090 / L4), 7B 24-32 GB (L4 / L40S), 13B
    // 48 GB+ (L40S / A100), 30B 80 GB+ (A100 80G / H100), 70B >= 2 x 80 GB.
    // Read as bf16 serving and LoRA fine-tuning (checkpointing on, 2048 tokens):
    struct Row {
        const char* model;
        const char* fitsOn;    // the table's smallest typical card
        const char* tooSmall;  // the class below it
    };
    const Row rows[] = {{"llama-3.2-3b", "rtx-4090", nullptr},
                        {"llama-2-7b", "l4", nullptr},
                        {"llama-2-13b", "l40s", "l4"},
                        {"qwen2.5-32b", "a100-sxm4-80gb", "l40s"}};
    for (const Row& row : rows) {
        INFO(row.model);
        Scenario serve = serving(row.model, row.fitsOn, Engine::Transformers);
        CHECK(fitsMemory(serve, memoryOn(serve, 1)));
        Scenario lora = finetuning(row.model, row.fitsOn, Method::Lora);
        lora.gradientCheckpointing = true;
        CHECK(fitsMemory(lora, memoryOn(lora, 1)));
        if (row.tooSmall) {
            Scenario small = serving(row.model, row.tooSmall, Engine::Transformers);
            CHECK_FALSE(fitsMemory(small, memoryOn(small, 1)));
        }
    }
    // Where the table overstates: a 3B model serves in bf16 in far less than
    // 12 GB (3.2B x 2 bytes = 6.4 GB of weights).
    Scenario small = generateRun("llama-3.2-3b", "rtx-4090", 1, 1024, 256);
    CHECK(gb(memoryOn(small, 1).totalGiB) < 12);
    // Where it understates: ">= 2 x 80 GB (ZeRO-3)" for 70B holds for serving,
    // but full fine-tuning with ZeRO-3 carries 18 bytes per parameter
    // (DeepSpeed): 70.55B x 18 = 1.27 TB, at least 16 cards.
    Scenario full = finetuning("llama-3-70b", "a100-sxm4-80gb", Method::Full);
    full.gradientCheckpointing = true;
    const std::optional<int> n = fewestGpus(full);
    REQUIRE(n.has_value());
    CHECK(*n >= 16);
}

TEST_CASE("article 001 §8.2: 'inference x2, training x8' against the detailed estimate", "[golden]") {
    // Claim (bf16): inference = 2 bytes per parameter, training = 8 (weights,
    // gradients and two optimizer states at 2 bytes each). Mixed-precision AdamW
    // keeps fp32 master weights and moments: 16 bytes, twice the rule.
    Scenario s = finetuning("llama-3.1-8b", "h200-sxm-141gb", Method::Full);
    const std::vector<QuickRule> rules = quickRules(s);
    const double n = countParams(s.model).total;
    CHECK(ruleGiB(rules, "training_8_bytes_per_param") == Approx(bytesToGiB(8 * n)));
    CHECK(states(memoryOn(s, 1)) == Approx(2 * ruleGiB(rules, "training_8_bytes_per_param")).epsilon(0.001));
    Scenario serve = serving("llama-3.1-8b", "h100-sxm5-80gb", Engine::Transformers);
    const std::vector<QuickRule> inference = quickRules(serve);
    CHECK(ruleGiB(inference, "inference_2_bytes_per_param") == Approx(memoryOn(serve, 1).weightsGiB).epsilon(0.001));
}

TEST_CASE("article 003: 'Llama-3-8B full-parameter training needs ~32 GB' is the fp32 weights only", "[golden]") {
    // 8.03B x 4 bytes = 32 GB is the size of fp32 weights; full fine-tuning
    // with AdamW needs 16 bytes per parameter = 128 GB of states, more than
    // any single 80 GB card.
    Scenario s = finetuning("llama-3-8b", "a100-sxm4-80gb", Method::Full);
    CHECK(gb(states(memoryOn(s, 1))) == Approx(16 * 8.030261248).epsilon(0.002));
    CHECK_FALSE(fitsMemory(s, memoryOn(s, 1)));
}

TEST_CASE("article 002: GPT-NeoX 20B on two RTX 3090; DeepSeek-R1-Distill-Llama-70B on two RTX 4090", "[golden]") {
    // GPT-NeoX-20B: 20.55B x 2 bytes = 41 GB in 16-bit: two 24 GB cards hold
    // it (transformers, 2560 tokens). The article's "48 GB+" is right that it
    // is tight: vLLM's 0.9 budget leaves no room for the KV cache on two.
    Scenario neox = serving("gpt-neox-20b", "rtx-3090", Engine::Transformers);
    CHECK(fewestGpus(neox) == 2);
    neox.engine = Engine::Vllm;
    const std::optional<int> vllm = fewestGpus(neox);
    REQUIRE(vllm.has_value());
    CHECK(*vllm > 2);
    // The 70B distill at "~32.7 GB" is a ~4-bit file; in Q4_K_M (4.8 bits on
    // the blocks) it is ~42 GB, and llama.cpp splits it over two 24 GB cards.
    Scenario distill = serving("deepseek-r1-distill-llama-70b", "rtx-4090", Engine::LlamaCpp);
    distill.weights = WeightFormat::Q4_K_M;
    CHECK(fewestGpus(distill) == 2);
}
