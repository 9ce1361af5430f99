// transformers' DynamicCache after a long prefill: sliding-window layers keep
// the whole prompt behind their window view until their next update.
#include <catch2/catch.hpp>

#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;

TEST_CASE("transformers' sliding layers hold the whole prompt at the end of the prefill", "[memory][kv]") {
    // Gemma 3 27B: 62 layers, 52 of them sliding (1,024-token window), 16 KV
    // heads of 128: K and V are 2 x 16 x 128 x 2 B = 8,192 B per token and
    // layer. One 32,768-token prompt, 32 new tokens. DynamicSlidingWindowLayer.
    // update (transformers 5.x cache_utils.py) stores
    // `full_key_states[:, :, -sliding_window + 1:, :]`, a view that keeps the
    // torch.cat of the prompt's states allocated: 52 x 32,768 tokens, beside
    // 10 full layers x 32,800.
    Scenario s = generateRun("gemma-3-27b", "h200-sxm-141gb", 1, 32768, 32);
    const double bytes = (10.0 * 32800 + 52.0 * 32768) * 8192;
    CHECK(estimateMemory(s, makePlan(s, 1)).memory.kvCacheGiB * 1073741824.0 == Approx(bytes).epsilon(1e-9));
    // A prompt shorter than the window: the window (prompt + output) bounds it.
    s.promptTokens = 512;
    s.outputTokens = 128;
    CHECK(estimateMemory(s, makePlan(s, 1)).memory.kvCacheGiB * 1073741824.0 == Approx(62.0 * 640 * 8192).epsilon(1e-9));
    // vLLM's paged cache gives a sliding layer its window only.
    s = generateRun("gemma-3-27b", "h200-sxm-141gb", 1, 32768, 32, Engine::Vllm);
    const double vllm = estimateMemory(s, makePlan(s, 1)).memory.kvCacheGiB * 1073741824.0;
    CHECK(vllm < (10.0 * 32800 + 52.0 * 2048) * 8192);
}
