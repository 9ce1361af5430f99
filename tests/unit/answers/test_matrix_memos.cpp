// The rates the matrix holds for a whole GPU column (HeldGpuRates in
// speed/efficiency.hpp) serve only the very object they were held for:
// another object, or one after the scope ended, gets its own worked out.
#include <catch2/catch.hpp>

#include "caliper/catalog.hpp"
#include "catalog_fixture.hpp"
#include "speed/efficiency.hpp"

using namespace caliper;
using namespace caliper::test;

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
