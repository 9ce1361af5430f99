// What owned GPUs can run: the inventory request answers per model and task
// with the same engine as an estimate, and more GPUs never run less.
#include <catch2/catch.hpp>

#include <map>

#include <nlohmann/json.hpp>

#include "catalog_fixture.hpp"

using caliper::test::projectCatalog;
using Json = nlohmann::json;

namespace {

Json call(const std::string& request, int expectedStatus = 0) {
    const caliper::ApiResponse response = caliper::inventoryJson(projectCatalog(), request);
    INFO(request << "\n" << response.json.substr(0, 2000));
    REQUIRE(response.status == expectedStatus);
    return Json::parse(response.json);
}

const Json& rowOf(const Json& result, const std::string& modelId) {
    for (const Json& row : result["rows"]) {
        if (row["model_id"] == modelId) return row;
    }
    FAIL("no row for " << modelId);
    return result;
}

const std::string kModded2080Ti = R"({"inventory":[{"gpu":"2080 Ti 22GB","count":4}]})";

}  // namespace

TEST_CASE("4x 2080 Ti 22GB: QLoRA of a 32B model fits, full fine-tuning of a 7B does not", "[inventory]") {
    const Json result = call(kModded2080Ti);
    REQUIRE(result["gpus"].size() == 1);
    CHECK(result["gpus"][0]["id"] == "rtx-2080-ti-22gb");
    CHECK(result["gpus"][0]["count"] == 4);

    // QLoRA (QLoRA paper §3): 32.8B weights at ~4.13 bits are ~17 GB; adapters,
    // checkpointed activations and the CUDA context fit within 4 x 22 GB.
    const Json& qwen32 = rowOf(result, "qwen2.5-32b")["tasks"];
    CHECK(qwen32["qlora"]["fits"] == true);
    CHECK(qwen32["qlora"]["gpus_used"].get<int>() <= 4);
    CHECK(qwen32["qlora"]["train_tokens_per_s"].get<double>() > 0);
    CHECK(qwen32["qlora"]["weights"] == "nf4-dq");

    // Full fine-tuning with AdamW keeps 16 bytes per parameter of model states
    // (ZeRO paper §3): 7.6B x 16 B = 122 GB, 30 GB per GPU even sharded four
    // ways, above the card's 22 GB before any activation.
    const Json& qwen7 = rowOf(result, "qwen2.5-7b")["tasks"];
    CHECK(qwen7["full"]["fits"] == false);
    CHECK(qwen7["full"]["gpus_used"] == 0);
    CHECK(qwen7["full"]["train_tokens_per_s"].is_null());
    // ... while its inference fits on one card in 16-bit (15 GB of weights).
    CHECK(qwen7["inference"]["fits"] == true);
    CHECK(qwen7["inference"]["gpus_used"] == 1);
    CHECK(qwen7["inference"]["decode_tokens_per_s"].get<double>() > 0);
}

TEST_CASE("an inventory entry says whether its plan checkpoints, as the estimate of it does", "[inventory]") {
    // Training requests leave gradient_checkpointing "auto": the planner turns
    // it on where it is needed to fit (docs/CONTRACT.md). The inventory's
    // answer must name the plan's choice, not the request's unset knob.
    const Json result = call(R"({"inventory":[{"gpu":"2080 Ti 22GB","count":4}],"model":["qwen2.5-32b"]})");
    const Json& lora = rowOf(result, "qwen2.5-32b")["tasks"]["lora"];
    // The inventory asks for the fewest GPUs within those owned (an "auto"
    // count with max_gpus the count owned; inventory.cpp sizeOn): the
    // estimate of the same request. (Stated at 4 GPUs the plan differs: the
    // GPUs hold a layer split there, which a single card under ZeRO-Infinity
    // needs fewer of.)
    const caliper::ApiResponse single = caliper::estimateJson(
        projectCatalog(),
        R"({"model":"qwen2.5-32b","gpu":"2080 Ti 22GB","gpu_count":"auto","max_gpus":4,"task":"finetune","method":"lora"})");
    REQUIRE(single.status == 0);
    const Json estimate = Json::parse(single.json);
    CHECK(lora["total_gib"] == estimate["memory"]["total_gib"]);
    CHECK(lora["gradient_checkpointing"] == estimate["plan"]["gradient_checkpointing"]);
}

