// Offload to the host: llama.cpp's -ngl (offload "layers") and --n-cpu-moe
// (offload "moe-experts") split the weights between VRAM and host RAM; the
// host RAM and its bandwidth come from `host` (defaults by platform);
// training offload refuses when the host RAM is too small; Apple defaults.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "caliper/api.hpp"
#include "api_fixture.hpp"
#include "catalog_fixture.hpp"
#include "result_fixture.hpp"

using caliper::test::hasWarning;
using caliper::test::projectCatalog;
using Json = nlohmann::json;

using caliper::test::estimateOk;

namespace {

double term(const Json& r, const std::string& name) {
    for (const Json& e : r["explain"]) {
        if (e["term"] == name) return e["value"].get<double>();
    }
    return -1;
}

Json allOnCpu(int batch, int promptTokens, const char* host = "") {
    return estimateOk(std::string(R"({"model":"llama-3.1-8b","gpu":"4090","engine":"llama.cpp","weights":"Q4_K_M",
        "parallel":{"offload":"layers","gpu_layers":0},"output_tokens":256,"batch":)") + std::to_string(batch) +
                      R"(,"prompt_tokens":)" + std::to_string(promptTokens) + host + "}");
}

struct Rejection {
    const char* request;
    const char* code;
    const char* path;
};

}  // namespace

TEST_CASE("gpt-oss-120b on one 24 GB card with its experts partly in host RAM", "[offload]") {
    // 36 MoE layers, each with 128 experts of 3 x 2880 x 2880 MXFP4 weights
    // (4.25 bits): 1.69 GB = 1.57 GiB per layer; the model is ~60.8 GiB, so
    // about (60.8 - ~20) / 1.57 = ~26 layers' experts must stay on the CPU
    // for the rest to fit 24 GB (llama.cpp --n-cpu-moe).
    const Json r = estimateOk(R"({"model":"gpt-oss-120b","gpu":"4090","engine":"llama.cpp",
        "parallel":{"offload":"moe-experts"},"host":{"ram_gib":96}})");
    CHECK(r["fits"] == true);
    const int cpuMoe = r["plan"]["cpu_moe_layers"].get<int>();
    CHECK(cpuMoe >= 20);
    CHECK(cpuMoe <= 32);
    CHECK(r["memory"]["cpu_offload_gib"].get<double>() == Approx(cpuMoe * 1.57).margin(2.5));
    CHECK(r["decode_tokens_per_s"].get<double>() > 0);
    CHECK(hasWarning(r, "cpu_offload_slow"));
    // One layer fewer on the CPU does not fit (the planner keeps the fewest).
    Json fewer = Json::parse(R"({"model":"gpt-oss-120b","gpu":"4090","engine":"llama.cpp","parallel":{"offload":"moe-experts"},"host":{"ram_gib":96}})");
    fewer["parallel"]["cpu_moe_layers"] = cpuMoe - 1;
    CHECK(estimateOk(fewer.dump())["fits"] == false);
    // 16 GiB of RAM cannot hold the offloaded experts.
    const Json small = estimateOk(R"({"model":"gpt-oss-120b","gpu":"4090","engine":"llama.cpp",
        "parallel":{"offload":"moe-experts"},"host":{"ram_gib":16}})");
    CHECK(small["fits"] == false);
    CHECK(hasWarning(small, "host_ram_too_small"));
}

TEST_CASE("a 70B model in Q4_K_M on a 24 GB card with -ngl", "[offload]") {
    // ~40 GiB of Q4_K_M weights over 80 layers (~0.5 GiB each): about half
    // the layers fit beside the KV cache and buffers.
    const Json r = estimateOk(R"({"model":"llama-3.1-70b","gpu":"4090","engine":"llama.cpp","weights":"Q4_K_M",
        "parallel":{"offload":"layers"}})");
    CHECK(r["fits"] == true);
    const int layers = r["plan"]["gpu_layers"].get<int>();
    CHECK(layers >= 30);
    CHECK(layers < 80);
    // Decode is bounded by the host part: 89.6 GB/s desktop DDR5 at 0.75
    // reads the ~20 GB on the CPU in ~0.3 s, so a few tokens per second.
    CHECK(r["decode_tokens_per_s"].get<double>() < 10);
    CHECK(r["decode_tokens_per_s"].get<double>() > 0.5);
    // All layers asked on the GPU: does not fit.
    const Json all = estimateOk(R"({"model":"llama-3.1-70b","gpu":"4090","engine":"llama.cpp","weights":"Q4_K_M",
        "parallel":{"offload":"layers","gpu_layers":80}})");
    CHECK(all["fits"] == false);
}

