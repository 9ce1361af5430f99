// The recommendation: every option fits, options are ranked by the objective,
// tiers follow the documented rule, and each option says why and what to watch.
#include <catch2/catch.hpp>

#include <set>

#include <nlohmann/json.hpp>

#include "caliper/answers/recommend.hpp"
#include "catalog_fixture.hpp"

using caliper::test::projectCatalog;
using Json = nlohmann::json;

namespace {

Json call(const std::string& request, int expectedStatus = 0) {
    const caliper::ApiResponse response = caliper::recommendJson(projectCatalog(), request);
    INFO(request << "\n" << response.json.substr(0, 2000));
    REQUIRE(response.status == expectedStatus);
    return Json::parse(response.json);
}

Json estimateOf(const std::string& model, const Json& option, const std::string& workload) {
    const std::string request = R"({"model":")" + model + R"(","gpu":")" + option["gpu_id"].get<std::string>() +
                                R"(","gpu_count":)" + std::to_string(option["gpu_count"].get<int>()) + workload + "}";
    const caliper::ApiResponse response = caliper::estimateJson(projectCatalog(), request);
    INFO(request << "\n" << response.json.substr(0, 1000));
    REQUIRE(response.status == 0);
    return Json::parse(response.json);
}

double numberOr(const Json& value, double fallback) { return value.is_number() ? value.get<double>() : fallback; }

}  // namespace

TEST_CASE("every recommended option fits, at the fewest GPUs of its type", "[recommend]") {
    const std::string workload = R"(,"batch":8)";
    const Json result = call(R"({"model":"qwen2.5-32b","batch":8,"top":20})");
    REQUIRE(result["options"].size() >= 20);
    for (const Json& option : result["options"]) {
        // The same configuration through the estimate door must fit. The
        // option is the planner's count within the limit: the fewest that fit,
        // or a few more where tensor parallelism then covers every GPU and
        // runs faster per GPU (a 3-stage pipeline vs TP 4), or, past one
        // server, whole servers (the fewest multiple of GPUs per node).
        const Json estimate = estimateOf("qwen2.5-32b", option, workload);
        CHECK(estimate["fits"] == true);
        const int needed = estimate["gpus_needed"];
        const int count = option["gpu_count"];
        const int perNode = estimate["plan"]["gpus_per_node"];
        CHECK(needed <= count);
        const bool wholeNodes = needed > perNode && count % perNode == 0;
        if (needed != count && !wholeNodes) CHECK(estimate["plan"]["tp"] == option["gpu_count"]);
        CHECK(option["gpu_count"].get<int>() <= result["max_gpus"].get<int>());
        CHECK(option["needed_gib"].get<double>() <= option["usable_gib"].get<double>());
    }
}

TEST_CASE("cheapest ranks a cheaper fitting GPU first and unpriced GPUs last", "[recommend]") {
    const caliper::GpuSpec* unpriced = nullptr;
    // Unpriced for renting: neither the catalog's USD price nor any provider's listed price.
    for (const auto& gpu : projectCatalog().gpus) {
        if (!gpu.cloudUsdPerHour && gpu.cloudPrices.empty() && gpu.memoryGib >= 40 && gpu.vendor == "nvidia") unpriced = &gpu;
    }
    REQUIRE(unpriced != nullptr);
    const Json result = call(R"({"model":"llama-3.1-8b","gpu":["h100-sxm5-80gb","rtx-4090","l40s",")" +
                             unpriced->id + R"("]})");
    const Json& options = result["options"];
    REQUIRE(options.size() == 4);
    // Cloud prices come from the catalog; whatever they are, the order must follow them.
    for (std::size_t i = 1; i < 3; ++i) {
        CHECK(options[i - 1]["usd_per_hour"].get<double>() <= options[i]["usd_per_hour"].get<double>());
    }
    CHECK(options[0]["reasons"].dump().find("\"cheapest\"") != std::string::npos);
    CHECK(options[3]["gpu_id"] == unpriced->id);
    CHECK(options[3]["priced"] == false);
    CHECK(options[3]["watch"].dump().find("\"no_price\"") != std::string::npos);
    CHECK(result["notes"].dump().find("unpriced_last") != std::string::npos);
}

