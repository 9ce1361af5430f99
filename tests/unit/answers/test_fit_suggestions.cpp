// Computed fixes for scenarios that do not fit.
#include <catch2/catch.hpp>

#include <algorithm>

#include "caliper/answers/fit_suggestions.hpp"
#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;

namespace {

const FitSuggestion* find(const std::vector<FitSuggestion>& all, const std::string& change) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const FitSuggestion& f) { return f.change == change; });
    return it == all.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("a scenario that fits needs no suggestion", "[suggestions]") {
    CHECK(fitSuggestions(serving("llama-3.1-8b", "h100-sxm5-80gb")).empty());
}

TEST_CASE("full fine-tuning of 7B on one 24 GB card: adapters, offload, more GPUs", "[suggestions]") {
    // 16 bytes x 6.74B = 108 GB of states cannot fit 24 GB.
    Scenario s = finetuning("llama-2-7b", "rtx-4090", Method::Full);
    const std::vector<FitSuggestion> all = fitSuggestions(s);
    REQUIRE_FALSE(all.empty());
    for (const FitSuggestion& f : all) {
        INFO(f.change << ": " << f.detail);
        CHECK(f.fits);
        CHECK(f.totalGiB > 0);
        CHECK(f.totalGiB <= usableMemoryGiB(s) + 1e-9);
    }
    // QLoRA (3.9 GB of NF4 weights) fits; so does sharding over more GPUs.
    CHECK(find(all, "qlora") != nullptr);
    const FitSuggestion* more = find(all, "more_gpus");
    REQUIRE(more != nullptr);
    CHECK(more->gpuCount > 1);
    // Checkpointing alone cannot remove 108 GB of states.
    CHECK(find(all, "gradient_checkpointing") == nullptr);
}

TEST_CASE("70B bf16 serving on one H100: quantize or add a GPU", "[suggestions]") {
    Scenario s = serving("llama-3.1-70b", "h100-sxm5-80gb", Engine::Vllm);
    const std::vector<FitSuggestion> all = fitSuggestions(s);
    const FitSuggestion* quantize = find(all, "quantize");
    REQUIRE(quantize != nullptr);
    CHECK(quantize->detail == "weights fp8");  // 70 GB of fp8 weights fit 0.9 x 79.65 GiB
    const FitSuggestion* more = find(all, "more_gpus");
    REQUIRE(more != nullptr);
    CHECK(more->gpuCount == 2);
}

TEST_CASE("a long context that overflows suggests the longest that fits", "[suggestions]") {
    Scenario s = generateRun("llama-3.1-8b", "rtx-4090", 1, 120000, 0);
    const std::vector<FitSuggestion> all = fitSuggestions(s);
    const FitSuggestion* shorter = find(all, "shorter_context");
    REQUIRE(shorter != nullptr);
    CHECK(shorter->totalGiB <= usableMemoryGiB(s));
    const FitSuggestion* kv = find(all, "kv_cache_fp8");
    if (kv) CHECK(kv->fits);
}