TEST_CASE("offload input errors name their JSON pointer", "[offload][errors]") {
    const Rejection rejection = GENERATE(values<Rejection>({
        {R"({"model":"llama-3.1-8b","gpu":"4090","engine":"llama.cpp","parallel":{"offload":"layers","gpu_layers":200}})",
         "invalid_value", "/parallel/gpu_layers"},
        {R"({"model":"llama-3.1-8b","gpu":"4090","engine":"llama.cpp","parallel":{"offload":"moe-experts","cpu_moe_layers":2}})",
         "incompatible_options", "/parallel/cpu_moe_layers"},
        {R"({"model":"llama-3.1-8b","gpu":"4090","host":{"ram_gib":0}})", "invalid_value", "/host/ram_gib"},
        {R"({"model":"llama-3.1-8b","gpu":"4090","host":{"ram_gib":-4}})", "invalid_value", "/host/ram_gib"},
        {R"({"model":"llama-3.1-8b","gpu":"4090","host":{"cpu_tflops":0}})", "invalid_value", "/host/cpu_tflops"},
        {R"({"model":"llama-3.1-8b","gpu":"4090","engine":"vllm","parallel":{"offload":"layers"}})",
         "incompatible_options", "/parallel/offload"},
        {R"({"model":"llama-3.1-8b","gpu":"4090","host":{"gpu_wired_limit_gib":20}})", "incompatible_options",
         "/host/gpu_wired_limit_gib"},
    }));
    const caliper::ApiResponse response = caliper::estimateJson(projectCatalog(), rejection.request);
    INFO(rejection.request << " -> " << response.json);
    REQUIRE(response.status == 2);
    const Json error = Json::parse(response.json)["error"];
    CHECK(error["code"] == rejection.code);
    CHECK(error["path"] == rejection.path);
}

TEST_CASE("training offload states its host RAM and refuses when the host is too small", "[offload]") {
    // Full fine-tuning of 8.03e9 parameters with AdamW offloaded: 12 B of
    // fp32 master weights and moments per parameter = ~90 GiB in host RAM.
    const std::string base = R"({"model":"llama-3.1-8b","gpu":"4090","gpu_count":1,"task":"finetune","method":"full",
        "parallel":{"strategy":"zero3","offload":"optimizer"},"host":{"ram_gib":RAM}})";
    auto with = [&](const char* ram) {
        std::string text = base;
        text.replace(text.find("RAM"), 3, ram);
        return estimateOk(text);
    };
    const Json small = with("32");
    CHECK(small["memory"]["cpu_offload_gib"].get<double>() > 32);
    CHECK(small["fits"] == false);
    CHECK(hasWarning(small, "host_ram_too_small"));
    const Json large = with("512");
    CHECK_FALSE(hasWarning(large, "host_ram_too_small"));
}

TEST_CASE("training offload past the host RAM assumed says so without refusing", "[offload]") {
    // ZeRO-3 with the optimizer offloaded keeps 16 bytes x 1.5 per parameter
    // in host RAM (DeepSpeed's estimate_zero3_model_states_mem_needs with
    // cpu_offload): 8.03e9 x 24 B = 193 GB = 179.5 GiB for Llama-3.1-8B, above
    // the 64 GiB a desktop is assumed to have. Unstated, the RAM does not
    // refuse the plan, but the answer warns (it was silent, with "64 GiB" and
    // "179.5 GiB" side by side only in explain).
    const Json assumed = estimateOk(R"({"model":"llama-3.1-8b","gpu":"2080 Ti 22GB","gpu_count":4,"task":"finetune",
        "method":"full","parallel":{"offload":"optimizer"}})");
    CHECK(assumed["memory"]["cpu_offload_gib"].get<double>() == Approx(179.5).margin(0.5));
    CHECK(assumed["fits"] == true);
    CHECK(hasWarning(assumed, "host_ram_assumed"));
    CHECK_FALSE(hasWarning(assumed, "host_ram_too_small"));
    const Json stated = estimateOk(R"({"model":"llama-3.1-8b","gpu":"2080 Ti 22GB","gpu_count":4,"task":"finetune",
        "method":"full","parallel":{"offload":"optimizer"},"host":{"ram_gib":256}})");
    CHECK_FALSE(hasWarning(stated, "host_ram_assumed"));
}