TEST_CASE("each objective orders the options by its own figure", "[recommend]") {
    SECTION("purchase price") {
        const Json options = call(R"({"model":"llama-3.1-8b","pricing":"purchase","top":15})")["options"];
        for (std::size_t i = 1; i < options.size(); ++i) {
            if (!options[i]["priced"].get<bool>()) break;
            CHECK(options[i - 1]["purchase_usd"].get<double>() <= options[i]["purchase_usd"].get<double>());
        }
    }
    SECTION("cost per million tokens") {
        const Json options = call(R"({"model":"llama-3.1-8b","objective":"cost_per_token","batch":32})")["options"];
        for (std::size_t i = 1; i < options.size(); ++i) {
            if (!options[i]["priced"].get<bool>()) break;
            CHECK(options[i - 1]["usd_per_million_tokens"].get<double>() <=
                  options[i]["usd_per_million_tokens"].get<double>());
        }
    }
    SECTION("a training run by its total cost, not its hourly price") {
        // A cheaper hour on slower cards can make a dearer run (a 70B
        // pre-training run: more cheap GPUs for years cost more than fewer
        // fast ones for months), so cloud "cheapest" ranks by cost_usd.
        const Json result = call(R"({"model":"llama-3.1-70b","task":"pretrain","seq_len":4096,"train_tokens":1e11,)"
                                 R"("gradient_checkpointing":true,"max_gpus":16,"top":30})");
        const Json& options = result["options"];
        REQUIRE(options.size() >= 2);
        bool hourlyOrderDiffers = false;
        for (std::size_t i = 1; i < options.size(); ++i) {
            if (!options[i]["priced"].get<bool>()) break;
            CHECK(options[i - 1]["cost_usd"].get<double>() <= options[i]["cost_usd"].get<double>());
            if (options[i - 1]["usd_per_hour"].get<double>() > options[i]["usd_per_hour"].get<double>()) hourlyOrderDiffers = true;
        }
        CHECK(hourlyOrderDiffers);  // the case the run's cost exists for
        CHECK(options[0]["reasons"].dump().find("cheapest run: $") != std::string::npos);
    }
    SECTION("fewest GPUs") {
        const Json options = call(R"({"model":"llama-3.1-70b","objective":"fewest_gpus","top":30})")["options"];
        for (std::size_t i = 1; i < options.size(); ++i) {
            CHECK(options[i - 1]["gpu_count"].get<int>() <= options[i]["gpu_count"].get<int>());
        }
    }
    SECTION("lowest power, unknown power last") {
        const Json options = call(R"({"model":"llama-3.1-8b","objective":"lowest_power","top":30})")["options"];
        for (std::size_t i = 1; i < options.size(); ++i) {
            const double before = numberOr(options[i - 1]["power_w"], 0), after = numberOr(options[i]["power_w"], 0);
            if (after > 0) CHECK((before > 0 && before <= after));
        }
    }
}

TEST_CASE("fastest also sizes twice the fewest count, and ranks by speed", "[recommend]") {
    const Json result = call(R"({"model":"llama-3.1-8b","objective":"fastest","batch":16,"max_gpus":8,"top":40})");
    const Json& options = result["options"];
    bool sawDoubled = false;
    for (std::size_t i = 0; i < options.size(); ++i) {
        if (i > 0 && options[i]["priced"].get<bool>()) {
            CHECK(options[i - 1]["decode_tokens_per_s"].get<double>() >= options[i]["decode_tokens_per_s"].get<double>());
        }
        CHECK(options[i]["gpu_count"].get<int>() <= 8);
        if (options[i]["reasons"].dump().find("scaled_out") != std::string::npos) sawDoubled = true;
    }
    // More candidates than GPU types: the doubled configurations are extra ones.
    CHECK(result["candidates"].get<std::size_t>() > projectCatalog().gpus.size());
    CHECK(sawDoubled);
    CHECK(options[0]["reasons"].dump().find("\"fastest\"") != std::string::npos);
}