TEST_CASE("inference uses the best weight format that fits the owned GPUs", "[inventory]") {
    const Json result = call(kModded2080Ti);
    // 70B in 16-bit is 141 GB, above 4 x 22 GB: the answer steps down to an
    // 8-bit or 4-bit format (Turing has no FP8 units, so not fp8).
    const Json& llama70 = rowOf(result, "llama-3.1-70b")["tasks"]["inference"];
    REQUIRE(llama70["fits"] == true);
    const std::string weights = llama70["weights"];
    CHECK((weights == "int8" || weights == "awq-int4"));
    // 8B in 16-bit (16 GB) fits a 22 GB card: no reason to quantize. The
    // 2080 Ti has no bf16, so its 16-bit format is fp16.
    CHECK(rowOf(result, "llama-3.1-8b")["tasks"]["inference"]["weights"] == "fp16");
    // An explicit format is respected as given.
    const Json fixed = call(R"({"inventory":[{"gpu":"2080 Ti 22GB","count":4}],"weights":"awq-int4"})");
    CHECK(rowOf(fixed, "llama-3.1-8b")["tasks"]["inference"]["weights"] == "awq-int4");
}

TEST_CASE("owning more GPUs of a type never runs fewer tasks", "[inventory]") {
    const Json four = call(kModded2080Ti);
    const Json eight = call(R"({"inventory":[{"gpu":"2080 Ti 22GB","count":8}]})");
    REQUIRE(four["rows"].size() == eight["rows"].size());
    for (std::size_t i = 0; i < four["rows"].size(); ++i) {
        for (const char* task : {"inference", "lora", "qlora", "full"}) {
            const Json& a = four["rows"][i]["tasks"][task];
            const Json& b = eight["rows"][i]["tasks"][task];
            INFO(four["rows"][i]["model_id"] << " " << task);
            if (a["fits"].get<bool>()) CHECK(b["fits"] == true);
            // A fit uses at most the GPUs owned; more owned never runs it slower.
            if (a["fits"].get<bool>()) CHECK(a["gpus_used"].get<int>() <= 4);
            if (b["fits"].get<bool>()) CHECK(b["gpus_used"].get<int>() <= 8);
            const char* speed = std::string(task) == "inference" ? "decode_tokens_per_s" : "train_tokens_per_s";
            if (a["fits"].get<bool>() && a["weights"] == b["weights"] && a[speed].is_number() && b[speed].is_number()) {
                CHECK(b[speed].get<double>() >= a[speed].get<double>() * (1 - 1e-9));
            }
        }
    }
}

TEST_CASE("an inventory entry's GPU count is the plan its speed describes", "[inventory]") {
    // Mistral Small 3.1 24B in 16-bit fits three 2080 Ti 22GB as a pipeline,
    // but its 32 heads and 8 KV heads split over four by tensor parallelism,
    // which the planner takes where it is faster per GPU (planner.cpp,
    // count_faster_per_gpu): the entry says four, as the estimate at four does.
    const Json result = call(R"({"inventory":[{"gpu":"2080 Ti 22GB","count":4}],"model":["mistral-small-3.1-24b"]})");
    const Json& inference = rowOf(result, "mistral-small-3.1-24b")["tasks"]["inference"];
    REQUIRE(inference["fits"] == true);
    CHECK(inference["gpus_needed"] == 3);
    CHECK(inference["gpus_used"] == 4);
    CHECK(inference["strategy"] == "tensor");
    const Json atFour = Json::parse(caliper::estimateJson(projectCatalog(),
        R"({"model":"mistral-small-3.1-24b","gpu":"2080 Ti 22GB","gpu_count":4,"weights":")" +
            inference["weights"].get<std::string>() + R"("})").json);
    CHECK(inference["decode_tokens_per_s"].get<double>() == Approx(atFour["decode_tokens_per_s"].get<double>()));
    // Owning three, the same model runs on the three as a pipeline.
    const Json three = call(R"({"inventory":[{"gpu":"2080 Ti 22GB","count":3}],"model":["mistral-small-3.1-24b"]})");
    CHECK(rowOf(three, "mistral-small-3.1-24b")["tasks"]["inference"]["gpus_used"] == 3);
}

TEST_CASE("8x A800 80GB runs full fine-tuning of a 7B and 16-bit inference of a 70B", "[inventory]") {
    const Json result = call(R"({"inventory":[{"gpu":"a800","count":8}],"model":["qwen2.5-7b","llama-3.1-70b"]})");
    REQUIRE(result["rows"].size() == 2);
    // 122 GB of model states over 8 x 80 GB (ZeRO-3: 15 GB each).
    CHECK(rowOf(result, "qwen2.5-7b")["tasks"]["full"]["fits"] == true);
    // 141 GB of bf16 weights over up to 8 x 80 GB.
    const Json& llama70 = rowOf(result, "llama-3.1-70b")["tasks"]["inference"];
    CHECK(llama70["fits"] == true);
    CHECK(llama70["weights"] == "bf16");
    CHECK(llama70["gpus_used"].get<int>() >= 2);
}