TEST_CASE("Apple: llama.cpp by default and the GPU's share of unified memory as a knob", "[offload][apple]") {
    const Json r = estimateOk(R"({"model":"llama-3.1-8b","gpu":"apple-m4-max-40c"})");
    CHECK(r["scenario"]["engine"] == "llama.cpp");
    // The catalog's 96 GiB is macOS's default wired limit on 128 GB (3/4);
    // `sysctl iogpu.wired_limit_mb` raises it.
    const Json raised = estimateOk(R"({"model":"llama-3.1-70b","gpu":"apple-m4-max-40c","host":{"gpu_wired_limit_gib":120}})");
    CHECK(raised["gpu"]["memory_gib"].get<double>() == Approx(120));
    const caliper::ApiResponse tooMuch = caliper::estimateJson(
        projectCatalog(), R"({"model":"llama-3.1-8b","gpu":"apple-m4-max-40c","host":{"gpu_wired_limit_gib":200}})");
    CHECK(tooMuch.status == 2);
}

TEST_CASE("a plan with layers or experts on the CPU has no GPU-only serving figures", "[offload][serving]") {
    // The serving step model runs every layer on the GPUs. With 24 layers'
    // experts of gpt-oss-120b on the CPU (as above) it answered ~180 tok/s and
    // a 0.13 s first token beside the estimate's own ~43 tok/s and 5 s, which
    // carry the host's share; with -ngl it warned that the pool (the GPU
    // layers' cache only) held no request although the plan fits.
    const Json experts = estimateOk(R"({"model":"gpt-oss-120b","gpu":"4090","engine":"llama.cpp",
        "parallel":{"offload":"moe-experts"}})");
    CHECK(experts["fits"] == true);
    CHECK(experts["serving"].is_null());
    CHECK(experts["decode_tokens_per_s"].get<double>() > 0);
    const Json layers = estimateOk(R"({"model":"llama-3.1-70b","gpu":"4090","engine":"llama.cpp","weights":"Q4_K_M",
        "parallel":{"offload":"layers"}})");
    CHECK(layers["fits"] == true);
    CHECK(layers["serving"].is_null());
    CHECK_FALSE(hasWarning(layers, "kv_pool_too_small"));
    // Every layer on the GPU (an 8B model fits the card): serving figures as before.
    const Json whole = estimateOk(R"({"model":"llama-3.1-8b","gpu":"4090","engine":"llama.cpp",
        "parallel":{"offload":"layers"}})");
    CHECK(whole["plan"]["gpu_layers"] == 32);
    CHECK(whole["serving"].is_object());
}

TEST_CASE("llama.cpp -ngl keeps the CPU layers' KV cache in host RAM", "[offload]") {
    // llama.cpp allocates each layer's cache on its layer's device: with 40 of
    // Llama-3.1-70B's 80 layers on the GPU, a longer context grows host RAM by
    // exactly what it adds to the GPU's cache (8 KV heads x 128 x 2 x 2 bytes
    // = 4 KiB per token and layer on either side).
    auto at = [](int prompt) {
        Json request = Json::parse(R"({"model":"llama-3.1-70b","gpu":"4090","engine":"llama.cpp","weights":"Q4_K_M",
            "output_tokens":128,"parallel":{"offload":"layers","gpu_layers":40}})");
        request["prompt_tokens"] = prompt;
        return estimateOk(request.dump());
    };
    const Json shortContext = at(512), longContext = at(8192);
    const double gpuGrowth = longContext["memory"]["kv_cache_gib"].get<double>() - shortContext["memory"]["kv_cache_gib"].get<double>();
    const double hostGrowth =
        longContext["memory"]["cpu_offload_gib"].get<double>() - shortContext["memory"]["cpu_offload_gib"].get<double>();
    CHECK(gpuGrowth > 1.0);  // 40 layers x 4 KiB x ~7,700 tokens = 1.17 GiB
    CHECK(hostGrowth == Approx(gpuGrowth).epsilon(1e-4));  // the JSON figures carry 6 significant digits
}

