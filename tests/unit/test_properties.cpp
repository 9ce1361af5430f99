// Properties that must hold for every scenario, checked over generated ones
// (property_scenarios.hpp; Catch2's random generator is seeded by
// --rng-seed, 0 by default, so a failure replays). A failure here is an
// engine bug: the INFO lines name the scenario and the figures.
#include <catch2/catch.hpp>

#include <map>

#include "../fuzz/fuzz_checks.hpp"
#include "caliper/engine/compat.hpp"
#include "caliper/engine/formats.hpp"
#include "caliper/engine/memory.hpp"
#include "caliper/engine/plan.hpp"
#include "property_scenarios.hpp"

using namespace caliper;
using caliper::test::accepted;
using caliper::test::acceptedRequest;
using caliper::test::projectCatalog;
using caliper::test::PropertyJson;

namespace {

// Comparisons allow for rounding in sums of GiB figures, nothing more.
constexpr double kRelativeSlack = 1e-9;

bool atMost(double a, double b) { return a <= b + kRelativeSlack * std::max(1.0, std::fabs(b)); }

EstimateResult run(const PropertyJson& request) {
    const std::optional<Scenario> s = accepted(request);
    REQUIRE(s);
    return estimate(*s);
}

PropertyJson with(PropertyJson request, const char* key, const PropertyJson& value) {
    request[key] = value;
    return request;
}

// The GPU count a request runs on: its own, or the fewest that fit.
int countOf(const PropertyJson& request) {
    if (request["gpu_count"].is_number()) return request["gpu_count"].get<int>();
    return run(request).gpusNeeded.value_or(1);
}

MemoryBreakdown memoryUnder(const PropertyJson& request, const Plan& plan) {
    const std::optional<Scenario> s = accepted(request);
    REQUIRE(s);
    return estimateMemory(*s, plan).memory;
}

}  // namespace

TEST_CASE("every figure of every result is finite and non-negative", "[properties]") {
    const auto seed = GENERATE(take(200, random(1u, 1u << 30)));
    const PropertyJson request = acceptedRequest(seed);
    INFO(request.dump());
    CHECK(fuzz::checkFigures(run(request)) == "");
}

TEST_CASE("memory grows with context, batch and sequence length", "[properties]") {
    const auto seed = GENERATE(take(120, random(1u, 1u << 30)));
    const PropertyJson request = acceptedRequest(seed);
    const bool inference = request["task"] == "inference";
    const std::optional<Scenario> base = accepted(request);
    REQUIRE(base);
    const Plan plan = makePlan(*base, countOf(request));
    const MemoryBreakdown before = memoryUnder(request, plan);
    // Doubling each length (and the batch) under the same plan.
    std::vector<const char*> keys = {"batch"};
    if (inference) keys.insert(keys.end(), {"prompt_tokens", "output_tokens"});
    else keys.push_back("seq_len");
    for (const char* key : keys) {
        const PropertyJson larger = with(request, key, request[key].get<std::int64_t>() * 2);
        INFO(larger.dump() << " on " << plan.gpuCount << " GPUs");
        const MemoryBreakdown after = memoryUnder(larger, plan);
        INFO("total " << before.totalGiB << " -> " << after.totalGiB << " GiB, kv " << before.kvCacheGiB << " -> "
                      << after.kvCacheGiB << ", activations " << before.activationsGiB << " -> "
                      << after.activationsGiB);
        CHECK(atMost(before.totalGiB, after.totalGiB));
        CHECK(atMost(before.kvCacheGiB, after.kvCacheGiB));
        CHECK(atMost(before.activationsGiB, after.activationsGiB));
        // Without a pre-allocated KV pool the growth shows in the total
        // (output_tokens 1 -> 2 may stay inside llama.cpp's padded context).
        const bool pool = request["engine"] == "vllm" || request["engine"] == "sglang" ||
                          request["engine"] == "tensorrt-llm";
        if (!pool && std::string(key) != "output_tokens") CHECK(after.totalGiB > before.totalGiB);
    }
}