TEST_CASE("tiers follow the card class, memory, GPU count and nodes", "[recommend][tiers]") {
    using caliper::Tier;
    auto gpu = [](const char* id) -> const caliper::GpuSpec& {
        const caliper::GpuSpec* g = caliper::findGpu(projectCatalog(), id);
        REQUIRE(g != nullptr);
        return *g;
    };
    // The article's rows: RTX 4090 / L4 entry, L40S / A100 40G mid,
    // A100 80G / H100 high-end, H800 / DGX H100 (a full server) cluster.
    CHECK(caliper::cardTier(gpu("rtx-4090")) == Tier::Entry);
    CHECK(caliper::cardTier(gpu("l4")) == Tier::Entry);
    CHECK(caliper::cardTier(gpu("l40s")) == Tier::Mid);
    CHECK(caliper::cardTier(gpu("a100-sxm4-40gb")) == Tier::Mid);
    CHECK(caliper::cardTier(gpu("a100-sxm4-80gb")) == Tier::HighEnd);
    CHECK(caliper::cardTier(gpu("h100-sxm5-80gb")) == Tier::HighEnd);
    CHECK(caliper::configurationTier(gpu("h800-sxm5-80gb"), 8, 1) == Tier::Cluster);
    CHECK(caliper::configurationTier(gpu("h100-sxm5-80gb"), 4, 1) == Tier::HighEnd);
    CHECK(caliper::configurationTier(gpu("rtx-4090"), 8, 2) == Tier::Cluster);
    CHECK(caliper::configurationTier(gpu("rtx-4090"), 4, 1) == Tier::Entry);
    // A 96 GB workstation card has no NVLink server around it: mid, not high-end.
    CHECK(caliper::cardTier(gpu("rtx-pro-6000-blackwell")) == Tier::Mid);
}

TEST_CASE("the tiers map lists every listed option once, under its own tier", "[recommend][tiers]") {
    const Json result = call(R"({"model":"llama-3.1-70b","top":5})");
    std::set<int> ranks;
    for (const auto& [tier, list] : result["tiers"].items()) {
        for (const Json& rank : list) {
            CHECK(ranks.insert(rank.get<int>()).second);
            bool found = false;
            for (const Json& option : result["options"]) {
                if (option["rank"] == rank) found = option["tier"] == tier;
            }
            CHECK(found);
        }
    }
    CHECK(ranks.size() == result["options"].size());
    // The top 5, plus the best option of any tier the top 5 misses (at most three).
    CHECK(result["options"].size() >= 5);
    CHECK(result["options"].size() <= 8);
    for (std::size_t i = 1; i < result["options"].size(); ++i) {
        CHECK(result["options"][i - 1]["rank"].get<int>() < result["options"][i]["rank"].get<int>());
    }
}

