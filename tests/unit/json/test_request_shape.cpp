// The scenario shape docs/CONTRACT.md "Scenario (request)" documents is the
// one the reader accepts: its example request as printed, each documented
// key read (never refused as unknown), and what an estimate says of them.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "api_fixture.hpp"
#include "result_fixture.hpp"

using caliper::test::hasWarning;
using caliper::test::estimateOk;
using Json = nlohmann::json;

namespace {

std::string contractText() {
    std::ifstream in(std::string(CALIPER_DATA_DIR) + "/../docs/CONTRACT.md");
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string explainFormula(const Json& result, const std::string& term) {
    for (const auto& t : result["explain"]) {
        if (t["term"] == term) return t["formula"].get<std::string>();
    }
    FAIL("no explain term " << term);
    return "";
}

}  // namespace

TEST_CASE("the contract's example scenario is accepted as printed", "[api][contract]") {
    // The first ```json block under "## Scenario (request)": every key with
    // its default, null where the planner chooses (method, parallel.nodes,
    // the SLO's targets).
    const std::string text = contractText();
    const std::size_t section = text.find("## Scenario (request)");
    REQUIRE(section != std::string::npos);
    const std::size_t open = text.find("```json\n", section);
    const std::size_t close = text.find("```", open + 8);
    REQUIRE(open != std::string::npos);
    const Json request = Json::parse(text.substr(open + 8, close - open - 8));
    REQUIRE(request.contains("slo"));
    REQUIRE(request["parallel"].contains("nodes"));
    const Json result = estimateOk(request.dump());
    CHECK(result["fits"] == true);
    CHECK_FALSE(hasWarning(result, "slo_not_met"));  // no target set: nothing judged
}

TEST_CASE("parallel.nodes spreads a stated count over equal servers", "[api][contract][clusters]") {
    // 16 H100s as 2 DGX H100 (8 each, NVIDIA DGX H100 datasheet) or as 4
    // servers of 4: the plan reports the servers the request gave.
    const Json two = estimateOk(R"({"model":"llama-3.1-70b","gpu":"h100-sxm5-80gb","gpu_count":16,"task":"pretrain",)"
                                R"("parallel":{"nodes":2}})");
    CHECK(two["plan"]["nodes"] == 2);
    CHECK(two["plan"]["gpus_per_node"] == 8);
    const Json four = estimateOk(R"({"model":"llama-3.1-70b","gpu":"h100-sxm5-80gb","gpu_count":16,"task":"pretrain",)"
                                 R"("parallel":{"nodes":4}})");
    CHECK(four["plan"]["nodes"] == 4);
    CHECK(four["plan"]["gpus_per_node"] == 4);
    // Tensor parallelism stays inside a node (docs/CONTRACT.md "interconnect"):
    // four GPUs per server cap it at 4.
    CHECK(four["plan"]["tp"].get<int>() <= 4);
}

TEST_CASE("an estimate with an SLO says where its serving figures miss it", "[api][serving]") {
    // Llama 3.1 8B on one H100 under vLLM: the first token of a 2,048-token
    // prompt takes tens of milliseconds (2 x 8B x 2,048 FLOPs at a fraction
    // of 989 dense bf16 TFLOP/s), so a 10 ms TTFT target is missed and a 10 s
    // one is met.
    const Json missed = estimateOk(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","slo":{"ttft_s":0.01}})");
    REQUIRE(missed["serving"].is_object());
    CHECK(missed["serving"]["ttft_s"].get<double>() > 0.01);
    CHECK(hasWarning(missed, "slo_not_met"));
    const Json met = estimateOk(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","slo":{"ttft_s":10}})");
    CHECK_FALSE(hasWarning(met, "slo_not_met"));
    // Hugging Face transformers has no continuous-batching figures to judge.
    const Json eager = estimateOk(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","engine":"transformers",)"
                                  R"("slo":{"ttft_s":10}})");
    CHECK(eager["serving"].is_null());
    CHECK(hasWarning(eager, "slo_not_judged"));
}

TEST_CASE("the weights_format term says why the weights are in their format", "[api][explain]") {
    // QLoRA's base is 4-bit NormalFloat with double quantization (Dettmers et
    // al. 2023, §3), not the checkpoint's 16-bit precision.
    const Json qlora = estimateOk(R"({"model":"qwen2.5-32b","gpu":"rtx-2080-ti-22gb","gpu_count":4,)"
                                  R"("task":"finetune","method":"qlora"})");
    const std::string q = explainFormula(qlora, "weights_format");
    CHECK(q.find("nf4-dq") == 0);
    CHECK(q.find("QLoRA") != std::string::npos);
    CHECK(q.find("16-bit, the checkpoint's own precision") == std::string::npos);
    // Ollama's library tags ship Q4_K_M (docs/import.md).
    const Json ollama = estimateOk(R"({"model":"llama-3.1-8b","gpu":"rtx-4090","engine":"ollama"})");
    const std::string o = explainFormula(ollama, "weights_format");
    CHECK(o.find("Q4_K_M") == 0);
    CHECK(o.find("Ollama") != std::string::npos);
    // A 16-bit checkpoint served as it ships.
    const Json plain = estimateOk(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb"})");
    CHECK(explainFormula(plain, "weights_format") == "bf16: 16-bit, the checkpoint's own precision");
}

TEST_CASE("a KV pool too small for the batch is said once", "[api][serving]") {
    // Qwen2.5 72B in bf16 on two H100s (tp 2): 145 GB of weights leave ~0.5 GiB
    // of each GPU's 0.9 x 80 GB pool, short of 50 requests' cache. The memory
    // estimate names the sizes; the serving model must not add a second
    // warning of the same code (the page shows one text per code).
    const Json r = estimateOk(R"({"model":"qwen2.5-72b","gpu":"h100-sxm5-80gb","gpu_count":2,"batch":50,)"
                              R"("kv_cache":"fp8","parallel":{"tp":2}})");
    int count = 0;
    for (const auto& w : r["warnings"]) count += w["code"] == "kv_pool_too_small";
    CHECK(count == 1);
}

TEST_CASE("a gpu_filter value no GPU carries is refused at its pointer, not an empty answer", "[api][errors]") {
    // Groups are datacenter, workstation, consumer, china and other
    // (gpu_selection.cpp gpuGroup); "hopper" is an architecture, so the
    // filter would have emptied the matrix and the recommendation silently.
    for (const auto& call : {&caliper::matrixJson, &caliper::recommendJson}) {
        const caliper::ApiResponse r =
            call(caliper::test::projectCatalog(), R"({"model":"llama-3.1-8b","gpu_filter":{"groups":["hopper"]}})", false);
        INFO(r.json);
        REQUIRE(r.status == 2);
        const Json e = Json::parse(r.json)["error"];
        CHECK(e["code"] == "invalid_value");
        CHECK(e["path"] == "/gpu_filter/groups/0");
        CHECK(e["message"].get<std::string>().find("datacenter") != std::string::npos);
    }
    // Vendors are written as people write them: "NVIDIA" is nvidia.
    const caliper::ApiResponse nvidia = caliper::matrixJson(
        caliper::test::projectCatalog(), R"({"model":["llama-3.1-8b"],"gpu_filter":{"vendors":["NVIDIA"]}})", false);
    REQUIRE(nvidia.status == 0);
    const Json gpus = Json::parse(nvidia.json)["gpus"];
    REQUIRE(gpus.size() > 0);
    for (const auto& g : gpus) CHECK(g["vendor"] == "nvidia");
}
