// Training efficiency mechanisms: which share of the step FP8 speeds up, and
// how GEMM efficiency falls with the reduction size K.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "caliper/api.hpp"
#include "calibration/calibration.hpp"
#include "catalog_fixture.hpp"

using caliper::test::projectCatalog;
using Json = nlohmann::json;

namespace {

Json answer(const Json& request) {
    const caliper::ApiResponse response = caliper::estimateJson(projectCatalog(), request.dump());
    INFO(request.dump() << " -> " << response.json.substr(0, 1500));
    REQUIRE(response.status == 0);
    return Json::parse(response.json);
}

double explained(const Json& result, const std::string& term) {
    for (const Json& e : result["explain"]) {
        if (e["term"] == term) return e["value"].get<double>();
    }
    return -1;
}

// Megatron-Bridge's Llama 3 8B layout on 8 B200 (performance summary,
// 25.11: TP 1, PP 1, seq 8192, no recomputation); the width and expert cases
// recompute to fit the 80 GB H100 too.
Json pretrain(const std::string& model, const std::string& gpu, const std::string& weights, bool recompute = false) {
    return {{"model", model},       {"gpu", gpu},          {"task", "pretrain"}, {"engine", "megatron"},
            {"weights", weights},   {"gpu_count", 8},      {"batch", 1},         {"seq_len", 8192},
            {"global_batch", 128},  {"parallel", {{"tp", 1}, {"pp", 1}}},       {"gradient_checkpointing", recompute}};
}

// Achieved dense TFLOP/s of the compute itself: MFU x the peak it is taken of.
double computeTflops(const Json& result) { return explained(result, "train_mfu") * explained(result, "train_peak_tflops"); }

}  // namespace

TEST_CASE("FP8 speeds up the linear layers only; the attention core stays 16-bit", "[speed][training]") {
    // Llama 3 8B at seq 8192: N = 32 x (4096 x 10240 + 3 x 4096 x 14336) +
    // 128256 x 4096 = 7,504,658,432 matmul parameters, 6N = 45,027,950,592
    // FLOPs per token; causal attention 6 L s d_attn = 6 x 32 x 8192 x 4096 =
    // 6,442,450,944, so a = 6.442 / 51.470 = 0.12517 of the FLOPs. The linear
    // GEMMs run s faster in FP8 (the calibrated FP8 GEMM speed-up, read
    // from the built-in calibration: 1.9 gives the figures below), except the lm_head
    // (128256 x 4096 / N = 0.070001 of the linear FLOPs), which stays 16-bit;
    // attention runs at the 16-bit rate. Each FP8 GEMM input is cast first,
    // 4 B per element of 1/K + 1/N per 6 FLOPs: the block's mean 1/K + 1/N is
    // 2/3 x MLP (2/3 (1/4096 + 1/28672) + 1/3 (1/14336 + 1/4096) =
    // 2.90644e-4) + 1/3 x attention (2/4096) = 3.56523e-4, so 2.37682e-4 B
    // per FLOP, at the base rate 0.40 x 2250 TFLOP/s over 0.8 x 8 TB/s:
    // 0.929999 x 2.37682e-4 x 140.625 = 0.031084 of the 16-bit GEMM time.
    // Time: 0.12517 + 0.87483 x (0.929999 / s + 0.070001 + 0.031084); at
    // s = 1.9 0.641808, 1.5581x. At hidden 4096 the width factor is 1 in both
    // precisions (the base tables' plateau).
    const double s = caliper::calibratedTraining(caliper::TrainingConstant::Fp8GemmSpeedup, 1.9);
    const double speedup = 1.0 / (0.12517 + 0.87483 * (0.929999 / s + 0.070001 + 0.031084));
    const Json bf16 = answer(pretrain("llama-3-8b", "b200", "bf16"));
    const Json fp8 = answer(pretrain("llama-3-8b", "b200", "fp8"));
    CHECK(explained(fp8, "train_model_flops_per_token") == Approx(51470401536.0).epsilon(1e-4));
    CHECK(computeTflops(fp8) / computeTflops(bf16) == Approx(speedup).epsilon(2e-3));
    // A longer sequence puts more of the step in attention, which FP8 does not speed up.
    Json bf16Long = pretrain("llama-3-8b", "b200", "bf16", true), fp8Long = pretrain("llama-3-8b", "b200", "fp8", true);
    bf16Long["seq_len"] = fp8Long["seq_len"] = 32768;
    bf16Long["global_batch"] = fp8Long["global_batch"] = 32;
    CHECK(computeTflops(answer(fp8Long)) / computeTflops(answer(bf16Long)) < speedup);
}