TEST_CASE("more GPUs never raise per-GPU memory under ZeRO-3, FSDP or tensor parallel", "[properties]") {
    const auto seed = GENERATE(take(60, random(1u, 1u << 30)));
    const std::string strategy = GENERATE(as<std::string>(), "zero3", "fsdp", "tensor");
    const std::string task = strategy == "tensor" ? (seed % 2 ? "inference" : "pretrain") : "finetune";
    PropertyJson request = acceptedRequest(seed, task);
    if (task != "inference") request["engine"] = strategy == "fsdp" ? "fsdp" : strategy == "zero3" ? "deepspeed" : "megatron";
    std::optional<MemoryBreakdown> previous;
    int previousCount = 0;
    int compared = 0;
    for (int count : {1, 2, 4, 8, 16, 32, 64}) {
        // Tensor parallel over all of them: tp = count, one pipeline stage.
        PropertyJson parallel = {{"strategy", count == 1 ? "single" : strategy}};
        if (strategy == "tensor") parallel.update({{"tp", count}, {"pp", 1}});
        const PropertyJson at = with(with(request, "gpu_count", count), "parallel", parallel);
        if (!accepted(at)) continue;  // e.g. tp that does not divide the heads
        const MemoryBreakdown memory = run(at).memory;
        if (previous) {
            INFO(at.dump() << ": " << previousCount << " GPUs " << previous->totalGiB << " GiB, " << count
                           << " GPUs " << memory.totalGiB << " GiB; weights " << previous->weightsGiB << " -> "
                           << memory.weightsGiB);
            CHECK(atMost(memory.totalGiB, previous->totalGiB));
            CHECK(atMost(memory.weightsGiB, previous->weightsGiB));
            ++compared;
        }
        previous = memory;
        previousCount = count;
    }
    CHECK(compared >= 2);
}

TEST_CASE("what fits on a GPU fits on a larger one of the same generation", "[properties]") {
    // Pairs from the catalog: same vendor and architecture, more memory.
    static const std::vector<std::pair<const GpuSpec*, const GpuSpec*>> pairs = [] {
        std::vector<std::pair<const GpuSpec*, const GpuSpec*>> out;
        for (const GpuSpec& a : projectCatalog().gpus) {
            for (const GpuSpec& b : projectCatalog().gpus) {
                if (a.vendor == b.vendor && a.architecture == b.architecture && b.memoryGib > a.memoryGib) {
                    out.emplace_back(&a, &b);
                }
            }
        }
        return out;
    }();
    REQUIRE(pairs.size() > 50);
    const auto seed = GENERATE(take(150, random(1u, 1u << 30)));
    const auto& [smaller, larger] = pairs[seed % pairs.size()];
    PropertyJson request = acceptedRequest(seed);
    request["gpu_count"] = 1;
    // Draw models until one runs on both and fits the smaller GPU (or give up:
    // the implication then holds vacuously for this pair).
    PropertyJson onSmaller, onLarger;
    for (std::uint32_t i = 0; i < 8; ++i) {
        request["model"] = caliper::test::RequestDraw(seed + i).request()["model"];
        onSmaller = with(request, "gpu", smaller->id);
        onLarger = with(request, "gpu", larger->id);
        if (accepted(onSmaller) && accepted(onLarger) && run(onSmaller).fits) break;
    }
    if (!accepted(onSmaller) || !accepted(onLarger)) return;  // a format one of them lacks
    const EstimateResult small = run(onSmaller);
    const EstimateResult large = run(onLarger);
    INFO(onSmaller.dump() << " vs " << larger->id << ": " << small.memory.totalGiB << " of "
                          << small.usableMemoryGiB << " GiB vs " << large.memory.totalGiB << " of "
                          << large.usableMemoryGiB << " GiB");
    CHECK(atMost(small.usableMemoryGiB, large.usableMemoryGiB));
    if (small.fits) CHECK(large.fits);
    if (small.gpusNeeded) CHECK((large.gpusNeeded && *large.gpusNeeded <= *small.gpusNeeded));
}

