// The serving step model's host time: engines with an overlap scheduler take
// the longer of the GPU's step and the host's, the others their sum; the
// host's share grows with the running requests.
#include <catch2/catch.hpp>

#include "caliper/plan/estimate.hpp"
#include "property_scenarios.hpp"
#include "serving/step_model.hpp"

using namespace caliper;
using caliper::test::accepted;
using caliper::test::PropertyJson;

namespace {

serving::StepModel modelOf(const std::string& engine) {
    // Llama-3.1-8B in bf16 on eight H100 SXM (tp 8): a small model over many
    // GPUs, where the host's share of a step shows first.
    const PropertyJson request = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"engine", engine},
                                  {"gpu_count", 8},          {"prompt_tokens", 1024},   {"output_tokens", 256},
                                  {"batch", 64},             {"parallel", {{"tp", 8}}}};
    const std::optional<Scenario> s = accepted(request);
    REQUIRE(s);
    const EstimateResult r = estimate(*s, EstimateDetail{false, false, false});
    REQUIRE(r.plan.tp == 8);
    return serving::stepModel(*s, r.plan);
}

// The GPU's part of a step: the same model without host time.
double gpuStepS(serving::StepModel m, double decodes, double context) {
    m.engine.stepOverheadS = 0;
    m.engine.perSequenceOverheadS = 0;
    return m.stepS(decodes, context, 0, 0);
}

}  // namespace

TEST_CASE("serving step: an overlap scheduler hides host time behind the GPU's step", "[serving][step]") {
    serving::StepModel m = modelOf("tensorrt-llm");
    REQUIRE(m.engine.hostOverlapsGpu);  // PyExecutor._executor_loop_overlap
    // Host time set by hand: 1 ms per step and 0.1 ms per running request.
    m.engine.stepOverheadS = 1e-3;
    m.engine.perSequenceOverheadS = 1e-4;
    const double context = 1152;  // 1024 prompt tokens + half of 256 output tokens
    // One request: 1 + 0.1 = 1.1 ms of host work; the GPU's step (8B split
    // over eight GPUs, 2 GB of weights each plus 32 layers of fixed time)
    // is longer, so the step is the GPU's alone.
    const double gpuOne = gpuStepS(m, 1, context);
    REQUIRE(gpuOne > 1.1e-3);
    CHECK(m.stepS(1, context, 0, 0) == Approx(gpuOne));
    // 256 requests: 1 + 256 x 0.1 = 26.6 ms of host work, more than the GPU
    // needs for them, so the step is the host's.
    const double gpuMany = gpuStepS(m, 256, context);
    REQUIRE(gpuMany < 26.6e-3);
    CHECK(m.stepS(256, context, 0, 0) == Approx(26.6e-3));
}

TEST_CASE("serving step: without overlap the host's time adds to the GPU's", "[serving][step]") {
    serving::StepModel m = modelOf("vllm");
    REQUIRE_FALSE(m.engine.hostOverlapsGpu);
    m.engine.stepOverheadS = 1e-3;
    m.engine.perSequenceOverheadS = 1e-4;
    const double context = 1152;
    // 64 requests: 1 + 64 x 0.1 = 7.4 ms of host work on top of the GPU's step.
    CHECK(m.stepS(64, context, 0, 0) == Approx(gpuStepS(m, 64, context) + 7.4e-3));
}

TEST_CASE("serving step: the calibrated host time per request stays inside its bounds", "[serving][step]") {
    // serving_per_sequence_overhead_s: prior 29 us (TensorRT-LLM pull 10273),
    // scale fitted within 1/4-4x, clamped to at most 1 ms per request.
    for (const char* engine : {"vllm", "sglang", "tensorrt-llm"}) {
        const serving::StepModel m = modelOf(engine);
        INFO(engine << ": " << m.engine.perSequenceOverheadS << " s per request per step");
        CHECK(m.engine.perSequenceOverheadS >= 29e-6 / 4 * (1 - 1e-9));
        CHECK(m.engine.perSequenceOverheadS <= 29e-6 * 4 * (1 + 1e-9));
    }
}

