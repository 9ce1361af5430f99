// llama.cpp picks a k-quant type for each layer's tensor first (the mixes of
// llama_tensor_get_type_impl), then falls back to a 32-weight type where the
// tensor's rows do not divide into 256-weight blocks (tensor_type_fallback):
// the fallback applies to each layer's type before the layers are counted.
#include <catch2/catch.hpp>

#include "memory/sizing.hpp"
#include "model/ggml_types.hpp"
#include "model/gguf_mix.hpp"
#include "catalog_fixture.hpp"

using namespace caliper;
using caliper::test::catalogModel;

TEST_CASE("GGUF k-quant mixes fall back layer by layer on rows that are not 256-aligned", "[formats][gguf]") {
    // Nemotron 3 Super: 88 layers, routed experts of 672 (ffn_down rows of
    // 672 weights: not a multiple of 256), hidden 4096 (aligned).
    const ModelSpec model = catalogModel("nemotron-3-super-120b-a12b");
    const sizing::ModelShape shape = sizing::modelShape(model, countParams(model));
    REQUIRE(shape.layers == 88);
    REQUIRE(static_cast<long>(shape.expertFfn) % 256 != 0);

    // Q4_K_S: ffn_down in Q5_K for the first n/8 = 11 layers, Q4_K after;
    // on 672-weight rows those are Q5_1 (6.0 bits) and Q5_0 (5.5 bits).
    const double q4ks = 11.0 / 88 * kGgmlQ5_1Bits + 77.0 / 88 * kGgmlQ5_0Bits;
    CHECK(sizing::ggufBits(WeightFormat::Q4_K_S, model, shape).down == Approx(q4ks));
    // Q3_K_L: ffn_down in Q5_K in every layer -> Q5_1.
    CHECK(sizing::ggufBits(WeightFormat::Q3_K_L, model, shape).down == Approx(kGgmlQ5_1Bits));
    // Up projections (rows of hidden 4096) keep their k-quant types.
    CHECK(sizing::ggufBits(WeightFormat::Q4_K_S, model, shape).up == Approx(kGgmlQ4_KBits));
    CHECK(sizing::ggufBits(WeightFormat::Q3_K_L, model, shape).up == Approx(kGgmlQ3_KBits));

    // An aligned model keeps the mix itself: Llama 3.1 8B (32 layers, ffn
    // 14,336 = 56 x 256) -> 4 layers of Q5_K, 28 of Q4_K.
    const ModelSpec llama = catalogModel("llama-3.1-8b");
    const sizing::ModelShape llamaShape = sizing::modelShape(llama, countParams(llama));
    CHECK(sizing::ggufBits(WeightFormat::Q4_K_S, llama, llamaShape).down ==
          Approx(4.0 / 32 * kGgmlQ5_KBits + 28.0 / 32 * kGgmlQ4_KBits));
}
