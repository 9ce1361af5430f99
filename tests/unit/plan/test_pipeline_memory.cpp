// Pipeline-parallel training memory: the micro-batches a step runs bound
// those in flight, and FSDP without resharding after forward keeps the
// stage's 16-bit parameters gathered (Llama 3 405B's 4D parallelism).
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "caliper/api.hpp"
#include "catalog_fixture.hpp"

using caliper::test::projectCatalog;
using Json = nlohmann::json;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Json answer(const Json& request, int expectedStatus = 0) {
    const caliper::ApiResponse response = caliper::estimateJson(projectCatalog(), request.dump());
    INFO(request.dump() << " -> " << response.json.substr(0, 1500));
    REQUIRE(response.status == expectedStatus);
    return Json::parse(response.json);
}

// Llama 3 70B pre-training at TP 8 x PP 4 on 32 H100s (one replica), 8,192
// tokens a micro-batch, nothing recomputed.
Json pipeline70b(int globalBatch, int vp) {
    return {{"model", "llama-3-70b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"}, {"engine", "megatron"},
            {"gpu_count", 32}, {"seq_len", 8192}, {"batch", 1}, {"global_batch", globalBatch},
            {"gradient_checkpointing", false}, {"parallel", {{"tp", 8}, {"pp", 4}, {"vp", vp}}}};
}

// Llama 3 405B as Table 4 of arXiv 2407.21783 lays it out on 16,384 H100s:
// TP 8, CP 1, PP 16, DP 128, 8,192-token sequences, 16M tokens a step
// (2,048 sequences), FSDP that does not reshard after forward (section 3.3.2).
Json llama3Pretrain405b() {
    return {{"model", "llama-3.1-405b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"}, {"engine", "megatron"},
            {"gpu_count", 16384}, {"seq_len", 8192}, {"batch", 1}, {"global_batch", 2048},
            {"weights", "bf16"}, {"gradient_checkpointing", false},
            {"parallel", {{"tp", 8}, {"pp", 16}, {"cp", 1}, {"strategy", "fsdp"}, {"reshard_after_forward", false}}}};
}

// The result prints figures to 6 significant digits: ratios hold to 1e-5.
double gib(const Json& r, const char* term) { return r["memory"][term].get<double>(); }
constexpr double kPrinted = 1e-5;

}  // namespace

TEST_CASE("a pipeline's first stage holds no more micro-batches than a step runs", "[pipeline-memory]") {
    // 1F1B: the first of p stages warms up p micro-batches, but a step of m < p
    // runs only m (Megatron schedules.py: min(p - rank - 1, m) warm-up
    // micro-batches; theoretical_memory_usage.py: x min(1, m / p)). The first
    // stage has no logits (pp > 1), so its activations scale with the count:
    // m = global batch 2 / (micro-batch 1 x dp 1) = 2 of p = 4 halves them.
    const double full = gib(answer(pipeline70b(64, 1)), "activations_gib");
    const double two = gib(answer(pipeline70b(2, 1)), "activations_gib");
    CHECK(two == Approx(full * 2.0 / 4.0).epsilon(kPrinted));
    // Interleaved with v = 2: p (1 + (p - 1)/(p v)) = 4 x 11/8 = 5.5 micro-batches'
    // worth, unless the step runs fewer: m = 4 holds 4 (every forward first).
    const double interleaved = gib(answer(pipeline70b(64, 2)), "activations_gib");
    CHECK(interleaved == Approx(full * 5.5 / 4.0).epsilon(kPrinted));
    const double capped = gib(answer(pipeline70b(4, 2)), "activations_gib");
    CHECK(capped == Approx(full).epsilon(kPrinted));
}

TEST_CASE("Llama 3 405B fits 16,384 H100s in its published layout", "[pipeline-memory]") {
    // Stage 0 of 16 holds ceil(126 / 16) = 8 layers and the embedding, over TP 8:
    // a layer has 16384 x (16384 + 2 x 1024 + 16384) attention + 3 x 16384 x 53248
    // MLP + 2 x 16384 norm parameters = 3,187,703,808; the embedding 128,256 x
    // 16,384. P = (8 x 3,187,703,808 + 2,101,346,304) / 8 = 3.45037e9.
    const double layer = 16384.0 * (16384 + 2 * 1024 + 16384) + 3.0 * 16384 * 53248 + 2.0 * 16384;
    const double p = (8 * layer + 128256.0 * 16384) / 8;
    const int shards = 16384 / (8 * 16);  // FSDP over dp 128 x cp 1
    const Json r = answer(llama3Pretrain405b());
    CHECK(r["plan"]["dp"] == 128);
    CHECK(r["plan"]["strategy"] == "fsdp");
    // Weights: the 16-bit stage stays gathered (2 P) beside its fp32 shard (4 P / 128).
    CHECK(gib(r, "weights_gib") == Approx((2 * p + 4 * p / shards) / kGiB).epsilon(1e-3));
    // Gradients: the fp32 shard (4 P / 128) and one layer's 16-bit gradients
    // before its reduce-scatter (2 x 3,187,703,808 / 8).
    CHECK(gib(r, "gradients_gib") == Approx((4 * p / shards + 2 * layer / 8) / kGiB).epsilon(1e-3));
    // AdamW moments, sharded: 8 P / 128.
    CHECK(gib(r, "optimizer_gib") == Approx(8 * p / shards / kGiB).epsilon(1e-3));
    // Activations: m = 2,048 / 128 = 16 = p micro-batches in flight (the
    // interleaved schedule runs every forward first when m = p), each 8 layers of
    // s b h (12 + 4 x 8/128) + 6 s b f bytes over TP 8 with s = 8,192, b = 1,
    // h = 16,384, f = 53,248 (FlashAttention, fused SwiGLU, sequence parallel):
    // 16 x 8 x 8,192 x 520,192 / 8 = 63.5 GiB.
    const double perLayer = 8192.0 * (16384 * (12 + 4 * 8.0 / 128) + 6.0 * 53248) / 8;
    CHECK(gib(r, "activations_gib") == Approx(16 * 8 * perLayer / kGiB).epsilon(1e-3));
    CHECK(r["fits"] == true);
}

TEST_CASE("resharding after forward is an FSDP choice", "[pipeline-memory]") {
    Json r = llama3Pretrain405b();
    r["parallel"]["strategy"] = "zero2";
    const Json e = answer(r, 2);
    CHECK(e["error"]["code"] == "incompatible_options");
    CHECK(e["error"]["path"] == "/parallel/reshard_after_forward");
    // Resharding after forward (the default) frees the gathered stage: two
    // live layers instead (kFsdpLiveUnits), 2 x 2 x 3,187,703,808 / 8 bytes.
    Json full = llama3Pretrain405b();
    full["parallel"].erase("reshard_after_forward");
    const double layer = 16384.0 * (16384 + 2 * 1024 + 16384) + 3.0 * 16384 * 53248 + 2.0 * 16384;
    const double p = (8 * layer + 128256.0 * 16384) / 8;
    CHECK(gib(answer(full), "weights_gib") == Approx((4 * p / 128 + 2 * 2 * layer / 8) / kGiB).epsilon(1e-3));
}
