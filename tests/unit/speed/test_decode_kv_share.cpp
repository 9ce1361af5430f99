// Decode's KV read per GPU: each tensor-parallel rank reads its share of the
// KV heads, replicated once the ranks outnumber them, and MLA's latent whole.
#include <catch2/catch.hpp>

#include "caliper/plan/estimate.hpp"
#include "plan/workload.hpp"
#include "property_scenarios.hpp"
#include "speed/efficiency.hpp"
#include "speed/speed_parts.hpp"

using namespace caliper;
using caliper::test::accepted;
using caliper::test::PropertyJson;

TEST_CASE("decode: KV heads replicated past the tensor-parallel ranks are read on every rank", "[speed][decode]") {
    // Llama-3.1-70B (8 KV heads, 80 layers, head dim 128) on TensorRT-LLM
    // (the decode path, not the serving step model) at tp 16, one sequence.
    const PropertyJson request = {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm5-80gb"}, {"engine", "tensorrt-llm"},
                                  {"gpu_count", 16},          {"prompt_tokens", 1024},  {"output_tokens", 256},
                                  {"batch", 1},               {"kv_cache", "bf16"},     {"parallel", {{"tp", 16}}}};
    const std::optional<Scenario> s = accepted(request);
    REQUIRE(s);
    const EstimateResult r = estimate(*s, EstimateDetail{false, false, false});
    REQUIRE(r.plan.tp == 16);
    REQUIRE(r.plan.pp == 1);
    const Workload work = makeWorkload(*s);
    const ServingLayout layout = servingLayout(*s, r.plan);
    const EngineRates engine = engineRates(s->engine, s->weights, s->gpu);
    // 16 ranks over 8 KV heads: each rank keeps ceil(8/16) = 1 head of 8.
    const KvRankShare share = kvRankShare(s->model, 16);
    CHECK(share.full == 0.125);
    CHECK(share.sliding == 0.125);
    // Per rank, one token's KV over the 80 layers: 1 head x 128 x 2 (K, V)
    // x 2 B = 512 B a layer, 40,960 B in all (the whole model's 327,680 B
    // over 16 would be 20,480 B: half a head a rank, which no rank holds).
    const double perTokenOnRankB = 80.0 * 1 * 128 * 2 * 2;
    // Batch 1 of a 70B model is bound by its reads at both contexts, so a
    // step 1,024 tokens later costs those tokens' KV at the achieved rate.
    const double bandwidthBytesPerS = engine.bandwidthFraction * s->gpu.bandwidthGBps * 1e9;
    const double extraS = decodeStepS(*s, engine, layout, work, 2048) - decodeStepS(*s, engine, layout, work, 1024);
    CHECK(extraS == Approx(1024 * perTokenOnRankB / bandwidthBytesPerS).epsilon(1e-9));

    // MLA keeps its latent whole on every rank: DeepSeek-V3 at tp 8 reads
    // all of it on each (vLLM MLAAttentionSpec, one KV head).
    const PropertyJson mla = {{"model", "deepseek-v3"}, {"gpu", "h200-sxm-141gb"}, {"engine", "tensorrt-llm"},
                              {"gpu_count", 8},         {"prompt_tokens", 1024},  {"output_tokens", 256},
                              {"batch", 1},             {"parallel", {{"tp", 8}}}};
    const std::optional<Scenario> d = accepted(mla);
    REQUIRE(d);
    const KvRankShare latent = kvRankShare(d->model, 8);
    CHECK(latent.full == 1.0);
    CHECK(latent.sliding == 1.0);
}
