// The figures the matrix holds for a whole model row or GPU column
// (model/model_memo.hpp, HeldGpuRates in speed/efficiency.hpp) serve only
// the very object they were held for: a copy that differs, or a scope that
// ended, gets its own figures worked out afresh.
#include <catch2/catch.hpp>

#include "caliper/catalog.hpp"
#include "catalog_fixture.hpp"
#include "model/model_memo.hpp"
#include "speed/efficiency.hpp"

using namespace caliper;
using namespace caliper::test;

TEST_CASE("held model figures serve the held object only") {
    const ModelSpec small = *findModel(projectCatalog(), "llama-3.1-8b");
    const ModelSpec large = *findModel(projectCatalog(), "llama-3.1-70b");
    const double smallTotal = countParams(small).total;
    const double largeTotal = countParams(large).total;
    REQUIRE(smallTotal != largeTotal);
    const ModelFigures figures = modelFigures(small);
    ModelSpec held = small;
    {
        const HeldModelFigures scope(held, figures);
        CHECK(countParams(held).total == smallTotal);
        CHECK(heldFigures(held) == &figures);
        CHECK(countParams(large).total == largeTotal);  // another object: its own count
        CHECK(heldFigures(large) == nullptr);
    }
    CHECK(heldFigures(held) == nullptr);  // the scope ended
    held = large;
    CHECK(countParams(held).total == largeTotal);
}

TEST_CASE("held GPU rates serve the held object only and nest") {
    const GpuSpec h100 = *findGpu(projectCatalog(), "h100-sxm5-80gb");
    const GpuSpec rtx = *findGpu(projectCatalog(), "rtx-4090");
    const double h100Fraction = decodeBandwidthFraction(Engine::Vllm, WeightFormat::Bf16, h100);
    const double rtxFraction = decodeBandwidthFraction(Engine::Vllm, WeightFormat::Bf16, rtx);
    const double h100Peak = matmulPeak(Engine::Vllm, WeightFormat::Fp8, h100).tflops;
    const double rtxPeak = matmulPeak(Engine::Vllm, WeightFormat::Fp8, rtx).tflops;
    REQUIRE(h100Peak != rtxPeak);
    GpuSpec column = h100;
    {
        const HeldGpuRates outer(column);
        CHECK(decodeBandwidthFraction(Engine::Vllm, WeightFormat::Bf16, column) == h100Fraction);
        CHECK(matmulPeak(Engine::Vllm, WeightFormat::Fp8, column).tflops == h100Peak);
        CHECK(matmulPeak(Engine::Vllm, WeightFormat::Fp8, rtx).tflops == rtxPeak);  // another object
        {
            const HeldGpuRates inner(rtx);
            CHECK(decodeBandwidthFraction(Engine::Vllm, WeightFormat::Bf16, rtx) == rtxFraction);
        }
        CHECK(decodeBandwidthFraction(Engine::Vllm, WeightFormat::Bf16, column) == h100Fraction);
    }
    column = rtx;  // the column's object now holds another GPU, with no scope
    CHECK(matmulPeak(Engine::Vllm, WeightFormat::Fp8, column).tflops == rtxPeak);
}