TEST_CASE("options say what to watch: compatibility and catalog caveats", "[recommend][watch]") {
    // Multi-GPU full fine-tuning on GeForce cards crosses PCIe (no NVLink);
    // V100 has no bf16; A800 NVLink is cut to 400 GB/s; H100 has FP8, A100 not.
    const Json training = call(R"({"model":"llama-3.1-8b","task":"finetune","method":"full",)"
                               R"("gpu":["rtx-4090","v100-sxm2-32gb","a800-sxm4-80gb"]})");
    for (const Json& option : training["options"]) {
        const std::string watch = option["watch"].dump();
        const std::string id = option["gpu_id"];
        if (id == "rtx-4090") CHECK(watch.find("\"no_nvlink\"") != std::string::npos);
        if (id == "v100-sxm2-32gb") CHECK(watch.find("\"no_bf16\"") != std::string::npos);
        if (id == "a800-sxm4-80gb" && option["gpu_count"].get<int>() > 1) {
            CHECK(watch.find("\"limited_nvlink\"") != std::string::npos);
        }
        // Catalog caveats come with their Chinese text for the page.
        for (const Json& w : option["watch"]) {
            if (w["source"] == "catalog") CHECK(w["message_zh"].get<std::string>().size() > 0);
        }
    }
    const Json pretrain = call(R"({"model":"llama-3.2-3b","task":"pretrain","gpu":["h100-sxm5-80gb","a100-sxm4-80gb"]})");
    for (const Json& option : pretrain["options"]) {
        const bool noFp8 = option["watch"].dump().find("\"no_fp8\"") != std::string::npos;
        CHECK(noFp8 == (option["gpu_id"] == "a100-sxm4-80gb"));
    }
}

TEST_CASE("max_gpus bounds the configurations and GPUs past it are listed as excluded", "[recommend]") {
    const Json result = call(R"({"model":"llama-3.1-70b","max_gpus":2,"gpu":["rtx-4090","h100-sxm5-80gb"]})");
    // 70B in bf16 is 141 GB of weights: 2x 80 GB holds it, 2x 24 GB cannot.
    REQUIRE(result["options"].size() == 1);
    CHECK(result["options"][0]["gpu_id"] == "h100-sxm5-80gb");
    REQUIRE(result["excluded"].size() == 1);
    CHECK(result["excluded"][0]["gpu_id"] == "rtx-4090");
    CHECK(result["excluded"][0]["code"] == "does_not_fit");
}

TEST_CASE("max_train_days takes more GPUs until the run ends in time, or excludes the type", "[recommend]") {
    // Pre-training Llama-3.1-70B on 1e11 tokens. The fewest H100s that hold
    // it take months (6 x 70e9 x 1e11 = 4.2e22 FLOPs; even at 400 TFLOP/s per
    // GPU, 8 GPUs need 152 days), so a 30-day limit needs several times more
    // GPUs; in one day 64 H100s cannot finish (64 x 989e12 peak x 86,400 s
    // = 5.5e21 FLOPs, below the run's 4.2e22 even at full peak).
    const std::string workload =
        R"("model":"llama-3.1-70b","task":"pretrain","seq_len":4096,"train_tokens":1e11,"gradient_checkpointing":true,)"
        R"("gpu":["h100-sxm5-80gb","rtx-4090"],"max_gpus":64)";
    const Json open = call("{" + workload + "}");
    const Json timed = call("{" + workload + R"(,"max_train_days":30})");
    CHECK(timed["max_train_days"] == 30);
    REQUIRE(open["options"].size() >= 1);
    REQUIRE(timed["options"].size() == 1);
    const Json& fewest = open["options"][0];
    const Json& inTime = timed["options"][0];
    CHECK(inTime["gpu_id"] == "h100-sxm5-80gb");
    CHECK(fewest["train_hours"].get<double>() > 30 * 24);
    CHECK(inTime["train_hours"].get<double>() <= 30 * 24);
    CHECK(inTime["gpu_count"].get<int>() > fewest["gpu_count"].get<int>());
    CHECK(inTime["gpu_count"].get<int>() % 8 == 0);  // whole 8-GPU HGX nodes past one node
    const Json oneDay = call("{" + workload + R"(,"max_train_days":1})");
    CHECK(oneDay["options"].empty());
    bool tooSlow = false;
    for (const Json& e : oneDay["excluded"]) tooSlow = tooSlow || (e["gpu_id"] == "h100-sxm5-80gb" && e["code"] == "too_slow");
    CHECK(tooSlow);
    // Estimated alone at its count, the option's figures are the same.
    const Json alone = estimateOf("llama-3.1-70b", inTime,
                                  R"(,"task":"pretrain","seq_len":4096,"train_tokens":1e11,"gradient_checkpointing":true)");
    CHECK(alone["fits"] == true);
    CHECK(alone["train_hours"].get<double>() == Approx(inTime["train_hours"].get<double>()).epsilon(1e-4));
}