TEST_CASE("llama.cpp -ngl 0: one token per step is bound by host bandwidth, not CPU compute", "[offload][cpu]") {
    // Batch 1: the desktop default CPU (Ryzen 9 9950X, 4.403 TFLOPS FP32)
    // does ~16 GFLOP per token of an 8B model in ~4 ms, far below the
    // ~69 ms of reading ~4.6 GB at 0.75 x 89.6 GB/s: the host term is the read.
    const Json r = allOnCpu(1, 2048);
    const double readS = term(r, "decode_host_ms") / 1e3;
    REQUIRE(readS > 0);
    CHECK(r["decode_tokens_per_s"].get<double>() == Approx(1 / readS).epsilon(1e-3));
    CHECK_FALSE(hasWarning(r, "cpu_offload_compute_bound"));
    // A 2048-token prompt is 4 micro-batches of 512 (>= 32 tokens: ggml copies
    // the host weights to the GPU each time): 4 x the bytes read per decode step
    // (dense model: every host weight) over 31.5 GB/s PCIe 4.0 x16.
    const double hostBytes = readS * 0.75 * 89.6e9;
    CHECK(term(r, "prefill_host_copy_s") == Approx(4 * hostBytes / 31.5e9).epsilon(1e-6));
}

TEST_CASE("llama.cpp -ngl 0 below 32 tokens per step is bound by the CPU's compute", "[offload][cpu]") {
    // host.cpu_tflops 1: 24 tokens per step x ~16.2 GFLOP per token (2 x ~7.5B
    // host weights of Llama-3.1-8B without its input table, recovered from
    // bytes at the linear layers' Q4_K_M bits, plus attention 32 layers x 4 x
    // (2048 + 128) positions x 4096 = 1.14 GFLOP) = ~0.39 TFLOP: ~0.39 s per step
    // against ~0.07 s of reading, so ~62 tokens/s (1e12 / 16.2e9) whatever the batch.
    const char* cpu = R"(,"host":{"cpu_tflops":1})";
    const Json one = allOnCpu(1, 2048, cpu);
    const Json many = allOnCpu(24, 2048, cpu);
    CHECK(many["decode_tokens_per_s"].get<double>() == Approx(1e12 / 16.2e9).epsilon(0.05));
    CHECK(term(many, "decode_host_ms") > 5 * term(one, "decode_host_ms"));
    CHECK(hasWarning(many, "cpu_offload_compute_bound"));
    // Without the compute term the step would be the read alone: 24 / 0.069 s = ~350 tokens/s.
    CHECK(many["decode_tokens_per_s"].get<double>() < 0.25 * 24 * one["decode_tokens_per_s"].get<double>());
}

TEST_CASE("llama.cpp -ngl 0 at a huge batch pays the PCIe copy per micro-batch", "[offload][cpu]") {
    // 100,000 sequences: 196 micro-batches of up to 512 tokens, each copying
    // the ~4.6 GB of host weights over 31.5 GB/s (~0.147 s): ~28.7 s per step,
    // so at most 100,000 / 28.7 = ~3,500 tokens/s (not the host read alone).
    const Json r = allOnCpu(100000, 128);
    const double readS = term(allOnCpu(1, 128), "decode_host_ms") / 1e3;
    const double copyS = 196 * readS * 0.75 * 89.6e9 / 31.5e9;
    CHECK(term(r, "decode_host_ms") / 1e3 == Approx(copyS).epsilon(1e-6));
    CHECK(r["decode_tokens_per_s"].get<double>() <= 100000 / copyS);
}

