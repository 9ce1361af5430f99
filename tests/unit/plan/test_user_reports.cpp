// Answers a user reads side by side must agree: the engine named in the
// result, Ollama's flash-attention default per architecture, why a plan
// whose memory fits does not fit, and the KV-pool warning when the serving
// engine would not start.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "api_fixture.hpp"

using caliper::test::estimateOk;
using Json = nlohmann::json;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const Json* warning(const Json& r, const std::string& code) {
    for (const Json& w : r["warnings"]) {
        if (w["code"] == code) return &w;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("the result names the engine its figures assume", "[result][engine]") {
    // docs/CONTRACT.md "Result": `engine` beside `workload`, the request's or
    // the default for the task and platform.
    CHECK(estimateOk(R"({"model":"llama-3.1-8b","gpu":"h100"})")["engine"] == "vllm");
    // Unified-memory machines default to llama.cpp (CONTRACT `engine`).
    CHECK(estimateOk(R"({"model":"llama-3.1-8b","gpu":"dgx-spark-gb10"})")["engine"] == "llama.cpp");
    const Json lora = estimateOk(R"({"model":"llama-3.1-8b","gpu":"h100","task":"finetune","method":"lora","engine":"unsloth"})");
    CHECK(lora["engine"] == "unsloth");
    CHECK(lora["engine"] == lora["scenario"]["engine"]);
}

TEST_CASE("ollama turns flash attention on for the architectures it enables it for", "[engines][ollama]") {
    // Ollama enables flash attention by default for gpt-oss (ollama/ollama
    // #11996), gemma3 (#12639), qwen3/qwen3moe (#12482) and qwen3vl (#12862);
    // other architectures keep OLLAMA_FLASH_ATTENTION's unset default, off.
    CHECK(estimateOk(R"({"model":"gpt-oss-20b","gpu":"rtx-4090","engine":"ollama"})")["scenario"]["flash_attention"] == true);
    CHECK(estimateOk(R"({"model":"qwen3-30b-a3b","gpu":"rtx-4090","engine":"ollama"})")["scenario"]["flash_attention"] == true);
    CHECK(estimateOk(R"({"model":"gemma-3-27b","gpu":"rtx-4090","engine":"ollama"})")["scenario"]["flash_attention"] == true);
    CHECK(estimateOk(R"({"model":"llama-3.1-8b","gpu":"rtx-4090","engine":"ollama"})")["scenario"]["flash_attention"] == false);
    CHECK(estimateOk(R"({"model":"gpt-oss-20b","gpu":"rtx-4090","engine":"ollama","flash_attention":false})")["scenario"]
                    ["flash_attention"] == false);

    // gpt-oss-120b on three RTX 4090s (72 GiB of VRAM, so num_ctx is the
    // model's 131,072 tokens). Without flash attention llama.cpp's compute
    // buffer holds the f32 attention scores of one 512-token micro-batch:
    // 131072 x 512 x 64 heads x 4 B = 16 GiB per GPU on top of ~20.6 GiB of
    // weights, over a 24 GB card; with it that buffer is gone and the split
    // fits (60 GiB of MXFP4 weights / 3 + 1.5 GiB of cache < 23.5 GiB) with
    // every layer on the GPUs.
    const std::string split = R"({"model":"gpt-oss-120b","gpu":"rtx-4090","gpu_count":3,"engine":"ollama")";
    const Json on = estimateOk(split + "}");
    const Json off = estimateOk(split + R"(,"flash_attention":false})");
    CHECK(off["memory"]["activations_gib"].get<double>() - on["memory"]["activations_gib"].get<double>() ==
          Approx(131072.0 * 512 * 64 * 4 / kGiB).epsilon(0.02));
    CHECK(on["fits"] == true);
    CHECK(on["gpus_needed"] == 3);
    CHECK(on["plan"]["offload"] == "none");
    // Without it the GPUs hold too little: Ollama keeps layers on the CPU.
    CHECK(off["plan"]["offload"] == "layers");
    // And no count of one machine (eight 4090s) holds every layer: Ollama
    // has no multi-node mode, so the fewest GPUs are those an "auto" count
    // finds for its split, which keeps layers on the CPU too.
    const Json offAuto = estimateOk(R"({"model":"gpt-oss-120b","gpu":"rtx-4090","engine":"ollama","flash_attention":false})");
    REQUIRE(offAuto["fits"] == true);
    CHECK(offAuto["plan"]["offload"] == "layers");
    CHECK(offAuto["plan"]["nodes"] == 1);
    CHECK(off["gpus_needed"] == offAuto["gpus_needed"]);
}

TEST_CASE("a plan whose memory fits but whose count it cannot use says so", "[planner][warnings]") {
    // Llama 3.1 8B has 32 layers: llama.cpp's layer split puts at most one
    // stage per layer, so 64 GPUs leave 32 idle and the count is not a usable
    // layout, while one GPU holds the model (8B x Q4_K_M < 5 GiB). (With the
    // strategy left "auto" the planner serves the count as replicas
    // instead: test_replicas.cpp.)
    const Json r = estimateOk(
        R"({"model":"llama-3.1-8b","gpu":"h100","gpu_count":64,"engine":"llama.cpp","weights":"Q4_K_M","parallel":{"strategy":"layer-split"}})");
    REQUIRE(r["fits"] == false);
    CHECK(r["memory"]["total_gib"].get<double>() < r["usable_memory_gib"].get<double>());
    const Json* w = warning(r, "does_not_fit");
    REQUIRE(w != nullptr);
    const std::string message = (*w)["message"];
    INFO(message);
    // Not "needs X GiB per GPU; offers Y", which the figures contradict.
    CHECK(message.find("cannot use 64 GPUs") != std::string::npos);
    CHECK(message.find("32 layers") != std::string::npos);
    CHECK(r["gpus_needed"] == 1);
}

TEST_CASE("the KV-pool warning says the engine would not start where serving has no figures", "[serving][warnings]") {
    // Qwen2.5 72B bf16 over two A800s: 67.7 GiB of weights per GPU against
    // 0.9 x 80 = 72 GiB. vLLM's own start-up pool subtracts ~2.1 GiB outside
    // PyTorch at tp 2 (NCCL, custom all-reduce) and the activation peak
    // (2.2 GiB), which leaves less than one 2,560-token request (80 layers x
    // 8 KV heads x 128 x 2 x 2 B / 2 ranks x 2560 = 0.39 GiB): no serving
    // figures, and no warning may point at serving.max_concurrency.
    const Json r = estimateOk(R"({"model":"qwen2.5-72b","gpu":"a800-sxm4-80gb","gpu_count":2,"batch":16})");
    REQUIRE(r["serving"].is_null());
    const Json* w = warning(r, "kv_pool_too_small");
    REQUIRE(w != nullptr);
    const std::string message = (*w)["message"];
    INFO(message);
    CHECK(message.find("serving.max_concurrency") == std::string::npos);
    CHECK(message.find("refuses to start") != std::string::npos);
}

TEST_CASE("a matrix cell under ollama takes its row's flash-attention default, as the estimate does", "[matrix][ollama]") {
    // CONTRACT "Matrix": a cell equals the single estimate of the same
    // scenario. Ollama's flash attention is on for gpt-oss and off for Llama
    // (ollama/ollama #11996), so one column holds cells of both defaults:
    // each must match its own estimate at the auto count, whatever row the
    // column was resolved with.
    const caliper::ApiResponse response = caliper::matrixJson(
        caliper::test::projectCatalog(),
        R"({"model":["llama-3.1-70b","gpt-oss-120b"],"gpu":["rtx-4090","h100"],"engine":"ollama","max_gpus":16})");
    REQUIRE(response.status == 0);
    const Json matrix = Json::parse(response.json);
    const char* models[] = {"llama-3.1-70b", "gpt-oss-120b"};
    const char* gpus[] = {"rtx-4090", "h100"};
    for (int m = 0; m < 2; ++m) {
        for (int g = 0; g < 2; ++g) {
            const Json& cell = matrix["cells"][m][g];
            const Json single = estimateOk(std::string(R"({"model":")") + models[m] + R"(","gpu":")" + gpus[g] +
                                           R"(","engine":"ollama","gpu_count":"auto","max_gpus":16})");
            INFO(models[m] << " on " << gpus[g]);
            CHECK(cell["gpus_needed"] == single["gpus_needed"]);
            CHECK(cell["total_gib"].get<double>() == Approx(single["memory"]["total_gib"].get<double>()).epsilon(1e-4));
        }
    }
}

TEST_CASE("a matrix cell the single estimate rejects runs nothing", "[matrix][engines]") {
    // TensorRT-LLM runs on NVIDIA GPUs only: the estimate of Llama 3.1 8B on an
    // MI300X under it is incompatible_options (CONTRACT "Rejected input"), so
    // that matrix cell has no count and no figures, while the H100 cell keeps
    // its estimate's (one GPU).
    const caliper::ApiResponse response =
        caliper::matrixJson(caliper::test::projectCatalog(),
                            R"({"model":["llama-3.1-8b"],"gpu":["mi300x","h100"],"engine":"tensorrt-llm","max_gpus":8})");
    REQUIRE(response.status == 0);
    const Json matrix = Json::parse(response.json);
    const Json& amd = matrix["cells"][0][0];
    CHECK(amd["status"] == "no");
    CHECK(amd["gpus_needed"].is_null());
    CHECK(amd["decode_tokens_per_s"].is_null());
    const caliper::ApiResponse single =
        caliper::estimateJson(caliper::test::projectCatalog(), R"({"model":"llama-3.1-8b","gpu":"mi300x","engine":"tensorrt-llm"})");
    CHECK(single.status == 2);
    const Json& nvidia = matrix["cells"][0][1];
    CHECK(nvidia["status"] == "fits");
    CHECK(nvidia["gpus_needed"] == 1);
}

TEST_CASE("vLLM's fit never returns as the batch grows: the engine's pool decides between holding and queueing",
          "[memory][kv_pool]") {
    // Llama 3.1 8B on an RTX 4090 under vLLM: the engine's start-up pool holds
    // max_concurrency requests of 2,048 + 512 tokens; a batch within it runs
    // whole, a batch past it runs what the pool holds and queues the rest.
    // Either way vLLM starts within its gpu_memory_utilization budget, so the
    // verdict cannot go fits -> does not fit -> fits as the batch grows.
    const Json large = estimateOk(R"({"model":"llama-3.1-8b","gpu":"rtx-4090","batch":64})");
    REQUIRE(large["fits"] == true);
    const int pooled = static_cast<int>(large["serving"]["max_concurrency"].get<double>());
    REQUIRE(pooled > 4);
    for (int batch = pooled - 4; batch <= pooled + 2; ++batch) {
        INFO("batch " << batch);
        const Json r = estimateOk(R"({"model":"llama-3.1-8b","gpu":"rtx-4090","batch":)" + std::to_string(batch) + "}");
        CHECK(r["fits"] == true);
        CHECK(r["gpus_needed"] == 1);
        // The process shows its budget: gpu_memory_utilization 0.9 x 24 GB.
        CHECK(r["memory"]["total_gib"] == large["memory"]["total_gib"]);
    }
}

TEST_CASE("vLLM needs CUDA capability 7.0: a Pascal card is refused with it and serves with llama.cpp by default",
          "[compat][engine]") {
    // docs.vllm.ai installation (GPU, NVIDIA CUDA): "compute capability 7.0
    // or higher (e.g., V100, T4, RTX20xx, A100, L4, H100, etc.)". The Tesla
    // P40 is 6.1.
    const caliper::ApiResponse response =
        caliper::estimateJson(caliper::test::projectCatalog(), R"({"model":"llama-3.1-8b","gpu":"p40","engine":"vllm"})");
    CHECK(response.status != 0);
    const Json refused = Json::parse(response.json);
    CHECK(refused["ok"] == false);
    CHECK(refused["error"]["code"] == "incompatible_options");
    CHECK(refused["error"]["path"] == "/engine");
    CHECK(estimateOk(R"({"model":"llama-3.1-8b","gpu":"p40"})")["engine"] == "llama.cpp");
    // Volta (7.0) keeps vLLM.
    CHECK(estimateOk(R"({"model":"llama-3.1-8b","gpu":"v100-pcie-32gb"})")["engine"] == "vllm");
}

TEST_CASE("Ollama's auto count stays on one machine and splits layers onto the CPU past it", "[engines][ollama]") {
    // Ollama is one server process scheduling the local GPUs; it has no
    // multi-node mode. Llama 3.1 70B at Ollama's 128k default context (48 GiB
    // of VRAM and more) was planned on 14 RTX 4090s over two servers; on one
    // Mac the model was spread over two Macs.
    for (const char* gpu : {"rtx-4090", "apple-m4-max-40c"}) {
        INFO(gpu);
        const Json r = estimateOk(std::string(R"({"model":"llama-3.1-70b","engine":"ollama","gpu":")") + gpu + "\"}");
        REQUIRE(r["fits"] == true);
        CHECK(r["plan"]["nodes"] == 1);
        CHECK(r["plan"]["gpu_count"].get<int>() <= r["plan"]["gpus_per_node"].get<int>());
    }
}
