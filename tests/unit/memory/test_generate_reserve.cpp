// transformers' generate(): the caching allocator keeps blocks of the
// prefill's transients that later, larger requests cannot reuse, so
// max_memory_reserved sits above the allocated peak (memory/overhead.cpp).
#include <catch2/catch.hpp>

#include "calibration/calibration.hpp"
#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;

TEST_CASE("generate() keeps a share of the prefill's transients reserved", "[memory][transformers][allocator]") {
    // At the prior (scale 1) the reserve is half the activations term: Llama
    // 3.1 8B, 32 x 4,096 prompt tokens in one pass x 110,592 B of per-layer
    // transients (3 x 4,096 residual + 3 x 14,336 MLP, bf16) + the last
    // position's logits (32 x 128,256 x 6 B).
    const CalibrationTable priors;
    const ScopedCalibration usePriors(&priors);
    const Scenario s = generateRun("llama-3.1-8b", "h200-sxm-141gb", 32, 4096, 64);
    const MemoryEstimate m = estimateMemory(s, makePlan(s, 1), true);
    const double activations = 131072.0 * 110592 + 32.0 * 128256 * 6;
    CHECK(m.memory.activationsGiB == Approx(bytesToGiB(activations)));
    CHECK(termValue(m, "generate_transient_reserve_gib") == Approx(0.5 * bytesToGiB(activations)));
    // It is part of the allocator's reserve: max_memory_allocated leaves it
    // out (the tensors alone), max_memory_reserved counts it.
    CHECK(m.memory.overheadParts.allocatorReserveGiB == Approx(0.5 * bytesToGiB(activations)));
    CHECK(allocatedGiB(m.memory) ==
          Approx(m.memory.weightsGiB + m.memory.kvCacheGiB + m.memory.activationsGiB).epsilon(1e-6));
    CHECK(reservedGiB(m.memory) - allocatedGiB(m.memory) == Approx(0.5 * bytesToGiB(activations)).epsilon(1e-6));

    // vLLM allocates its pool and profiles its activations once: no such term.
    const Scenario vllm = generateRun("llama-3.1-8b", "h200-sxm-141gb", 32, 4096, 64, Engine::Vllm);
    const MemoryEstimate v = estimateMemory(vllm, makePlan(vllm, 1), true);
    for (const ExplainTerm& t : v.explain) CHECK(t.term != "generate_transient_reserve_gib");
}

TEST_CASE("generate()'s reserve follows its calibrated scale", "[memory][transformers][allocator][calibration]") {
    // One constant scales it (tools/calibrate fits it by engine and format on
    // the generate() rows that count max_memory_reserved): doubling the scale
    // doubles the term.
    const Scenario s = generateRun("qwen3-14b", "h200-sxm-141gb", 8, 2048, 128);
    CalibrationTable priors;
    double atPrior = 0;
    {
        const ScopedCalibration use(&priors);
        atPrior = termValue(estimateMemory(s, makePlan(s, 1), true), "generate_transient_reserve_gib");
    }
    REQUIRE(atPrior > 0);
    CalibrationTable doubled;
    doubled.scale[std::size_t(CalibrationTable::index(CalibratedConstant::GenerateTransientReserve, EngineClass::Eager,
                                                      FormatClass::Bits16, GpuGroup::NvidiaHbmHopper))] = 2;
    const ScopedCalibration use(&doubled);
    CHECK(termValue(estimateMemory(s, makePlan(s, 1), true), "generate_transient_reserve_gib") == Approx(2 * atPrior));
}

TEST_CASE("generate()'s reserve never turns a fitting run into an OOM", "[memory][transformers][allocator]") {
    // The reserve is cached, unused blocks: the allocator frees them and
    // retries before an allocation fails (CUDACachingAllocator's
    // release_cached_blocks), so it stops at the memory left free. Llama 3.1
    // 8B on an RTX 4090 with ever longer batches of 4,096-token prompts: the
    // verdict is the allocated tensors' and the context's alone.
    for (std::int64_t batch = 1; batch <= 16; ++batch) {
        const Scenario s = generateRun("llama-3.1-8b", "rtx-4090", batch, 4096, 64);
        const MemoryBreakdown m = memoryOn(s, 1);
        INFO("batch " << batch);
        const double needed = allocatedGiB(m) + m.overheadParts.cudaContextGiB;
        CHECK(fitsMemory(s, m) == (needed <= usableMemoryGiB(s) + 1e-9));
        CHECK(m.totalGiB <= std::max(needed, usableMemoryGiB(s)) + 1e-9);
    }
}
