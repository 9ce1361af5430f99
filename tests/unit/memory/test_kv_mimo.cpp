// KV cache of MiMo-V2-Flash in the memory model: sliding layers with 8 KV
// heads and a 128-token window beside full layers with 4, keys 192 and values
// 128 wide (transformers MiMoV2FlashConfig; hub swa_num_key_value_heads).
#include <catch2/catch.hpp>

#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;

TEST_CASE("MiMo-V2-Flash KV cache: full layers whole, sliding layers their window", "[memory][kv][mimo]") {
    Scenario s = generateRun("mimo-v2-flash", "h200-sxm-141gb", 1, 8192, 0);
    const MemoryEstimate m = estimateMemory(s, makePlan(s, 1));
    // Per token over all layers: (9 x 4 + 39 x 8) x (192 + 128) x 2 B.
    CHECK(termValue(m, "kv_bytes_per_token") == Approx(222720));
    // transformers keeps exact lengths: 9 full layers x 8,192 tokens x 4 x 320 x
    // 2 B, on one GPU; its sliding layers still hold the whole 8,192-token
    // prompt at the end of the prefill (DynamicSlidingWindowLayer keeps a view
    // of the full states): 39 x 8,192 x 8 x 320 x 2 B.
    const double bytes = 9.0 * 8192 * 4 * 320 * 2 + 39.0 * 8192 * 8 * 320 * 2;
    CHECK(m.memory.kvCacheGiB * 1073741824.0 == Approx(bytes).epsilon(1e-9));
}

TEST_CASE("MiMo-V2-Flash KV per GPU: each kind of layer split by its own KV heads", "[memory][kv][mimo][tp]") {
    Scenario s = generateRun("mimo-v2-flash", "h200-sxm-141gb", 1, 8192, 0, Engine::Sglang);
    // SGLang keeps exact lengths (page size 1). Per rank a full layer keeps
    // ceil(4 / tp) of its 4 KV heads, a sliding one ceil(8 / tp) of its 8
    // (vLLM and SGLang replicate KV heads once tp exceeds them), each head
    // (192 + 128) x 2 B per token.
    const auto perGpu = [](int tp) {
        const double fullHeads = (4 + tp - 1) / tp;
        const double slidingHeads = (8 + tp - 1) / tp;
        return 9.0 * 8192 * fullHeads * 320 * 2 + 39.0 * 128 * slidingHeads * 320 * 2;
    };
    for (int tp : {2, 4, 8, 16}) {
        Plan p;
        p.strategy = Strategy::Tensor;
        p.gpuCount = tp;
        p.tp = tp;
        const MemoryEstimate m = estimateMemory(s, p);
        INFO("tp " << tp);
        CHECK(m.memory.kvCacheGiB * 1073741824.0 == Approx(perGpu(tp)).epsilon(1e-9));
    }
    // At tp 8: 9 x 8,192 x 1 x 640 + 39 x 128 x 1 x 640 B, where one share
    // for both kinds (the full layers' 1/4) gave the sliding layers 2 heads.
    CHECK(perGpu(8) == 9.0 * 8192 * 640 + 39.0 * 128 * 640);
}

TEST_CASE("Gemma 4 KV per GPU: global layers split by their own KV heads", "[memory][kv][gemma4][tp]") {
    // Gemma 4 31B: 50 sliding layers with 16 KV heads of 256 (K and V: 1,024 B
    // per head and token), 10 global layers with 4 of 512 (2,048 B). At tp 8 a
    // rank keeps 2 sliding heads and 1 global head (4 < 8: replicated).
    Scenario s = generateRun("gemma-4-31b", "h100-sxm5-80gb", 1, 8192, 0, Engine::Sglang);
    Plan p;
    p.strategy = Strategy::Tensor;
    p.gpuCount = 8;
    p.tp = 8;
    const MemoryEstimate m = estimateMemory(s, p);
    const double bytes = 50.0 * 1024 * 2 * 1024 + 10.0 * 8192 * 1 * 2048;
    CHECK(m.memory.kvCacheGiB * 1073741824.0 == Approx(bytes).epsilon(1e-9));
}