TEST_CASE("serving step: the running requests' KV reads add to a prompt's matmuls", "[serving][step]") {
    // The linear layers and attention are separate kernels, each bound by
    // its own roofline: a prompt's compute-bound matmuls do not hide the
    // running requests' KV reads, so a longer running context costs a mixed
    // step what it costs a decode-only step.
    serving::StepModel m = modelOf("tensorrt-llm");
    m.engine.stepOverheadS = 0;
    m.engine.perSequenceOverheadS = 0;
    const double decodes = 16, prompt = 2048;
    // 2,048 prompt tokens of Llama-3.1-8B over eight GPUs: their matmuls take
    // longer than reading the weights once, so the linear layers are compute-bound.
    REQUIRE(m.stepS(0, 0, prompt, prompt / 2) > 2 * m.stepS(1, 0, 0, 0));
    const double decodeOnly = m.stepS(decodes, 8192, 0, 0) - m.stepS(decodes, 1024, 0, 0);
    const double mixed = m.stepS(decodes, 8192, prompt, prompt / 2) - m.stepS(decodes, 1024, prompt, prompt / 2);
    REQUIRE(decodeOnly > 0);
    CHECK(mixed == Approx(decodeOnly).epsilon(1e-9));
}

TEST_CASE("serving step: llama.cpp's 2-bit K-quants unpack as the single-stream decode does", "[serving][step]") {
    // llama.cpp PR #4766: Llama-2-7B Q2_K decodes on an RTX 3090 in
    // 10.8-11.5 ms per token, slower than Q4_0 although smaller, because the
    // K-quant blocks unpack on the ALUs (efficiency.cpp dequantOpsPerWeight).
    // The serving figures at one user take the same step as the estimate's
    // decode, so the two agree; before, the serving step left the unpacking
    // out (DeepSeek-R1 Q2_K on an M3 Ultra: 33 tok/s served beside 12 decoded).
    const PropertyJson request = {{"model", "llama-2-7b"}, {"gpu", "rtx-3090"}, {"engine", "llama.cpp"},
                                  {"weights", "Q2_K"},     {"prompt_tokens", 0}, {"output_tokens", 128}};
    const std::optional<Scenario> s = accepted(request);
    REQUIRE(s);
    const EstimateResult r = estimate(*s, EstimateDetail{false, false, false});
    REQUIRE(r.decodeTokensPerS);
    REQUIRE(r.serving);
    CHECK(1000.0 / *r.decodeTokensPerS == Approx(11.15).margin(0.4));
    CHECK(r.serving->userTokensPerS == Approx(*r.decodeTokensPerS).epsilon(0.02));
    const serving::StepModel m = serving::stepModel(*s, r.plan);
    CHECK(m.unpackS > 0);
    // Q4_0 blocks stay memory-bound ([SB]/[PR]): no unpacking term.
    PropertyJson q4 = request;
    q4["weights"] = "Q4_0";
    const std::optional<Scenario> s4 = accepted(q4);
    REQUIRE(s4);
    CHECK(serving::stepModel(*s4, estimate(*s4, EstimateDetail{false, false, false}).plan).unpackS == 0);
}

TEST_CASE("serving step: the decode-only step model times a prompt-free step as the whole one does", "[serving][step]") {
    // decodeStepModel leaves the request-level constants unset and a step
    // without prompt tokens never reads them or the routed experts' prompt
    // slowdown: its step times are the same doubles as stepModel's (the
    // estimate's decode figure and serving's TPOT rest on them).
    for (const std::string engine : {"vllm", "sglang", "tensorrt-llm"}) {
        for (const std::string model : {"llama-3.1-8b", "gpt-oss-120b"}) {
            const PropertyJson request = {{"model", model},          {"gpu", "h100-sxm5-80gb"}, {"engine", engine},
                                          {"gpu_count", 2},          {"prompt_tokens", 1024},   {"output_tokens", 256},
                                          {"batch", 16}};
            const std::optional<Scenario> s = accepted(request);
            REQUIRE(s);
            const EstimateResult r = estimate(*s, EstimateDetail{false, false, false});
            const Workload work = makeWorkload(*s);
            const serving::StepModel whole = serving::stepModel(*s, r.plan, work);
            const serving::StepModel decode = serving::decodeStepModel(*s, r.plan, work);
            INFO(engine << " " << model);
            for (const double decodes : {1.0, 7.0, 16.0, 300.0}) {
                CHECK(decode.stepS(decodes, 1152, 0, 0) == whole.stepS(decodes, 1152, 0, 0));
            }
        }
    }
}

