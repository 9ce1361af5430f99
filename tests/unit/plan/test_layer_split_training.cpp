// The layer split for Hugging Face fine-tuning (device_map="auto": the
// layers spread over the GPUs, one GPU busy at a time): weighed by the
// planner only where no data-parallel plan fits or where it may need fewer
// GPUs than one that does, and run sequentially by the speed model.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "api_fixture.hpp"
#include "result_fixture.hpp"

using caliper::test::kGiB;
using caliper::test::listHasCode;
using caliper::test::explainValue;
using caliper::test::estimateOk;
using Json = nlohmann::json;

namespace {

// Gemma 4 31B (models.json): 31.273B parameters, 60 layers, hidden 5376,
// vocabulary 262144 with tied embeddings, 575,743,536 extra (vision) parameters.
const std::string kGemmaLora =
    R"({"model":"gemma-4-31b","gpu":"2080 Ti 22GB","task":"finetune","method":"lora")";

}  // namespace

TEST_CASE("LoRA of Gemma 4 31B on 2080 Ti 22GB cards splits its layers where ZeRO needs 12", "[planner][layer-split]") {
    // ZeRO-3 keeps the eager logits (12 B x 2048 x 262144 = 6 GiB) and a
    // whole recomputed layer on every GPU: it needs 12 cards. A layer split
    // holds 1/p of the 16-bit weights; with Liger's fused loss no logits
    // are kept whole, so 5 stages of 12 layers fit.
    const Json five = estimateOk(kGemmaLora + R"(,"gpu_count":5})");
    CHECK(five["fits"] == true);
    CHECK(five["plan"]["strategy"] == "layer-split");
    CHECK(five["plan"]["pp"] == 5);
    CHECK(five["plan"]["loss_kernel"] == "fused-linear");
    CHECK(listHasCode(five["plan"]["why"], "layer_split_to_fit"));
    CHECK(five["gpus_needed"] == 5);
    // The fullest GPU is the first: 12 layers, the tied embedding and the
    // vision tower. Per layer (31.273e9 - 262144 x 5376 - 575743536) / 60 x
    // 2 B = 0.909 GiB; embedding 262144 x 5376 x 2 B = 2.625 GiB; vision
    // 575743536 x 2 B = 1.072 GiB: 12 x 0.909 + 2.625 + 1.072 = 14.61 GiB.
    const double embedding = 262144.0 * 5376;
    const double perLayer = (31.273e9 - embedding - 575743536.0) / 60 * 2;
    const double firstStage = 12 * perLayer + embedding * 2 + 575743536.0 * 2;
    CHECK(five["memory"]["weights_gib"].get<double>() == Approx(firstStage / kGiB).epsilon(0.01));
    // Sequential stages: each GPU idles while the other four work, so the
    // step is five stages' compute one after another.
    CHECK(explainValue(five, "train_pipeline_bubble_s") ==
          Approx(4 * explainValue(five, "train_step_compute_s")).epsilon(1e-5));

    // At 4 cards with the weights kept on the GPUs ("offload":"none") the
    // first stage holds 15 layers + embedding + vision (17.3 GiB) and does
    // not fit; the split still comes closest, and the fewest GPUs needed
    // are its 5, not ZeRO-3's 12.
    const Json resident = estimateOk(kGemmaLora + R"(,"gpu_count":4,"parallel":{"offload":"none"}})");
    CHECK(resident["fits"] == false);
    CHECK(resident["gpus_needed"] == 5);
    CHECK(resident["plan"]["strategy"] == "layer-split");
    CHECK(resident["memory"]["weights_gib"].get<double>() == Approx((15 * perLayer + embedding * 2 + 575743536.0 * 2) / kGiB).epsilon(0.01));
    // Left to the planner, 4 cards where nothing GPU-resident fits run the
    // LoRA under ZeRO-Infinity (ZeRO-3 with offload_param and
    // offload_optimizer on "cpu": peft docs/source/accelerate/deepspeed.md,
    // "ZeRO-3 and CPU offloading"), the base in host RAM. Within a count the
    // planner takes it only where no GPU-resident plan fits (planner.cpp
    // withZeroOffload). gpus_needed stays the split's 5: the 4-card
    // offloaded plan sits at the top of the memory estimate's band, which
    // an "auto" count does not take over a plan that fits (knifeEdge).
    const Json four = estimateOk(kGemmaLora + R"(,"gpu_count":4})");
    CHECK(four["fits"] == true);
    CHECK(four["gpus_needed"] == 5);
    CHECK(four["plan"]["strategy"] == "zero3");
    CHECK(four["plan"]["offload"] == "parameters");
    CHECK(listHasCode(four["plan"]["why"], "zero_infinity_to_fit"));

    // With the engine's eager loss stated, the last stage holds the logits:
    // six stages of 10 layers are needed.
    const Json eager = estimateOk(kGemmaLora + R"(,"gpu_count":6,"loss_kernel":"eager"})");
    CHECK(eager["fits"] == true);
    CHECK(eager["plan"]["strategy"] == "layer-split");
    CHECK(eager["plan"]["loss_kernel"] == "eager");
    CHECK_FALSE(listHasCode(eager["plan"]["why"], "loss_fused_linear_to_fit"));
}

