#include "request_mutator.hpp"

#include <map>
#include <vector>

#include "json/json_read.hpp"

namespace caliper::fuzz {

namespace {

using io::Json;
using Rng = std::mt19937;

template <class T>
const T& pick(const std::vector<T>& list, Rng& rng) {
    return list[rng() % list.size()];
}

// Valid values first, then the edges on both sides of each range the
// request reader enforces (scenario_json.cpp).
const std::map<std::string, std::vector<Json>>& scalarValues() {
    static const std::map<std::string, std::vector<Json>> values = {
        {"gpu_count", {1, 2, 3, 4, 8, 16, 64, 1024, "auto", 0, 1025, -1, 2.5}},
        {"task", {"inference", "finetune", "pretrain", "training", "serving", "dance"}},
        {"method", {"full", "lora", "qlora", nullptr, "dora"}},
        {"engine", {"transformers", "vllm", "sglang", "tensorrt-llm", "llama.cpp", "deepspeed", "fsdp", "megatron",
                    "trtllm", "hf", "ollama"}},
        {"weights", {"fp32", "bf16", "fp16", "fp8", "int8", "nf4", "nf4-dq", "gptq-int4", "awq-int4", "mxfp4", "Q8_0",
                     "Q6_K", "Q5_K_M", "Q5_K_S", "Q5_0", "Q4_K_M", "Q4_K_S", "Q4_0", "Q4_1", "Q3_K_L", "Q3_K_M",
                     "Q3_K_S", "Q2_K", "int3"}},
        {"kv_cache", {"fp32", "bf16", "fp16", "fp8", "q8_0", "q4_0", "f16", "int2"}},
        {"batch", {1, 2, 7, 32, 256, 4096, 1000000, 0, 1000001, 1.5}},
        {"prompt_tokens", {0, 1, 512, 2048, 32768, 131072, 1000000, 100000000, 100000001, -5}},
        {"output_tokens", {0, 1, 128, 512, 8192, 1000000, 100000000, 100000001}},
        {"seq_len", {1, 512, 2048, 8192, 131072, 100000000, 0, 100000001}},
        {"optimizer", {"adamw", "adamw-8bit", "paged-adamw-8bit", "sgd", "adafactor", "adam", "lion"}},
        {"gradient_checkpointing", {true, false, 1}},
        {"flash_attention", {true, false, "yes"}},
        {"train_tokens", {0, 1, 1e9, 1e12, 1.5e13, 1e16, 1.1e16, -1}},
        {"currency", {"usd", "cny", "eur"}},
        {"gpu_memory_utilization", {0.05, 0.5, 0.9, 0.95, 1.0, 0.04, 1.01}},
        {"usd_per_gpu_hour", {0, 0.01, 2.5, 1e6, 1.1e6}},
        {"price_usd", {0, 1, 30000, 1e9, 2e9}},
        {"cny_per_usd", {0.01, 7.1, 1000, 0, 1001}},
        {"max_gpus", {1, 2, 8, 64, 1024, 0, 1025}},
        {"top", {1, 3, 10, 100, 0, 101}},
        {"objective", {"cheapest", "fastest", "cost_per_token", "fewest_gpus", "lowest_power", "prettiest"}},
        {"pricing", {"cloud", "purchase", "lease"}},
        {"preset", {"speech", "lora", "sft", "pretrain", "serving", "multimodal", "nope"}},
        {"users", {1, 10, 200, 10000, 1e7, 0, -5, 1e8, 2.5}},
        {"request_rate_per_s", {0.1, 1, 50, 1e6, 0, -1, 1.1e6}},
        {"max_model_len", {1, 2048, 8192, 131072, 16777216, 0, 16777217}},
    };
    return values;
}

Json someNumber(Rng& rng) {
    static const std::vector<Json> numbers = {0, 1e-9, 0.5, 1, 3, 24, 80, 141, 1000, 2048, 1e5, 1e9, -1, 1e300};
    return pick(numbers, rng);
}

Json catalogIds(const Catalog& catalog, bool gpus, Rng& rng) {
    auto one = [&] {
        return gpus ? Json(catalog.gpus[rng() % catalog.gpus.size()].id)
                    : Json(catalog.models[rng() % catalog.models.size()].id);
    };
    switch (rng() % 8) {
        case 0: return Json::array({one(), one(), one()});
        case 1: return Json::array({one()});
        default: return one();
    }
}

// A published-looking config.json with one field moved to an edge.
Json hfConfig(Rng& rng) {
    Json config = {{"model_type", "llama"},       {"hidden_size", 4096},        {"num_hidden_layers", 32},
                   {"num_attention_heads", 32},   {"num_key_value_heads", 8},   {"intermediate_size", 14336},
                   {"vocab_size", 128256},        {"max_position_embeddings", 131072}};
    static const std::vector<std::string> types = {"llama", "qwen2_moe", "deepseek_v3", "gemma3", "whisper", "t5",
                                                   "gpt_oss", "mystery"};
    config["model_type"] = pick(types, rng);
    auto it = std::next(config.begin(), static_cast<std::ptrdiff_t>(rng() % config.size()));
    if (it.key() != "model_type") *it = someNumber(rng);
    return config;
}

Json modelValue(const Catalog& catalog, Rng& rng) {
    switch (rng() % 10) {
        case 0: return {{"params_b", someNumber(rng)}};
        case 1: return hfConfig(rng);
        case 2: return rng() % 4 ? Json("all") : Json(42);
        default: return catalogIds(catalog, false, rng);
    }
}

Json gpuValue(const Catalog& catalog, Rng& rng) {
    switch (rng() % 10) {
        case 0: return {{"memory_gib", someNumber(rng)}, {"bandwidth_gbps", someNumber(rng)},
                        {"bf16_tflops", someNumber(rng)}};
        case 1: return rng() % 4 ? Json("all") : Json(nullptr);
        default: return catalogIds(catalog, true, rng);
    }
}

Json inventoryValue(const Catalog& catalog, Rng& rng) {
    Json list = Json::array();
    const int items = static_cast<int>(rng() % 3);  // 0 items is an edge too
    for (int i = 0; i < items; ++i) {
        list.push_back({{"gpu", catalogIds(catalog, true, rng)}, {"count", pick(scalarValues().at("gpu_count"), rng)}});
    }
    return list;
}

// An object of sub-keys, each present or left out at random.
Json subObject(const std::vector<std::pair<const char*, std::vector<Json>>>& keys, Rng& rng) {
    Json object = Json::object();
    for (const auto& [key, values] : keys) {
        if (rng() % 2) object[key] = pick(values, rng);
    }
    return object;
}

Json valueFor(const std::string& key, const Catalog& catalog, Rng& rng) {
    if (key == "model") return modelValue(catalog, rng);
    if (key == "gpu") return gpuValue(catalog, rng);
    if (key == "inventory") return inventoryValue(catalog, rng);
    if (key == "lora") return subObject({{"rank", {1, 8, 16, 64, 65536, 0}}, {"targets", {"all-linear", "attention", "mlp"}}}, rng);
    if (key == "parallel") {
        return subObject({{"strategy", {"auto", "single", "ddp", "zero1", "zero2", "zero3", "fsdp", "tensor",
                                        "pipeline", "layer-split", "magic"}},
                          {"tp", {1, 2, 4, 8, 3, 64, 0}},
                          {"pp", {1, 2, 4, 16, 0}},
                          {"ep", {1, 8, 1024, 0}},
                          {"attention_dp", {1, 2, 8, 0}},
                          {"dp", {1, 4, 0}},
                          {"offload", {"none", "optimizer", "parameters", "disk"}}},
                         rng);
    }
    if (key == "slo") {
        return subObject({{"ttft_s", {0.1, 1, 2, 3600, 0, -1, 3601}},
                          {"tpot_ms", {5, 50, 60000, 0, 60001}},
                          {"min_user_tokens_per_s", {1, 20, 1e5, 0, 1e6}}},
                         rng);
    }
    if (key == "serving") {
        return subObject({{"prefix_cache_hit_rate", {0, 0.5, 1, -0.1, 1.5}},
                          {"request_rate_per_s", {0.5, 10, 1e6, 0, 2e6}},
                          {"max_num_batched_tokens", {1, 512, 9700, 16777216, 0, 1.5, 16777217}},
                          {"speculative", {Json{{"method", "mtp"}, {"accepted_tokens_per_step", 2}},
                                           Json{{"method", "eagle"}, {"accepted_tokens_per_step", 16}},
                                           Json{{"method", "draft"}, {"accepted_tokens_per_step", 0.5}},
                                           Json{{"method", "medusa"}, {"accepted_tokens_per_step", 2}}}}},
                         rng);
    }
    if (key == "gpu_filter") {
        return subObject({{"classes", {Json::array({"consumer"}), Json::array({"datacenter", "china"}), "all"}},
                          {"vendors", {Json::array({"nvidia"}), Json::array({"amd", "huawei"})}},
                          {"markets", {Json::array({"global"}), Json::array({"china"})}},
                          {"min_memory_gib", {0, 24, 80, 1e6}},
                          {"max_price_usd", {0, 2000, 40000, 1e9}}},
                         rng);
    }
    if (key == "model_filter") {
        return subObject({{"families", {Json::array({"llama"}), Json::array({"qwen", "deepseek"})}},
                          {"min_params_b", {0, 1, 70, 1e6}},
                          {"max_params_b", {0, 8, 100, 1e6}},
                          {"search", {"llama", "8b", "", "zzz"}}},
                         rng);
    }
    return pick(scalarValues().at(key), rng);
}

std::vector<std::string> requestKeys() {
    std::vector<std::string> keys = {"model", "gpu", "inventory", "lora", "parallel", "gpu_filter", "model_filter",
                                     "slo", "serving"};
    for (const auto& [key, values] : scalarValues()) keys.push_back(key);
    return keys;
}

}  // namespace

std::string mutateRequest(const Catalog& catalog, std::string_view text, Rng& rng) {
    static const std::vector<std::string> calls = {"matrix", "recommend", "inventory", "limits"};
    static const std::vector<std::string> keys = requestKeys();
    if (catalog.gpus.empty() || catalog.models.empty()) return "";
    const std::size_t newline = text.find('\n');
    std::string call = newline == std::string_view::npos ? pick(calls, rng) : std::string(text.substr(0, newline));
    Json request;
    try {
        request = io::parseJsonText(newline == std::string_view::npos ? text : text.substr(newline + 1), "",
                                    io::kMaxRequestBytes);
    } catch (const InputError&) {
        return "";
    }
    if (!request.is_object()) request = {{"model", catalogIds(catalog, false, rng)}};
    const unsigned choice = rng() % 10;
    if (choice == 0) {
        call = pick(calls, rng);
    } else if (choice <= 2 && !request.empty()) {
        request.erase(std::next(request.begin(), static_cast<std::ptrdiff_t>(rng() % request.size())));
    } else {
        const std::string& key = pick(keys, rng);
        request[key] = valueFor(key, catalog, rng);
    }
    return call + "\n" + request.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace caliper::fuzz
