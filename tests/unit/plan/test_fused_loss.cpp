// Liger Kernel's fused linear cross entropy (loss_kernel "fused-linear"):
// its memory, and the planner weighing it where the loss is left "auto" on a
// Hugging Face stack, never where the request fixes the loss.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "api_fixture.hpp"
#include "memory/sizing.hpp"
#include "result_fixture.hpp"

using caliper::test::kGiB;
using caliper::test::listHasCode;
using caliper::test::estimateOk;
using Json = nlohmann::json;

namespace {

// Qwen3.5 9B (models.json): hidden 4096, vocabulary 248320, untied head.
const std::string kQwenLora =
    R"({"model":"qwen3.5-9b","gpu":"rtx-4090","task":"finetune","method":"lora","seq_len":4096,"gpu_count":"auto")";

}  // namespace

TEST_CASE("fused linear cross entropy chunks tokens as Liger does", "[memory][loss]") {
    // fused_linear_cross_entropy_forward: inc = ceil(V / H), chunk =
    // next_power_of_2(ceil(BT / inc)), at most BT.
    // 4096 tokens, V 248320, H 4096: inc = ceil(60.6) = 61, ceil(4096 / 61) = 68 -> 128.
    CHECK(caliper::sizing::fusedLinearChunkTokens(4096, 248320, 4096) == 128);
    // 2048 tokens, V 128256: inc = ceil(31.3) = 32, 2048 / 32 = 64 -> 64.
    CHECK(caliper::sizing::fusedLinearChunkTokens(2048, 128256, 4096) == 64);
    // A vocabulary below the hidden size: one chunk of all 10 tokens (16 capped at BT).
    CHECK(caliper::sizing::fusedLinearChunkTokens(10, 100, 4096) == 10);
}

TEST_CASE("fused linear cross entropy keeps no logits whole", "[memory][loss]") {
    const std::string base =
        R"({"model":"llama-3.1-8b","gpu":"h100","task":"finetune","method":"lora","seq_len":2048,"batch":1,"gpu_count":1,"gradient_checkpointing":false)";
    const Json eager = estimateOk(base + R"(,"loss_kernel":"eager"})");
    const Json fused = estimateOk(base + R"(,"loss_kernel":"fused-linear"})");
    CHECK(fused["plan"]["loss_kernel"] == "fused-linear");
    CHECK(eager["plan"]["loss_kernel"] == "eager");
    // Llama 3.1 8B: H 4096, V 128256. Eager: 12 B a logit, 12 x 2048 x 128256.
    // Fused: the input's gradient 2 x 2048 x 4096 + one chunk of 64 tokens'
    // bf16 logits 2 x 64 x 128256 + an fp32 loss a token 4 x 2048.
    const double eagerLoss = 12.0 * 2048 * 128256;
    const double fusedLoss = 2.0 * 2048 * 4096 + 2.0 * 64 * 128256 + 4.0 * 2048;
    const double less = eager["memory"]["activations_gib"].get<double>() - fused["memory"]["activations_gib"].get<double>();
    CHECK(less == Approx((eagerLoss - fusedLoss) / kGiB).epsilon(0.01));
}

TEST_CASE("the planner takes the fused linear loss where the eager one needs more GPUs", "[planner][loss]") {
    // Qwen3.5 9B LoRA at 4,096 tokens on 24 GB cards: the eager loss holds 12
    // x 4096 x 248320 B = 11.4 GiB on every GPU whatever ZeRO shards, so the
    // weights must spread over many GPUs; Liger's loss holds ~0.09 GiB (4096
    // x 4096 x 2 + 128 x 248320 x 2 + 4 x 4096 B), and one card holds the
    // 16-bit weights, the checkpoints and a recomputed layer.
    const Json eager = estimateOk(kQwenLora + R"(,"loss_kernel":"eager"})");
    const Json planned = estimateOk(kQwenLora + "}");
    REQUIRE(eager["gpus_needed"].get<int>() > 1);
    CHECK(eager["plan"]["loss_kernel"] == "eager");
    CHECK_FALSE(listHasCode(eager["plan"]["why"], "loss_fused_linear_to_fit"));
    CHECK(planned["gpus_needed"] == 1);
    CHECK(planned["fits"] == true);
    CHECK(planned["plan"]["loss_kernel"] == "fused-linear");
    CHECK(listHasCode(planned["plan"]["why"], "loss_fused_linear_to_fit"));
    // Where the eager loss fits one GPU the engine's own loss stays.
    const Json shortContext = estimateOk(kQwenLora + R"(,"seq_len":512})");
    CHECK(shortContext["plan"]["loss_kernel"] == "eager");
    // Unsloth and Megatron keep their own kernels.
    const Json unsloth = estimateOk(kQwenLora + R"(,"engine":"unsloth"})");
    CHECK(unsloth["plan"]["loss_kernel"] == "fused");
}

TEST_CASE("a fixed eager loss stays, and make-it-fit offers the fused one", "[planner][loss][suggestions]") {
    // (The offload fixed to none: ZeRO-3 with the frozen base in host RAM
    // would fit it on the one card.)
    const Json fixedCount = estimateOk(
        R"({"model":"qwen3.5-9b","gpu":"rtx-4090","task":"finetune","method":"lora","seq_len":4096,"gpu_count":1,"loss_kernel":"eager","parallel":{"offload":"none"}})");
    CHECK(fixedCount["fits"] == false);
    CHECK(fixedCount["plan"]["loss_kernel"] == "eager");
    REQUIRE(fixedCount["suggestions"].is_array());
    CHECK(listHasCode(fixedCount["suggestions"], "fused_linear_loss"));
}

TEST_CASE("the fused linear loss is not weighed with ZeRO-3", "[planner][loss]") {
    // Liger reads lm_head.weight without calling the module: ZeRO-3's gather
    // hook never fires. With the loss fixed, the planner's strategies leave
    // ZeRO-3 out; with ZeRO-3 fixed, the planner never takes Liger's loss
    // (TRL's chunked NLL, which gathers lm_head per chunk, where it helps).
    const Json fused = estimateOk(
        R"({"model":"llama-3.1-8b","gpu":"h100","task":"finetune","method":"full","gpu_count":4,"loss_kernel":"fused-linear"})");
    CHECK(fused["plan"]["strategy"] != "zero3");
    const Json zero3 = estimateOk(kQwenLora + R"(,"parallel":{"strategy":"zero3"}})");
    CHECK(zero3["plan"]["loss_kernel"] != "fused-linear");
}