TEST_CASE("llama.cpp on a card too small: host RAM takes experts or layers, never on a SoC", "[suggestions]") {
    // gpt-oss-120b in MXFP4 is ~61 GiB: one RTX 4090 (23.5 GiB usable)
    // cannot hold it, and with 96 GiB of host RAM llama.cpp's --n-cpu-moe
    // keeps the routed experts of some of its 36 MoE layers there (the way
    // the model's llama.cpp guide, discussion #15396, runs it on 24 GB cards).
    Scenario s = serving("gpt-oss-120b", "rtx-4090", Engine::LlamaCpp);
    s.weights = WeightFormat::Mxfp4;
    s.host = hostDefaults(s.gpu);
    s.host.ramGib = 96;
    s.host.ramExplicit = true;
    const std::vector<FitSuggestion> all = fitSuggestions(s);
    const FitSuggestion* experts = find(all, "offload_moe_experts");
    REQUIRE(experts != nullptr);
    CHECK(experts->gpuCount == 1);
    CHECK(experts->totalGiB <= usableMemoryGiB(s) + 1e-9);
    CHECK(find(all, "offload_layers") != nullptr);
    // 32 GiB of host RAM holds neither the ~40 GiB of experts nor the layers.
    s.host.ramGib = 32;
    const std::vector<FitSuggestion> small = fitSuggestions(s);
    CHECK(find(small, "offload_moe_experts") == nullptr);
    CHECK(find(small, "offload_layers") == nullptr);
    // A dense 70B in Q4_K_M (~40 GiB) on an M4 Pro with 24 GB: its GPU
    // memory is the host's, so offloading to it frees nothing.
    Scenario mac = serving("llama-3.3-70b", "apple-m4-pro-20c-24gb", Engine::LlamaCpp);
    mac.weights = WeightFormat::Q4_K_M;
    mac.host = hostDefaults(mac.gpu);
    const std::vector<FitSuggestion> onMac = fitSuggestions(mac);
    CHECK(find(onMac, "offload_layers") == nullptr);
}

TEST_CASE("an Apple GPU is offered a higher wired limit where that makes the model fit", "[suggestions]") {
    // DeepSeek-R1 in Q4_K_M (GGUF ~404 GB = 377.6 GiB of weights) on an M3
    // Ultra with 512 GB: macOS wires 3/4 of it to the GPU by default (384 GiB,
    // the catalog's memory_gib), short of the weights and the rest. Raised to
    // max(80% of RAM, RAM - 5 GiB) = 507 GiB (exo's configure_mlx.sh), it fits,
    // as the llama.cpp runs of this model on that Mac do.
    Scenario s = serving("deepseek-r1", "apple-m3-ultra-80c", Engine::LlamaCpp);
    s.weights = WeightFormat::Q4_K_M;
    s.weightsExplicit = true;
    s.host = hostDefaults(s.gpu);
    const std::vector<FitSuggestion> all = fitSuggestions(s);
    const FitSuggestion* wired = find(all, "gpu_wired_limit");
    REQUIRE(wired != nullptr);
    CHECK(wired->fits);
    CHECK(wired->detail.find("507 GiB") != std::string::npos);
    CHECK(wired->detail.find("iogpu.wired_limit_mb=519168") != std::string::npos);  // 507 x 1024
    CHECK(all.front().change == "gpu_wired_limit");  // costs nothing: first
    // Not on a GPU with memory of its own.
    Scenario h100 = serving("llama-3.1-70b", "h100-sxm5-80gb");
    CHECK(find(fitSuggestions(h100), "gpu_wired_limit") == nullptr);
}

TEST_CASE("suggestions name only what the chosen engine offers", "[suggestions]") {
    // Full fine-tuning of Qwen2.5-1.5B (1.54B parameters) on one 24 GB card:
    // AdamW's 16 bytes per parameter (weights, gradients, fp32 master and two
    // fp32 moments) are 24.7 GB, above the card; bitsandbytes' 8-bit AdamW
    // keeps the moments in 2 bytes, 10 bytes per parameter, 15.4 GB.
    Scenario hf = finetuning("qwen2.5-1.5b", "rtx-4090", Method::Full, Engine::Transformers);
    hf.gradientCheckpointing = true;
    const std::vector<FitSuggestion> withHf = fitSuggestions(hf);
    REQUIRE_FALSE(withHf.empty());
    CHECK(find(withHf, "optimizer_8bit") != nullptr);
    // Megatron-LM's optimizers are Adam and SGD (megatron/training/arguments.py
    // --optimizer) and its adapters sit on 16-bit bases: no bitsandbytes
    // optimizer and no QLoRA to offer, whatever they would save.
    Scenario megatron = hf;
    megatron.engine = Engine::Megatron;
    for (const FitSuggestion& f : fitSuggestions(megatron)) {
        INFO(f.change << ": " << f.detail);
        CHECK(f.change != "optimizer_8bit");
        CHECK(f.change != "qlora");
    }
}