TEST_CASE("a prompt under 32 tokens runs the host layers on the CPU; 32 pays the PCIe copy", "[offload][cpu]") {
    // 16 tokens: no copy (ggml keeps matmuls under 32 rows on the CPU); the
    // host term is the slower of the read and the compute.
    const Json shortPrompt = allOnCpu(1, 16);
    CHECK(term(shortPrompt, "prefill_host_copy_s") < 0);
    CHECK(term(shortPrompt, "prefill_host_cpu_s") > 0);
    // 32 tokens: one copy of the host weights, the bytes one decode step reads.
    const Json copied = allOnCpu(1, 32);
    const double hostBytes = term(copied, "decode_host_ms") / 1e3 * 0.75 * 89.6e9;
    CHECK(term(copied, "prefill_host_cpu_s") < 0);
    CHECK(term(copied, "prefill_host_copy_s") == Approx(hostBytes / 31.5e9).epsilon(1e-6));
}

TEST_CASE("the offload warning names the bound of the decode step: host memory below 32 tokens, PCIe from 32",
          "[offload][cpu][warnings]") {
    // ggml-cuda's offload_op (min_batch_size 32): a decode step of 1 token
    // reads the host weights on the CPU (host memory bandwidth bounds it); a
    // step of 64 tokens copies them to the GPU over PCIe once per 512-token
    // micro-batch, so the PCIe link bounds it, not host memory.
    const Json one = allOnCpu(1, 128);
    CHECK(hasWarning(one, "cpu_offload_slow"));
    CHECK_FALSE(hasWarning(one, "cpu_offload_pcie_bound"));
    const Json batched = allOnCpu(64, 128);
    CHECK(hasWarning(batched, "cpu_offload_pcie_bound"));
    CHECK_FALSE(hasWarning(batched, "cpu_offload_slow"));
    for (const Json& w : batched["warnings"]) {
        if (w["code"] == "cpu_offload_pcie_bound") CHECK(w["message"].get<std::string>().find("PCIe") != std::string::npos);
    }
}

TEST_CASE("Ollama keeps what fits on the GPU and runs the other layers on the CPU; llama.cpp keeps -ngl explicit",
          "[offload][ollama]") {
    // Llama 3.1 70B in Ollama's library quantization (Q4_K_M, ~4.9 bits a
    // weight: ~70.6e9 x 4.9 / 8 = ~43 GB) cannot fit a 24 GB RTX 4090.
    // Ollama's scheduler then places as many layers as fit on the GPU and the
    // rest on the CPU (ollama llm/memory.go estimateGPULayers), when system
    // memory holds them (the desktop default here: 64 GiB).
    const std::string base = R"({"model":"llama-3.1-70b","gpu":"4090","engine":"ollama")";
    const Json split = estimateOk(base + "}");
    CHECK(split["fits"] == true);
    CHECK(split["plan"]["offload"] == "layers");
    const int onGpu = split["plan"]["gpu_layers"].get<int>();
    CHECK(onGpu > 0);
    CHECK(onGpu < 80);  // of 80 layers
    // At least the ~40 GiB of weights less the 24 GB card's ~22 GiB stay in host RAM.
    CHECK(split["memory"]["cpu_offload_gib"].get<double>() > 40.0 - 22.5);
    CHECK(hasWarning(split, "ollama_layers_on_cpu"));
    CHECK(hasWarning(split, "cpu_offload_slow"));  // batch 1 reads the host layers on the CPU
    // A host too small for the rest: Ollama would refuse to load it.
    CHECK(estimateOk(base + R"(,"host":{"ram_gib":8}})")["fits"] == false);
    // Offload stated as none, or llama.cpp without -ngl: all on the GPU, which does not fit.
    CHECK(estimateOk(base + R"(,"parallel":{"offload":"none"}})")["fits"] == false);
    const Json llamaCpp = estimateOk(R"({"model":"llama-3.1-70b","gpu":"4090","engine":"llama.cpp","weights":"Q4_K_M"})");
    CHECK(llamaCpp["fits"] == false);
    CHECK(llamaCpp["plan"]["offload"] == "none");
}