TEST_CASE("quantizing never raises weight memory", "[properties]") {
    // Tiers by bits per weight (llama.cpp's published bpw for the GGUF
    // types, 16/8/4 plus scales for the others); every format of a tier
    // stores at most as many bits as any format of the tier above.
    using F = WeightFormat;
    const std::vector<std::vector<F>> tiers = {
        {F::Fp32},
        {F::Bf16, F::Fp16},
        {F::Fp8, F::Int8, F::Q8_0},
        {F::Q6_K},
        {F::Q5_K_M, F::Q5_K_S, F::Q5_0},
        {F::Q4_K_M, F::Q4_K_S, F::Q4_0, F::Q4_1, F::Nf4, F::Nf4Dq, F::GptqInt4, F::AwqInt4, F::Mxfp4},
        {F::Q3_K_M, F::Q3_K_S},
        {F::Q2_K}};
    const auto seed = GENERATE(take(60, random(1u, 1u << 30)));
    const std::optional<Scenario> base = accepted(acceptedRequest(seed, "inference"));
    REQUIRE(base);
    auto weightsIn = [&](F format) {
        Scenario s = *base;
        s.weights = format;
        s.engine = isGgufFormat(format) ? Engine::LlamaCpp : Engine::Transformers;
        return estimateMemory(s, makePlan(s, 1)).memory.weightsGiB;
    };
    for (std::size_t t = 0; t + 1 < tiers.size(); ++t) {
        for (F high : tiers[t]) {
            for (F low : tiers[t + 1]) {
                INFO(base->model.id << ": " << toString(high) << " " << weightsIn(high) << " GiB, " << toString(low)
                                    << " " << weightsIn(low) << " GiB");
                CHECK(atMost(weightsIn(low), weightsIn(high)));
            }
        }
    }
    // Q3_K_L (about 4.3 bits) sits between Q4_K_M and Q3_K_M.
    CHECK(atMost(weightsIn(F::Q3_K_L), weightsIn(F::Q4_K_M)));
    CHECK(atMost(weightsIn(F::Q3_K_M), weightsIn(F::Q3_K_L)));
}

TEST_CASE("gpus_needed GPUs fit and one fewer does not", "[properties]") {
    const auto seed = GENERATE(take(120, random(1u, 1u << 30)));
    const PropertyJson request = with(acceptedRequest(seed), "gpu_count", "auto");
    const EstimateResult automatic = run(request);
    if (!automatic.gpusNeeded) return;  // nothing fits within kMaxGpus
    const int needed = *automatic.gpusNeeded;
    INFO(request.dump() << ": gpus_needed " << needed);
    CHECK(automatic.fits);
    CHECK(run(with(request, "gpu_count", needed)).fits);
    if (needed > 1) {
        const PropertyJson fewer = with(request, "gpu_count", needed - 1);
        if (accepted(fewer)) {
            const EstimateResult less = run(fewer);
            INFO(needed - 1 << " GPUs: " << less.memory.totalGiB << " of " << less.usableMemoryGiB << " GiB");
            CHECK_FALSE(less.fits);
        }
    }
}

TEST_CASE("results are identical between runs, in any order, on a re-read catalog", "[properties]") {
    std::vector<std::string> requests;
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
        requests.push_back(caliper::test::RequestDraw(seed).request().dump());
    }
    std::vector<std::string> forward;
    for (const std::string& r : requests) forward.push_back(estimateJson(projectCatalog(), r).json);
    const Catalog reread = parseCatalog(caliper::test::readText(std::string(CALIPER_DATA_DIR) + "/gpus.json"),
                                        caliper::test::readText(std::string(CALIPER_DATA_DIR) + "/models.json"));
    for (std::size_t i = requests.size(); i-- > 0;) {
        INFO(requests[i]);
        CHECK(estimateJson(projectCatalog(), requests[i]).json == forward[i]);
        CHECK(estimateJson(reread, requests[i]).json == forward[i]);
    }
}