TEST_CASE("the layer split is weighed only where it may need fewer GPUs than the data-parallel plan", "[planner][layer-split]") {
    // An "auto" count within the default limit: ZeRO-3 fits on 12, the split
    // on 5 (the case above), and gpus_needed is the fewest that fit
    // (docs/CONTRACT.md), as a stated count of 4 already reports.
    const Json open = estimateOk(kGemmaLora + R"(,"gpu_count":"auto"})");
    CHECK(open["plan"]["strategy"] == "layer-split");
    CHECK(open["gpus_needed"] == 5);
    CHECK(listHasCode(open["plan"]["why"], "layer_split_to_fit"));
    // Qwen3.5 9B LoRA on the same cards with the weights on the GPUs:
    // ZeRO-3 alone needs 3, the split 2.
    const std::string qwenLora =
        R"({"model":"qwen3.5-9b","gpu":"2080 Ti 22GB","task":"finetune","method":"lora","gpu_count":"auto")";
    const Json zero3 = estimateOk(qwenLora + R"(,"parallel":{"strategy":"zero3","offload":"none"}})");
    REQUIRE(zero3["gpus_needed"] == 3);
    const Json split = estimateOk(qwenLora + R"(,"parallel":{"offload":"none"}})");
    CHECK(split["gpus_needed"] == 2);
    CHECK(split["plan"]["strategy"] == "layer-split");
    // Left to the planner, ZeRO-Infinity holds its 18 GB base in host RAM
    // and fits one card (PEFT's ZeRO-3 CPU offload guide, above): by the
    // default objective, fewest GPUs first (docs/CONTRACT.md), one card
    // beats the split's two, which also run one GPU at a time.
    const Json fewest = estimateOk(qwenLora + "}");
    CHECK(fewest["gpus_needed"] == 1);
    CHECK(fewest["plan"]["strategy"] == "zero3");
    CHECK(fewest["plan"]["offload"] == "parameters");
    // Where a data-parallel plan fits on two GPUs, no split needs fewer: a
    // full fine-tune of Gemma 3 12B on H100s keeps ZeRO.
    const Json two = estimateOk(
        R"({"model":"gemma-3-12b","gpu":"H100 SXM5","task":"finetune","method":"full","gpu_count":"auto"})");
    CHECK(two["gpus_needed"] == 2);
    CHECK(two["plan"]["strategy"] != "layer-split");
    CHECK_FALSE(listHasCode(two["plan"]["why"], "layer_split_to_fit"));
    // Within 8 GPUs no data-parallel plan fits: the split on 5 does.
    const Json limited = estimateOk(kGemmaLora + R"(,"gpu_count":"auto","max_gpus":8})");
    CHECK(limited["fits"] == true);
    CHECK(limited["plan"]["strategy"] == "layer-split");
    CHECK(limited["plan"]["gpu_count"] == 5);
    CHECK(listHasCode(limited["plan"]["why"], "layer_split_to_fit"));
    // Qwen3.5 9B LoRA on four of the same cards: ZeRO-3 fits, nothing changes.
    const Json qwen = estimateOk(
        R"({"model":"qwen3.5-9b","gpu":"2080 Ti 22GB","task":"finetune","method":"lora","gpu_count":4})");
    CHECK(qwen["fits"] == true);
    CHECK(qwen["plan"]["strategy"] == "zero3");
    CHECK_FALSE(listHasCode(qwen["plan"]["why"], "layer_split_to_fit"));
    // DeepSpeed wraps a whole model per rank: never a device_map split.
    const Json deepspeed = estimateOk(kGemmaLora + R"(,"gpu_count":4,"engine":"deepspeed"})");
    CHECK(deepspeed["plan"]["strategy"] != "layer-split");
    CHECK(deepspeed["gpus_needed"].get<int>() > 5);
}

TEST_CASE("a transformers pipeline runs its stages one at a time", "[speed][layer-split]") {
    // Hugging Face's Trainer runs no pipeline schedule: a stated pipeline is
    // the same sequential pass, its bubble (pp - 1) x the compute.
    const Json r = estimateOk(
        R"({"model":"gemma-4-31b","gpu":"2080 Ti 22GB","task":"finetune","method":"qlora","gpu_count":4,"parallel":{"strategy":"pipeline"}})");
    REQUIRE(r["plan"]["pp"] == 4);
    // (explain values carry six significant digits)
    CHECK(explainValue(r, "train_pipeline_bubble_s") == Approx(3 * explainValue(r, "train_step_compute_s")).epsilon(1e-5));
}