TEST_CASE("a narrow model's GEMMs lose more on a faster GPU", "[speed][training]") {
    // GEMM efficiency eta(K) = K / (K + K_half), K_half = 716 at 1979 TFLOPS
    // (DeepGEMM's H800 FP8 table), scaled with the rate the GEMMs run at.
    // bf16 on H100 (989.4): K_half = 357.96, eta(2048) / eta(4096) =
    // (2048 / 2405.96) / (4096 / 4453.96) = 0.85122 / 0.91963 = 0.92561.
    // bf16 on B200 (2250): K_half = 814.05, (2048 / 2862.05) / (4096 /
    // 4910.05) = 0.71557 / 0.83421 = 0.85778. Both models are dense and in
    // bf16, so nothing else in the MFU differs (same GPUs, micro-batch, sequence).
    auto mfuRatio = [](const std::string& gpu) {
        return explained(answer(pretrain("llama-3.2-1b", gpu, "bf16", true)), "train_mfu") /
               explained(answer(pretrain("llama-3-8b", gpu, "bf16", true)), "train_mfu");
    };
    CHECK(mfuRatio("h100-sxm5-80gb") == Approx(0.92561).epsilon(2e-3));
    CHECK(mfuRatio("b200") == Approx(0.85778).epsilon(2e-3));
}

TEST_CASE("routed experts narrower than the hidden size run their GEMMs slower", "[speed][training]") {
    // Qwen3-30B-A3B's experts (hidden 2048, expert inner size 768) reduce over
    // K = 768 in fc2's forward and K = 1536 in fc1's data gradient, below the
    // K = 2048 of its dense layers: its MFU in bf16 on H100 falls below a
    // dense model of the same hidden size (Llama 3.2 1B, hidden 2048), whose
    // width factor is the same. gpt-oss-120b's experts (inner size 2880 =
    // hidden) reduce over K >= hidden and lose nothing: its MFU is at least
    // that of a dense model of its width.
    Json qwen = pretrain("qwen3-30b-a3b", "h100-sxm5-80gb", "bf16", true);
    qwen["parallel"] = {{"tp", 1}, {"pp", 1}, {"ep", 8}};
    const double dense2048 = explained(answer(pretrain("llama-3.2-1b", "h100-sxm5-80gb", "bf16", true)), "train_mfu");
    CHECK(explained(answer(qwen), "train_mfu") < dense2048);
}

TEST_CASE("FP8 gains less on narrow experts: each GEMM input is cast, and the cast does not speed up", "[speed][training]") {
    // The cast moves 4 B per element of 1/K + 1/N per 6 FLOPs. Qwen3-30B-A3B's
    // experts (h 2048, f 768, gated): 2/3 (1/2048 + 1/1536) + 1/3 (1/768 +
    // 1/2048) = 1.2207e-3, 3.4x a Llama 3 8B block's 3.56523e-4 (above), and
    // its lm_head (151936 x 2048) is a larger share of its active FLOPs: on
    // H100, at the same layout, FP8 speeds its compute up less than Llama 3
    // 8B's. Without the cast and the 16-bit lm_head both would gain the same
    // share of their linear FLOPs.
    auto gain = [](const std::string& model, bool moe) {
        Json bf16 = pretrain(model, "h100-sxm5-80gb", "bf16", true), fp8 = pretrain(model, "h100-sxm5-80gb", "fp8", true);
        if (moe) bf16["parallel"] = fp8["parallel"] = {{"tp", 1}, {"pp", 1}, {"ep", 8}};
        return computeTflops(answer(fp8)) / computeTflops(answer(bf16));
    };
    const double dense = gain("llama-3-8b", false), moe = gain("qwen3-30b-a3b", true);
    CHECK(moe < dense);
    CHECK(moe > 1.0);
}