TEST_CASE("a GPU filter narrows the candidates as in the matrix", "[recommend]") {
    const Json result = call(R"({"model":"llama-3.1-8b","gpu_filter":{"classes":["datacenter"]},"top":100})");
    for (const Json& option : result["options"]) {
        const caliper::GpuSpec* gpu = caliper::findGpu(projectCatalog(), option["gpu_id"].get<std::string>());
        REQUIRE(gpu != nullptr);
        CHECK(gpu->gpuClass == "datacenter");
    }
}

TEST_CASE("bad recommend requests name the offending key", "[recommend][errors]") {
    struct Case {
        const char* request;
        const char* code;
        const char* path;
    };
    const Case c = GENERATE(values<Case>({
        {R"({"gpu":"h100"})", "missing_key", "/model"},
        {R"({"model":"llama-3.1-8b","objective":"best"})", "invalid_value", "/objective"},
        {R"({"model":"llama-3.1-8b","pricing":"lease"})", "invalid_value", "/pricing"},
        {R"({"model":"llama-3.1-8b","max_gpus":0})", "invalid_value", "/max_gpus"},
        {R"({"model":"llama-3.1-8b","top":0})", "invalid_value", "/top"},
        {R"({"model":"llama-3.1-8b","task":"pretrain","max_train_days":0})", "invalid_value", "/max_train_days"},
        {R"({"model":"llama-3.1-8b","gpu":["h100","H1000"]})", "unknown_gpu", "/gpu/1"},
        {R"({"model":"llama-3.1-8b","preset":"nope"})", "invalid_value", "/preset"},
        {R"({"model":"llama-3.1-8b","colour":"blue"})", "unknown_key", "/colour"},
        // Every GPU rejects fp8 under Transformers without FP8 units: the workload itself is invalid.
        {R"({"model":"llama-3.1-8b","weights":"fp8","engine":"transformers","gpu":["v100-sxm2-32gb","t4"]})",
         "unsupported_format", "/weights"},
    }));
    const Json result = call(c.request, 2);
    CHECK(result["ok"] == false);
    CHECK(result["error"]["code"] == c.code);
    CHECK(result["error"]["path"] == c.path);
}

TEST_CASE("serving options carry tokens/s per user and a month's price, as the single estimate has them", "[recommend]") {
    // 64 concurrent requests, vLLM's continuous batching (CONTRACT.md "serving").
    const std::string workload = R"(,"engine":"vllm","batch":64,"prompt_tokens":3584,"output_tokens":512)";
    const Json result = call(R"({"model":"llama-3.1-8b","engine":"vllm","batch":64,"prompt_tokens":3584,"output_tokens":512,"top":3})");
    for (const Json& option : result["options"]) {
        INFO(option["gpu_id"]);
        const Json r = estimateOf("llama-3.1-8b", option, workload);
        REQUIRE(r["serving"].is_object());
        CHECK(option["user_tokens_per_s"].get<double>() == Approx(r["serving"]["user_tokens_per_s"].get<double>()));
        if (option["usd_per_hour"].is_number()) {
            // units.hpp: an average month is 8,760 h / 12 = 730 h.
            CHECK(option["usd_per_month"].get<double>() == Approx(option["usd_per_hour"].get<double>() * 730).epsilon(1e-4));
        } else {
            CHECK(option["usd_per_month"].is_null());
        }
        CHECK(option["usd_per_million_tokens"].is_number() == option["usd_per_hour"].is_number());
    }
    // Training has neither.
    const Json training = call(R"({"model":"llama-3.1-8b","task":"finetune","method":"lora","top":1})");
    CHECK(training["options"][0]["user_tokens_per_s"].is_null());
    CHECK(training["options"][0]["usd_per_month"].is_null());
}
