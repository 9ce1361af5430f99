// KV cache of MiMo-V2-Flash in the memory model: sliding layers with 8 KV
// heads and a 128-token window beside full layers with 4, keys 192 and values
// 128 wide (transformers MiMoV2FlashConfig; hub swa_num_key_value_heads).
#include <catch2/catch.hpp>

#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;

TEST_CASE("MiMo-V2-Flash KV cache: full layers whole, sliding layers their window", "[memory][kv][mimo]") {
    Scenario s = serving("mimo-v2-flash", "h200-sxm-141gb", Engine::Transformers);
    s.batch = 1;
    s.promptTokens = 8192;
    s.outputTokens = 0;
    const MemoryEstimate m = estimateMemory(s, makePlan(s, 1));
    // Per token over all layers: (9 x 4 + 39 x 8) x (192 + 128) x 2 B.
    CHECK(termValue(m, "kv_bytes_per_token") == Approx(222720));
    // transformers keeps exact lengths: 9 full layers x 8,192 tokens x 4 x 320 x
    // 2 B + 39 sliding layers x 128 tokens x 8 x 320 x 2 B, on one GPU.
    const double bytes = 9.0 * 8192 * 4 * 320 * 2 + 39.0 * 128 * 8 * 320 * 2;
    CHECK(m.memory.kvCacheGiB * 1073741824.0 == Approx(bytes).epsilon(1e-9));
}