TEST_CASE("a mixed inventory is evaluated per GPU type, and says so", "[inventory]") {
    const Json result = call(R"({"inventory":[{"gpu":"2080 Ti 22GB","count":4},{"gpu":"a800","count":4}],)"
                             R"("model":["qwen2.5-7b","llama-3.1-70b"]})");
    REQUIRE(result["gpus"].size() == 2);
    CHECK(result["notes"].dump().find("mixed_inventory") != std::string::npos);
    for (const Json& row : result["rows"]) {
        for (const auto& [task, fit] : row["tasks"].items()) {
            REQUIRE(fit["by_gpu"].size() == 2);
            bool anyFits = false;
            for (const Json& group : fit["by_gpu"]) anyFits = anyFits || group["fits"].get<bool>();
            // The headline answer fits whenever one of the types does.
            CHECK(fit["fits"].get<bool>() == anyFits);
        }
    }
    // 7B full fine-tuning: 122 GB of states sharded over 4 x 80 GB leave room
    // for activations; over 4 x 22 GB they do not fit (30 GB per GPU).
    const Json& full7 = rowOf(result, "qwen2.5-7b")["tasks"]["full"];
    CHECK(full7["fits"] == true);
    CHECK(full7["gpu_id"] == "a800-sxm4-80gb");
}

TEST_CASE("the same GPU listed twice is one group with the counts added", "[inventory]") {
    const Json result = call(R"({"inventory":[{"gpu":"4090","count":2},{"gpu":"RTX 4090","count":3}],"model":["qwen2.5-7b"]})");
    REQUIRE(result["gpus"].size() == 1);
    CHECK(result["gpus"][0]["count"] == 5);
    CHECK(result["notes"].empty());
}

TEST_CASE("page requests for any task are accepted; the context is shared", "[inventory]") {
    // The page sends its current task and the context as seq_len; inference
    // then splits it into a prompt and 512 generated tokens.
    const Json result = call(R"({"inventory":[{"gpu":"4090","count":1}],"task":"finetune","method":"lora",)"
                             R"("seq_len":4096,"batch":1,"train_tokens":1e8,"currency":"cny","model":["qwen2.5-7b"]})");
    CHECK(result["workload"]["inference"]["prompt_tokens"] == 3584);
    CHECK(result["workload"]["inference"]["output_tokens"] == 512);
    CHECK(result["workload"]["training"]["seq_len"] == 4096);
    CHECK(result["workload"]["inference"]["engine"] == "vllm");
    CHECK(result["workload"]["training"]["engine"] == "transformers");
    // The stated batch is the training micro-batch; without one, each entry
    // searches it (the training default) and the workload says so.
    CHECK(result["workload"]["training"]["batch"] == 1);
    const Json unstated = call(R"({"inventory":[{"gpu":"4090","count":1}],"model":["qwen2.5-7b"]})");
    CHECK(unstated["workload"]["training"]["batch"] == "auto");
    CHECK(unstated["workload"]["inference"]["batch"] == 1);
}

TEST_CASE("bad inventory requests name the offending entry", "[inventory][errors]") {
    struct Case {
        const char* request;
        const char* code;
        const char* path;
    };
    const Case c = GENERATE(values<Case>({
        {R"({"inventory":[{"gpu":"2080 Ti 22GB","count":0}]})", "invalid_value", "/inventory/0/count"},
        {R"({"inventory":[{"gpu":"a800","count":1},{"gpu":"2080 Ti 33GB","count":1}]})", "unknown_gpu",
         "/inventory/1/gpu"},
        {R"({"inventory":[{"count":1}]})", "missing_key", "/inventory/0/gpu"},
        {R"({"inventory":[]})", "invalid_value", "/inventory"},
        {R"({"inventory":"4090"})", "invalid_value", "/inventory"},
        {R"({})", "missing_key", "/inventory"},
        {R"({"inventory":[{"gpu":"a800","count":8,"speed":1}]})", "unknown_key", "/inventory/0/speed"},
        {R"({"inventory":[{"gpu":"a800"}],"model":["nope"]})", "unknown_model", "/model/0"},
        {R"({"inventory":[{"gpu":"a800"}],"batch":0})", "invalid_value", "/batch"},
    }));
    const Json result = call(c.request, 2);
    CHECK(result["error"]["code"] == c.code);
    CHECK(result["error"]["path"] == c.path);
}

TEST_CASE("an unknown GPU gets a suggestion", "[inventory][errors]") {
    const Json result = call(R"({"inventory":[{"gpu":"2080 Ti 33GB","count":4}]})", 2);
    CHECK(result["error"]["message"].get<std::string>().find("did you mean 'NVIDIA GeForce RTX 2080 Ti") != std::string::npos);
}
