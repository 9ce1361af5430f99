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