TEST_CASE("a micro-batch of few tokens runs its GEMMs below the peak, up to 4096 tokens", "[speed][training]") {
    // Each linear layer's forward and data-gradient GEMMs have the tokens as
    // M, eta(M) = M / (M + M_half), M_half = 200 x (2 B x 989.4 TFLOPS /
    // 3.35 TB/s) / (1979 / 3.35) = 199.98 for bf16 on H100 (DeepGEMM's H800
    // fit, scaled by bytes per weight x peak / bandwidth); the weight
    // gradient has them as K, eta(K) with K_half = 357.96 (above). Time per
    // FLOP: T(M) = 2/3 (1 + 199.98 / M) + 1/3 (1 + 357.96 / M), so T(4096) =
    // 1.061680 and T(512) = 1.493440: one 512-token sequence per micro-batch
    // runs at 1.061680 / 1.493440 = 0.71090 of eight. Same sequence, so the
    // attention share, and everything else in the MFU, is the same.
    Json one = pretrain("llama-3-8b", "h100-sxm5-80gb", "bf16", true), eight = one, sixteen = one;
    one["seq_len"] = eight["seq_len"] = sixteen["seq_len"] = 512;
    eight["batch"] = 8;
    sixteen["batch"] = 16;
    const double mfuEight = explained(answer(eight), "train_mfu");
    CHECK(explained(answer(one), "train_mfu") / mfuEight == Approx(0.71090).epsilon(2e-3));
    // Beyond 4096 rows nothing is gained (DeepGEMM's grouped GEMMs: the same
    // rate at 4096 and 8192 rows per group).
    CHECK(explained(answer(sixteen), "train_mfu") == Approx(mfuEight).epsilon(1e-9));
}

TEST_CASE("train_mfu is model FLOPs over the dense peak; recomputation is not counted", "[speed][training]") {
    // PaLM's MFU (Chowdhery et al. 2022, appendix B): achieved model FLOP/s
    // (6N plus attention per token) over the peak. Without recomputation the
    // hardware FLOPs are the model FLOPs, so it is train_tflops_per_gpu over
    // the B200's dense BF16 peak (Megatron-Bridge's layout above fits it
    // without recomputation).
    const Json off = answer(pretrain("llama-3-8b", "b200", "bf16", false));
    REQUIRE(off["train_mfu"].is_number());
    CHECK(off["train_mfu"].get<double>() ==
          Approx(off["train_tflops_per_gpu"].get<double>() / explained(off, "train_peak_tflops")).epsilon(1e-4));
    CHECK(explained(off, "train_model_flops_fraction") == Approx(off["train_mfu"].get<double>()).epsilon(1e-4));
    // Full recomputation runs one more forward (8N instead of 6N of hardware
    // FLOPs), which MFU does not credit: it falls below the efficiency the
    // step applies to the hardware FLOPs (the explain term train_mfu).
    const Json on = answer(pretrain("llama-3-8b", "b200", "bf16", true));
    CHECK(on["train_mfu"].get<double>() < explained(on, "train_mfu"));
    CHECK(on["train_mfu"].get<double>() < off["train_mfu"].get<double>());
    // Inference has no training figures.
    const Json serve = answer({{"model", "llama-3-8b"}, {"gpu", "b200"}});
    CHECK(serve["train_mfu"].is_null());
}
