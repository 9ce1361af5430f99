// Fine-tuning methods against each other: LoRA freezes the base weights (no
// gradients or optimizer states for them) and QLoRA also stores them in
// 4 bits, so under the same strategy options neither can need more GPUs
// than the method with more to hold.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "caliper/api.hpp"
#include "api_fixture.hpp"
#include "catalog_fixture.hpp"

using caliper::test::projectCatalog;
using Json = nlohmann::json;

using caliper::test::estimateOk;

namespace {

std::string finetune(const std::string& model, const std::string& gpu, const std::string& method,
                     const std::string& count, const std::string& extra) {
    return R"({"model":")" + model + R"(","gpu":")" + gpu + R"(","task":"finetune","method":")" + method +
           R"(","gpu_count":)" + count + R"(,"batch":1,"seq_len":4096)" + extra + "}";
}

}  // namespace

TEST_CASE("LoRA never needs more GPUs than full fine-tuning, nor QLoRA more than LoRA", "[planner][lora]") {
    // Dense and MoE models on cards where all three need several GPUs, under
    // the default engine (ZeRO-3 when sharded) and FSDP. The first case used
    // to give LoRA 921 GPUs against 438 for full fine-tuning: its frozen base
    // was counted with two whole gathered decoder layers under ZeRO-3 (a MoE
    // layer with all its experts), where a trained model keeps only the
    // largest module gathered.
    const char* cases[][2] = {{"qwen3.6-35b-a3b", "rtx-2080-ti-22gb"}, {"qwen3-30b-a3b", "rtx-3090"},
                              {"mixtral-8x7b", "a100-sxm4-40gb"}, {"llama-3.1-70b", "rtx-4090"}};
    for (const auto& c : cases) {
        for (const std::string extra : {"", R"(,"engine":"fsdp")"}) {
            const Json full = estimateOk(finetune(c[0], c[1], "full", R"("auto")", extra));
            const Json lora = estimateOk(finetune(c[0], c[1], "lora", R"("auto")", extra));
            const Json qlora = estimateOk(finetune(c[0], c[1], "qlora", R"("auto")", extra));
            INFO(c[0] << " on " << c[1] << extra);
            REQUIRE(full["gpus_needed"].is_number());
            REQUIRE(lora["gpus_needed"].is_number());
            REQUIRE(qlora["gpus_needed"].is_number());
            CHECK(lora["gpus_needed"].get<int>() <= full["gpus_needed"].get<int>());
            CHECK(qlora["gpus_needed"].get<int>() <= lora["gpus_needed"].get<int>());
        }
    }
}

TEST_CASE("under ZeRO-3 a frozen base holds no more weight bytes per GPU than a trained one", "[planner][lora]") {
    // Same model, count and strategy: ZeRO-3 shards and gathers frozen
    // parameters module by module as it does trainable ones, so LoRA's
    // weights_gib (frozen 16-bit base) cannot exceed full fine-tuning's
    // (16-bit trained weights).
    const std::string zero3 = R"(,"parallel":{"strategy":"zero3"})";
    const Json full = estimateOk(finetune("qwen3.6-35b-a3b", "rtx-2080-ti-22gb", "full", "1000", zero3));
    const Json lora = estimateOk(finetune("qwen3.6-35b-a3b", "rtx-2080-ti-22gb", "lora", "1000", zero3));
    REQUIRE(full["plan"]["strategy"] == "zero3");
    REQUIRE(lora["plan"]["strategy"] == "zero3");
    CHECK(lora["memory"]["weights_gib"].get<double>() <= full["memory"]["weights_gib"].get<double>());
}
