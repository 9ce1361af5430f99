// DeepSpeed ZeRO-Offload weighed by the planner: a full fine-tune that no
// plan with every state on the GPUs fits gets the optimizer states and their
// step in host RAM, with the RAM it needs stated.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "api_fixture.hpp"

using caliper::test::estimateOk;
using Json = nlohmann::json;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

bool hasCode(const Json& list, const std::string& code) {
    for (const Json& item : list) {
        if (item.is_string() && item == code) return true;
        if (item.is_object() && item.value("code", "") == code) return true;
    }
    return false;
}

// Qwen3.5 9B (models.json: 9.41B parameters) full fine-tune on 2080 Ti 22GB
// cards (Turing: fp16, no bf16).
const std::string kQwenFull =
    R"({"model":"qwen3.5-9b","gpu":"2080 Ti 22GB","task":"finetune","method":"full")";

}  // namespace

TEST_CASE("a full fine-tune no GPU-only plan fits on four 2080 Ti 22GB runs with ZeRO-Offload", "[planner][offload]") {
    // Every state on the GPUs, even ZeRO-3's 18 bytes a parameter over the
    // cards, needs 30 of them. ZeRO-Offload keeps only the 16-bit weights on
    // each GPU: 9.41e9 x 2 B = 17.53 GiB of a 22 GiB card, beside the
    // checkpointed activations.
    const Json four = estimateOk(kQwenFull + R"(,"gpu_count":4})");
    CHECK(four["fits"] == true);
    CHECK(four["plan"]["strategy"] == "zero2");
    CHECK(four["plan"]["offload"] == "optimizer");
    CHECK(hasCode(four["plan"]["why"], "zero_offload_to_fit"));
    CHECK(four["memory"]["weights_gib"].get<double>() == Approx(9.41e9 * 2 / kGiB).epsilon(0.01));
    CHECK(four["memory"]["optimizer_gib"].get<double>() == 0);
    // Host RAM: DeepSpeed's estimate_zero2_model_states_mem_needs with
    // cpu_offload: params x max(4 x GPUs, 16) x additional_buffer_factor 1.5
    // = 9.41e9 x 16 x 1.5 = 225.8 GB = 210.3 GiB.
    CHECK(four["memory"]["cpu_offload_gib"].get<double>() == Approx(9.41e9 * 16 * 1.5 / kGiB).epsilon(0.01));
    // The CPU Adam step and the PCIe transfers are in the step time.
    CHECK(four["train_tokens_per_s"].get<double>() > 0);

    // A stated host RAM below that: the plan is shown, not fitting, and says why.
    const Json small = estimateOk(kQwenFull + R"(,"gpu_count":4,"host":{"ram_gib":128}})");
    CHECK(small["fits"] == false);
    CHECK(small["plan"]["offload"] == "optimizer");
    CHECK(hasCode(small["warnings"], "host_ram_too_small"));
    CHECK(small["memory"]["cpu_offload_gib"].get<double>() == Approx(four["memory"]["cpu_offload_gib"].get<double>()));

    // Within a limit of 4 GPUs an "auto" count weighs it too.
    const Json limited = estimateOk(kQwenFull + R"(,"gpu_count":"auto","max_gpus":4})");
    CHECK(limited["fits"] == true);
    CHECK(limited["plan"]["offload"] == "optimizer");
    CHECK(limited["plan"]["gpu_count"].get<int>() <= 4);

    // A request that fixes the strategy or the offload keeps it.
    const Json fixed = estimateOk(kQwenFull + R"(,"gpu_count":4,"parallel":{"strategy":"zero3"}})");
    CHECK(fixed["plan"]["offload"] == "none");
    CHECK(fixed["fits"] == false);
    // Where a GPU-only plan fits, nothing moves to host RAM: LoRA.
    const Json lora = estimateOk(R"({"model":"qwen3.5-9b","gpu":"2080 Ti 22GB","task":"finetune","method":"lora","gpu_count":4})");
    CHECK(lora["plan"]["offload"] == "none");
    CHECK_FALSE(hasCode(lora["plan"]["why"], "zero_offload_to_fit"));
}
