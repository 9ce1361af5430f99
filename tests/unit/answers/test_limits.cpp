// The inverse questions: longest context, largest batch, best weight format.
#include <catch2/catch.hpp>

#include <algorithm>

#include "caliper/answers/limits.hpp"
#include "caliper/plan/estimate.hpp"
#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;

TEST_CASE("longest context fits and one more token does not", "[limits]") {
    // transformers keeps exact token counts, so the boundary is one token wide.
    Scenario s = serving("llama-3.1-8b", "rtx-4090", Engine::Transformers);
    s.outputTokens = 256;
    const ContextLimit limit = longestContext(s);
    REQUIRE(limit.fits);
    REQUIRE_FALSE(limit.cappedByModel);
    CHECK(fitsMemory(s, limit.memory));
    Scenario next = s;
    next.promptTokens = limit.tokens - s.outputTokens + 1;
    CHECK_FALSE(fitsMemory(next, memoryOn(next, 1)));
    Scenario at = s;
    at.promptTokens = limit.tokens - s.outputTokens;
    CHECK(memoryOn(at, 1).totalGiB == Approx(limit.memory.totalGiB));
}

TEST_CASE("longest context stops at the model's max_context", "[limits]") {
    Scenario s = serving("qwen2.5-0.5b", "h200-sxm-141gb", Engine::Vllm);
    const ContextLimit limit = longestContext(s);
    REQUIRE(limit.fits);
    CHECK(limit.cappedByModel);
    CHECK(limit.tokens == s.model.maxContext);
}

TEST_CASE("longest training sequence grows with checkpointing", "[limits]") {
    Scenario s = finetuning("llama-3.1-8b", "a100-sxm4-80gb", Method::Lora);
    const ContextLimit plain = longestContext(s);
    s.gradientCheckpointing = true;
    const ContextLimit checkpointed = longestContext(s);
    REQUIRE(plain.fits);
    REQUIRE(checkpointed.fits);
    CHECK(checkpointed.tokens > plain.tokens);
}

TEST_CASE("largest batch is the one the pool holds at once; the next queues", "[limits]") {
    Scenario s = generateRun("llama-3.1-8b", "h100-sxm5-80gb", 1, 4096, 1024, Engine::Vllm);
    const BatchLimit limit = largestBatch(s);
    REQUIRE(limit.fits);
    CHECK(fitsMemory(s, limit.memory));
    REQUIRE(limit.memory.kvPoolGib);
    CHECK(limit.memory.kvCacheGiB < *limit.memory.kvPoolGib);
    // One more request's KV exceeds the pool: vLLM still starts (the pool
    // holds one request) and runs what it holds, the pool full, the other
    // waiting (memory.cpp admitByBlocks).
    Scenario next = s;
    next.batch = limit.batch + 1;
    const MemoryBreakdown queued = memoryOn(next, 1);
    CHECK(fitsMemory(next, queued));
    REQUIRE(queued.kvPoolGib);
    CHECK(queued.kvCacheGiB == Approx(*queued.kvPoolGib));
    // KV per sequence 5120 tokens x 128 KiB = 0.625 GiB; the pool after
    // weights is ~54 GiB, so the batch is in the eighties.
    CHECK(limit.batch > 70);
    CHECK(limit.batch < 95);
}

TEST_CASE("no batch fits when the weights alone do not", "[limits]") {
    Scenario s = serving("llama-3.1-70b", "rtx-4090", Engine::Vllm);
    CHECK_FALSE(largestBatch(s).fits);
    CHECK_FALSE(longestContext(s).fits);
}

TEST_CASE("best weight format: highest quality that fits", "[limits]") {
    // 8B in bf16 (16 GB) fits an H100 as is.
    Scenario big = serving("llama-3.1-8b", "h100-sxm5-80gb", Engine::Vllm);
    const FormatChoice asIs = bestWeightFormat(big);
    REQUIRE(asIs.found);
    CHECK(asIs.format == WeightFormat::Bf16);

    // 70B on two RTX 4090 with llama.cpp: every format above the choice is too big.
    Scenario s = serving("llama-3.1-70b", "rtx-4090", Engine::LlamaCpp);
    s.gpuCount = 2;
    const FormatChoice choice = bestWeightFormat(s);
    REQUIRE(choice.found);
    CHECK(fitsMemory(s, choice.memory));
    const auto at = std::find(choice.tried.begin(), choice.tried.end(), choice.format);
    REQUIRE(at != choice.tried.end());
    for (auto it = choice.tried.begin(); it != at; ++it) {
        Scenario better = s;
        better.weights = *it;
        INFO(toString(*it));
        CHECK_FALSE(fitsMemory(better, memoryOn(better, 2)));
    }
}

TEST_CASE("format ladder respects the engine and the GPU", "[limits]") {
    Scenario llama = serving("llama-3.1-8b", "rtx-4090", Engine::LlamaCpp);
    for (WeightFormat f : weightFormatLadder(llama)) {
        CHECK((f == WeightFormat::Bf16 || f >= WeightFormat::Q8_0));  // GGUF types or F16/BF16 files
    }
    Scenario vllm = serving("llama-3.1-8b", "a100-sxm4-80gb", Engine::Vllm);
    const auto ladder = weightFormatLadder(vllm);
    CHECK(std::find(ladder.begin(), ladder.end(), WeightFormat::Fp8) == ladder.end());  // A100: no FP8
    CHECK(std::find(ladder.begin(), ladder.end(), WeightFormat::AwqInt4) != ladder.end());
    CHECK(std::none_of(ladder.begin(), ladder.end(), [](WeightFormat f) { return f >= WeightFormat::Q8_0; }));
    vllm.gpu = catalogGpu("h100-sxm5-80gb");
    const auto hopper = weightFormatLadder(vllm);
    CHECK(hopper[1] == WeightFormat::Fp8);
}

