#pragma once
// Generated scenarios for the property tests: requests drawn from the
// project's catalog and the option values docs/CONTRACT.md lists, read through the
// same request reader as the API (io::scenarioFromJson), so defaults that
// depend on the task, engine and GPU apply as they do for users.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliper/plan/estimate.hpp"
#include "catalog_fixture.hpp"
#include "json/request/scenario_json.hpp"

namespace caliper::test {

using PropertyJson = nlohmann::json;

class RequestDraw {
public:
    explicit RequestDraw(std::uint32_t seed) : rng_(seed) {}

    template <class T>
    T pick(const std::vector<T>& values) {
        return values[rng_() % values.size()];
    }
    bool coin() { return rng_() % 2 == 0; }

    // One request; `task` is "inference", "finetune", "pretrain" or "" (any).
    PropertyJson request(std::string task = "") {
        const Catalog& catalog = projectCatalog();
        if (task.empty()) task = pick<std::string>({"inference", "inference", "finetune", "finetune", "pretrain"});
        PropertyJson r = {{"model", catalog.models[rng_() % catalog.models.size()].id},
                          {"gpu", catalog.gpus[rng_() % catalog.gpus.size()].id},
                          {"task", task},
                          {"gpu_count", pick<PropertyJson>({1, 1, 2, 4, 8, "auto"})}};
        if (task == "inference") {
            const std::string engine = pick<std::string>({"vllm", "sglang", "tensorrt-llm", "transformers", "llama.cpp"});
            r["engine"] = engine;
            r["weights"] = engine == "llama.cpp"
                               ? pick<std::string>({"Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q4_0", "Q3_K_M", "Q2_K"})
                               : pick<std::string>({"bf16", "fp16", "int8", "awq-int4", "gptq-int4"});
            r["batch"] = pick<int>({1, 2, 4, 8, 32});
            r["prompt_tokens"] = pick<int>({128, 512, 2048, 8192, 32768});
            r["output_tokens"] = pick<int>({1, 64, 512, 2048});
        } else {
            r["engine"] = task == "finetune" ? pick<std::string>({"transformers", "deepspeed", "fsdp"})
                                             : pick<std::string>({"megatron", "deepspeed", "fsdp"});
            if (task == "finetune") r["method"] = pick<std::string>({"full", "lora", "qlora"});
            r["batch"] = pick<int>({1, 2, 4, 8});
            r["seq_len"] = pick<int>({512, 1024, 2048, 4096, 8192});
            r["gradient_checkpointing"] = coin();
            r["optimizer"] = pick<std::string>({"adamw", "adamw-8bit", "sgd", "adafactor"});
        }
        return r;
    }

private:
    std::mt19937 rng_;
};

// The request as the API reads it, or nothing when the API rejects it.
inline std::optional<Scenario> accepted(const PropertyJson& request) {
    try {
        std::vector<Warning> warnings;
        Scenario s = io::scenarioFromJson(projectCatalog(), request, warnings);
        checkScenario(s);
        return s;
    } catch (const InputError&) {
        return std::nullopt;
    }
}

// A request the API accepts, drawn from `seed` (draws again on a rejection).
inline PropertyJson acceptedRequest(std::uint32_t seed, const std::string& task = "") {
    for (std::uint32_t attempt = 0; attempt < 100; ++attempt) {
        RequestDraw draw(seed * 7919u + attempt);
        PropertyJson request = draw.request(task);
        if (accepted(request)) return request;
    }
    throw std::runtime_error("no accepted request drawn from seed " + std::to_string(seed));
}

}  // namespace caliper::test