TEST_CASE("serving step: full and sliding layers' KV shared by their own KV heads", "[serving][step][mimo]") {
    // MiMo-V2-Flash at tp 8: full layers have 4 KV heads (each rank keeps 1,
    // replicated: 1/4), sliding layers 8 (1 each: 1/8).
    const PropertyJson request = {{"model", "mimo-v2-flash"}, {"gpu", "h200-sxm-141gb"}, {"engine", "sglang"},
                                  {"gpu_count", 8},           {"prompt_tokens", 1024},  {"output_tokens", 256},
                                  {"batch", 8},               {"kv_cache", "bf16"},     {"parallel", {{"tp", 8}}}};
    const std::optional<Scenario> s = accepted(request);
    REQUIRE(s);
    const EstimateResult r = estimate(*s, EstimateDetail{false, false, false});
    REQUIRE(r.plan.tp == 8);
    const serving::StepModel m = serving::stepModel(*s, r.plan);
    CHECK(m.kvShare == 0.25);
    CHECK(m.slidingKvShare == 0.125);
    // One sequence at 4,096 tokens on one rank: 9 full layers x 4,096 tokens x
    // 1 head + 39 sliding layers x 128 tokens x 1 head, (192 + 128) x 2 B each.
    CHECK(m.kvReadOnRank(4096) == Approx(9.0 * 4096 * 640 + 39.0 * 128 * 640).epsilon(1e-12));
    // One token on one rank: 9 layers x 1 head + 39 x 1 head, 640 B each.
    CHECK(m.kvBytesPerTokenOnRank() == Approx(48.0 * 640).epsilon(1e-12));

    // A plain GQA model: one share for every layer, as before.
    const PropertyJson llama = {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm5-80gb"}, {"engine", "vllm"},
                                {"gpu_count", 8},          {"prompt_tokens", 1024},  {"output_tokens", 256},
                                {"batch", 8},              {"kv_cache", "bf16"},     {"parallel", {{"tp", 8}}}};
    const std::optional<Scenario> l = accepted(llama);
    REQUIRE(l);
    const serving::StepModel lm = serving::stepModel(*l, estimate(*l, EstimateDetail{false, false, false}).plan);
    CHECK(lm.kvShare == 0.125);  // 8 KV heads over 8 ranks
    CHECK(lm.slidingKvShare == lm.kvShare);
    // 80 layers x 8 heads x 128 x 2 (K and V) x 2 B, an eighth per rank.
    CHECK(lm.kvBytesPerTokenOnRank() == Approx(80.0 * 8 * 128 * 2 * 2 / 8).epsilon(1e-12));
}

TEST_CASE("serving step: a rank reads its share of the KV heads on its stage's layers, no less", "[serving][step]") {
    // Llama-3.1-70B (8 KV heads, 80 layers, head dim 128, bf16 KV) on vLLM
    // at tp 8: each rank holds 1 KV head, so one token's KV it reads is
    // 80 layers x 1 head x 128 x 2 (K, V) x 2 B = 40,960 B; 1/8 of the
    // whole model's 327,680 B (the KV pool's bytes per token on a rank),
    // not a further 1/8 of that.
    const PropertyJson llama = {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm5-80gb"}, {"engine", "vllm"},
                                {"gpu_count", 8},          {"prompt_tokens", 1024},  {"output_tokens", 256},
                                {"batch", 64},             {"kv_cache", "bf16"},     {"parallel", {{"tp", 8}}}};
    const std::optional<Scenario> s = accepted(llama);
    REQUIRE(s);
    serving::StepModel m = serving::stepModel(*s, estimate(*s, EstimateDetail{false, false, false}).plan);
    REQUIRE(m.layout.attentionTp == 8);
    REQUIRE(m.layout.pp == 1);
    m.engine.stepOverheadS = 0;
    m.engine.perSequenceOverheadS = 0;
    m.kvReadFraction = 1;  // KV streamed at the weights' rate
    const double perTokenOnRankB = 80.0 * 1 * 128 * 2 * 2;
    REQUIRE(m.kvBytesPerTokenOnRank() == Approx(perTokenOnRankB).epsilon(1e-12));
    // 64 running requests 1,024 tokens further on: only the decode
    // attention's KV read grows (its FLOPs, 4 x 80 x 8,192 per context token
    // over 8 GPUs, stay far under the H100's FLOP/byte ridge), by 64 x 1,024
    // x 40,960 B = 2.68 GB per GPU at the achieved bandwidth.
    const double extraS = m.stepS(64, 2048, 0, 0) - m.stepS(64, 1024, 0, 0);
    CHECK(extraS == Approx(64.0 * 1024 * perTokenOnRankB / m.bandwidthBytesPerS).epsilon(1e-9));
}
