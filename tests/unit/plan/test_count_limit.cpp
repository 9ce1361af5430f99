// An "auto" count is chosen within max_gpus, as a matrix cell is; a stated
// count that tensor parallelism cannot split says so.
#include <string>

#include <catch2/catch.hpp>

#include "api_fixture.hpp"

using caliper::test::estimateOk;

namespace {

bool hasWarning(const nlohmann::json& r, const std::string& code) {
    for (const auto& w : r["warnings"]) {
        if (w["code"] == code) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("max_gpus: no count within the limit fits, the fewest above it is named", "[plan][gpu_count]") {
    // Llama 3.1 405B in BF16 is 405e9 x 2 bytes = 754 GiB of weights alone;
    // eight H100s hold 8 x 80 = 640 GiB: no count within 8 fits.
    const std::string base = R"({"model":"llama-3.1-405b","gpu":"h100","gpu_count":"auto")";
    const auto open = estimateOk(base + "}");
    REQUIRE(open["fits"].get<bool>());
    const int fewest = open["gpus_needed"].get<int>();
    REQUIRE(fewest > 8);
    const auto limited = estimateOk(base + R"(,"max_gpus":8})");
    CHECK_FALSE(limited["fits"].get<bool>());
    CHECK(limited["gpus_needed"].is_null());  // docs/CONTRACT.md: null when no count fits within the limit
    CHECK(limited["decode_tokens_per_s"].is_null());
    REQUIRE(hasWarning(limited, "over_max_gpus"));
    for (const auto& w : limited["warnings"]) {
        if (w["code"] == "over_max_gpus") CHECK(w["message"].get<std::string>().find(std::to_string(fewest)) != std::string::npos);
    }
    CHECK_FALSE(hasWarning(open, "over_max_gpus"));
    // A limit at the fewest fits there; the whole servers an open limit
    // rounds up to (replicas.hpp wholeNodes) lie above it, so the plan keeps
    // the fewest.
    const auto roomy = estimateOk(base + R"(,"max_gpus":)" + std::to_string(fewest) + "}");
    CHECK(roomy["fits"].get<bool>());
    CHECK(roomy["gpus_needed"].get<int>() == fewest);
    CHECK(roomy["gpu_count"] == fewest);
    CHECK(open["gpu_count"].get<int>() >= fewest);
}

TEST_CASE("tensor parallelism at a count that cannot split the heads is warned", "[plan][tensor]") {
    // Llama 2 70B has 64 attention heads and 8 KV heads: a tensor degree
    // must divide both the count and 64, so 7 GPUs admit none above 1 and
    // run as a pipeline of 7; 8 GPUs split by 8.
    const std::string base = R"({"model":"llama-2-70b","gpu":"rtx-4090","parallel":{"strategy":"tensor"},"gpu_count":)";
    const auto seven = estimateOk(base + "7}");
    CHECK(seven["plan"]["tp"] == 1);
    CHECK(seven["plan"]["pp"] == 7);
    CHECK(hasWarning(seven, "tensor_parallel_impossible"));
    const auto eight = estimateOk(base + "8}");
    CHECK(eight["plan"]["tp"] == 8);
    CHECK_FALSE(hasWarning(eight, "tensor_parallel_impossible"));
    // Left to the planner (strategy auto) no tensor split was asked for.
    const auto open = estimateOk(R"({"model":"llama-2-70b","gpu":"rtx-4090","gpu_count":7})");
    CHECK_FALSE(hasWarning(open, "tensor_parallel_impossible"));
}

TEST_CASE("training at a stated count: gpus_needed is the fewest an auto count finds, offload and leaner losses weighed",
          "[plan][gpu_count]") {
    // The plan stays the stated count's; the fewest GPUs that fit are those
    // the same request with "auto" reports, whose search also weighs the
    // plans that pay only on fewer GPUs. Each case names the lever the auto
    // count finds that the stated count's own plan does not use.
    struct Case {
        const char* request;  // without gpu_count
        int statedCount;
        const char* lever;
    };
    const Case cases[] = {
        // ZeRO-Infinity: the frozen base in host RAM (PEFT's DeepSpeed guide).
        {R"({"model":"glm-5","gpu":"h200-sxm-141gb","task":"finetune","method":"lora")", 24, "zero_infinity_to_fit"},
        {R"({"model":"llama-3.1-70b","gpu":"h100-sxm5-80gb","task":"finetune","method":"lora")", 8, "zero_infinity_to_fit"},
        // TRL's chunked NLL loss: a 248k vocabulary's logits on 22 GB cards.
        {R"({"model":"qwen3.5-35b-a3b","gpu":"rtx-2080-ti-22gb","task":"finetune","method":"full")", 96,
         "loss_chunked_nll_to_fit"},
        // The same where the stated count does not fit at all.
        {R"({"model":"llama-3.1-8b","gpu":"rtx-4090","task":"finetune","method":"full","seq_len":8192)", 8,
         "loss_chunked_nll_to_fit"},
    };
    for (const Case& c : cases) {
        INFO(c.request << " at " << c.statedCount);
        const auto open = estimateOk(std::string(c.request) + R"(,"gpu_count":"auto"})");
        REQUIRE(open["fits"].get<bool>());
        bool lever = false;
        for (const auto& code : open["plan"]["why"]) lever = lever || code == c.lever;
        REQUIRE(lever);
        const int fewest = open["gpus_needed"].get<int>();
        const auto stated =
            estimateOk(std::string(c.request) + R"(,"gpu_count":)" + std::to_string(c.statedCount) + "}");
        CHECK(stated["plan"]["gpu_count"] == c.statedCount);
        CHECK(stated["gpus_needed"] == fewest);
    }
}