TEST_CASE("limits with -ngl offload agree with the estimate that fits", "[limits][offload]") {
    // Llama-3.1-70B Q4_K_M (~40 GiB) on a 24 GB card: the estimate keeps about
    // half the layers on the GPU and fits; limits answered that no context,
    // batch or format fits because its probes kept every layer on the GPU.
    Scenario s = serving("llama-3.1-70b", "rtx-4090", Engine::LlamaCpp);
    s.weights = WeightFormat::Q4_K_M;
    s.weightsExplicit = true;
    s.promptTokens = 512;
    s.outputTokens = 128;
    s.parallel.offload = Offload::Layers;
    s.host.ramGib = 64;  // a desktop's RAM, stated: the host's RAM bounds the CPU layers
    s.host.ramExplicit = true;
    s.host.explicitAny = true;
    REQUIRE(estimate(s, EstimateDetail{false, false, false, false}).fits);
    const ContextLimit context = longestContext(s);
    REQUIRE(context.fits);
    CHECK(context.tokens >= 640);
    const BatchLimit batch = largestBatch(s);
    REQUIRE(batch.fits);
    CHECK(batch.batch >= 1);
    CHECK_FALSE(batch.capped);  // the CPU layers' KV in 64 GiB of RAM bounds it
}

TEST_CASE("limits judge a training scenario as its estimate does", "[limits][planner]") {
    // LoRA of Llama-3.1-8B on one RTX 4090 with gradient checkpointing left
    // "auto" (the training default): the estimate turns checkpointing on
    // where it is needed, so the longest sequence that fits is the one the
    // estimate fits with checkpointing, and one token more does not.
    // Checkpointing keeps each layer's input only (2 s h bytes, CONTRACT
    // gradient_checkpointing) instead of its whole working set, so the limit
    // is longer than with checkpointing fixed off.
    Scenario s = finetuning("llama-3.1-8b", "rtx-4090", Method::Lora);
    s.gradientCheckpointingAuto = true;
    const ContextLimit limit = longestContext(s);
    REQUIRE(limit.fits);
    Scenario at = s;
    at.seqLen = limit.tokens;
    CHECK(estimate(at, EstimateDetail{false, false, false, false}).fits);
    Scenario next = s;
    next.seqLen = limit.tokens + 1;
    CHECK_FALSE(estimate(next, EstimateDetail{false, false, false, false}).fits);
    Scenario off = s;
    off.gradientCheckpointingAuto = false;
    off.gradientCheckpointing = false;
    const ContextLimit plain = longestContext(off);
    REQUIRE(plain.fits);
    CHECK(limit.tokens > plain.tokens);
}

TEST_CASE("limits weigh the host RAM a stated machine has", "[limits][offload]") {
    // Full fine-tuning of Llama-3.1-8B (8.03B parameters) under ZeRO-3 with
    // the optimizer offloaded keeps 16 bytes per parameter x 1.5 in host RAM
    // (DeepSpeed's estimate_zero3_model_states_mem_needs, cpu_offload without
    // offload_params): 193 GB = 179 GiB, above a stated 64 GiB. No sequence
    // length changes that, so no context or batch fits (a shorter context
    // was offered as a fix that, applied, still did not fit).
    Scenario s = finetuning("llama-3.1-8b", "rtx-2080-ti-22gb", Method::Full);
    s.gpuCount = 4;
    s.parallel.strategy = Strategy::Zero3;
    s.parallel.offload = Offload::Optimizer;
    s.host.ramGib = 64;
    s.host.ramExplicit = true;
    s.host.explicitAny = true;
    s.gradientCheckpointing = true;
    REQUIRE_FALSE(estimate(s, EstimateDetail{false, false, false, false}).fits);
    CHECK_FALSE(longestContext(s).fits);
    CHECK_FALSE(largestBatch(s).fits);
    // With 256 GiB of RAM the same job fits at 2048 tokens.
    s.host.ramGib = 256;
    CHECK(estimate(s, EstimateDetail{false, false, false, false}).fits);
    CHECK(longestContext(s).fits);
}

TEST_CASE("the largest batch stays within the request's own range", "[limits]") {
    // Qwen2.5-0.5B on a B300 under vLLM, one-token requests: each sequence
    // holds one 16-token KV block of 24 layers x 2 x 2 KV heads x 64 x 2 bytes
    // (config.json) = 12 KiB a token, 192 KiB a sequence, so a million
    // sequences take 183 GiB, within the B300's ~255 GiB pool. The memory
    // allows more sequences than a request may state (batch at most
    // 1,000,000, request_limits.hpp): the answer stops there, capped, so it
    // can be sent back as a request (it said 1,048,576).
    Scenario s = generateRun("qwen2.5-0.5b", "b300", 1, 1, 0, Engine::Vllm);
    const BatchLimit limit = largestBatch(s);
    REQUIRE(limit.fits);
    CHECK(limit.capped);
    CHECK(limit.batch == 1000000);
}