TEST_CASE("an auto count with Ollama keeps every layer on the GPUs within the limit, else Ollama's split on the fewest",
          "[offload][ollama][planner]") {
    // Llama 3.3 70B at Ollama's Q4_K_M (~4.9 bits a weight: ~43 GB, ~40
    // GiB) on H100s: Ollama's num_ctx is 262144 above 48 GiB of VRAM
    // (within the model's 131,072), and 80 layers x 8 KV heads x 128 x 2 x
    // 2 bytes = 320 KiB a token make that context's cache 40 GiB: one 80 GB
    // H100 cannot hold both, two can. Within a limit of 2 the fastest plan
    // keeps every layer on those two; within a limit of 1 none does, and
    // Ollama started on one H100 loads what fits there and runs the rest
    // on the CPU (llm/memory.go estimateGPULayers), the host RAM (the
    // data-center default) holding the rest: the fewest GPUs.
    const std::string base = R"({"model":"llama-3.3-70b","gpu":"H100 SXM5","engine":"ollama","gpu_count":"auto")";
    const Json two = estimateOk(base + R"(,"max_gpus":2})");
    CHECK(two["fits"] == true);
    CHECK(two["plan"]["gpu_count"] == 2);
    CHECK(two["plan"]["offload"] == "none");
    const Json one = estimateOk(base + R"(,"max_gpus":1})");
    CHECK(one["fits"] == true);
    CHECK(one["plan"]["gpu_count"] == 1);
    CHECK(one["gpus_needed"] == 1);
    CHECK(one["plan"]["offload"] == "layers");
    CHECK(one["plan"]["gpu_layers"].get<int>() < 80);
    CHECK(one["plan"]["why"][1] == "count_fewest_that_fit");
    CHECK(one["plan"]["why"][2] == "ollama_layers_on_cpu");
    CHECK(hasWarning(one, "ollama_layers_on_cpu"));
    // The same split as at a stated count of one.
    const Json stated = estimateOk(R"({"model":"llama-3.3-70b","gpu":"H100 SXM5","engine":"ollama"})");
    CHECK(one["plan"]["gpu_layers"] == stated["plan"]["gpu_layers"]);
    CHECK(one["memory"]["cpu_offload_gib"].get<double>() ==
          Approx(stated["memory"]["cpu_offload_gib"].get<double>()).epsilon(1e-12));
    // Slower: the host layers are read at host memory bandwidth each token.
    CHECK(one["decode_tokens_per_s"].get<double>() < two["decode_tokens_per_s"].get<double>() / 2);
    // A host that cannot hold the rest (Ollama would not load the split), or
    // offload stated as none: every layer on the GPUs, the fewest that hold
    // them is 2, beyond the limit of 1: no count within it fits, so
    // gpus_needed is null and the warning names the 2 (CONTRACT gpus_needed).
    for (const char* knob : {R"(,"host":{"ram_gib":8})", R"(,"parallel":{"offload":"none"})"}) {
        const Json onGpus = estimateOk(base + R"(,"max_gpus":1)" + knob + "}");
        CHECK(onGpus["plan"]["offload"] == "none");
        CHECK(onGpus["fits"] == false);
        CHECK(onGpus["gpus_needed"].is_null());
        CHECK(hasWarning(onGpus, "over_max_gpus"));
    }
}

TEST_CASE("an auto count with llama.cpp offload takes the fewest GPUs whose split fits", "[offload][planner]") {
    // -ngl 80 asks every one of Llama 3.1 70B's 80 layers on the GPUs: at
    // Q4_K_M (~40 GiB) one 24 GB 4090 cannot hold them, two can (the Ollama
    // case above), so the fewest is 2; as many as fit (-ngl unset) fit one
    // 4090 with the rest in host RAM.
    const std::string base = R"({"model":"llama-3.1-70b","gpu":"4090","engine":"llama.cpp","weights":"Q4_K_M","gpu_count":"auto")";
    const Json all = estimateOk(base + R"(,"parallel":{"offload":"layers","gpu_layers":80}})");
    CHECK(all["fits"] == true);
    CHECK(all["plan"]["gpu_count"] == 2);
    CHECK(all["plan"]["why"][1] == "count_fewest_that_fit");
    const Json most = estimateOk(base + R"(,"parallel":{"offload":"layers"}})");
    CHECK(most["fits"] == true);
    CHECK(most["plan"]["gpu_count"] == 1);
    CHECK(most["plan"]["gpu_layers"].get<int>() < 80);
}
