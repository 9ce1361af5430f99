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
    Scenario s = serving("llama-3.1-8b", "rtx-4090", Engine::Transformers);
    s.promptTokens = 120000;
    s.outputTokens = 0;
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
