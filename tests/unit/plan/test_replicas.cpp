// Plans people run at scale: inference replicas at a stated count, whole
// servers past one server for an "auto" count, and accelerate's
// device_map="auto" split for transformers inference.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "api_fixture.hpp"
#include "caliper/api.hpp"
#include "caliper/catalog.hpp"
#include "catalog_fixture.hpp"
#include "memory/accelerate_split.hpp"
#include "memory/sizing.hpp"
#include "plan/prepared.hpp"
#include "result_fixture.hpp"
#include "sizing_fixture.hpp"

using caliper::test::estimateOk;
using caliper::test::listHasCode;
using Json = nlohmann::json;

namespace {

bool whyHas(const Json& r, const char* code) {
    for (const Json& w : r["plan"]["why"]) {
        if (w == code) return true;
    }
    return false;
}

bool warned(const Json& r, const char* code) {
    for (const Json& w : r["warnings"]) {
        if (w["code"] == code) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("an 8B model on 1,024 H100s is served as replicas, not one group", "[planner][replicas]") {
    // Llama 3 8B in bf16 is 16 GB of weights: one 80 GB H100 holds it. A
    // single tensor x pipeline group of 1,024 would need 128 stages of a
    // 32-layer model (it did not fit). As replicas: groups of 1, 2, 4 or 8
    // GPUs; at batch 1 each replica decodes one sequence, so the fleet's
    // tokens/s is replicas x one replica's, and tensor parallelism's
    // all-reduces make a TP-8 replica less than 8x a TP-1 one: 1,024 TP-1
    // replicas serve the most (the plan anyone runs: one GPU per engine).
    const Json r = estimateOk(R"({"model":"llama-3-8b","gpu":"H100 SXM5","task":"inference","gpu_count":1024})");
    const Json one = estimateOk(R"({"model":"llama-3-8b","gpu":"H100 SXM5","task":"inference","gpu_count":1})");
    REQUIRE(r["fits"] == true);
    CHECK(r["plan"]["tp"] == 1);
    CHECK(r["plan"]["pp"] == 1);
    CHECK(r["plan"]["dp"] == 1024);
    CHECK(r["plan"]["gpu_count"] == 1024);
    CHECK(whyHas(r, "replicas_fill_count"));
    // Throughput sums over the replicas; a request's latency is one replica's;
    // each GPU holds what one GPU alone holds (one request each).
    // (Within the JSON's rounding of the figures to about six digits.)
    CHECK(r["decode_tokens_per_s"].get<double>() ==
          Approx(1024 * one["decode_tokens_per_s"].get<double>()).epsilon(1e-5));
    CHECK(r["time_to_first_token_s"].get<double>() == Approx(one["time_to_first_token_s"].get<double>()).epsilon(1e-9));
    CHECK(r["memory"]["total_gib"].get<double>() == Approx(one["memory"]["total_gib"].get<double>()).epsilon(1e-9));
}

TEST_CASE("replicas hold their share of the concurrent requests", "[planner][replicas]") {
    // 512 GPUs are more than one group of Llama 3 8B can use (TP 8 x 32
    // stages = 256), so one-GPU replicas: 2,048 concurrent requests over 512
    // replicas are 4 each, and each GPU's KV cache is one GPU's at batch 4
    // (ceil(2048 / 512) = 4).
    const Json r = estimateOk(
        R"({"model":"llama-3-8b","gpu":"H100 SXM5","task":"inference","gpu_count":512,"batch":2048,"engine":"transformers"})");
    const Json one = estimateOk(
        R"({"model":"llama-3-8b","gpu":"H100 SXM5","task":"inference","gpu_count":1,"batch":4,"engine":"transformers"})");
    REQUIRE(r["fits"] == true);
    REQUIRE(r["plan"]["dp"] == 512);
    CHECK(r["memory"]["kv_cache_gib"].get<double>() == Approx(one["memory"]["kv_cache_gib"].get<double>()).epsilon(1e-9));
}

TEST_CASE("one request at a time on a count one group can use stays one group", "[planner][replicas]") {
    // llmfit's single-stream vLLM rows on eight RTX 5880 Ada (the catalog:
    // 4 per server) run one engine over all eight: a lone request uses one
    // replica, so replicas would leave the others idle.
    const Json r = estimateOk(R"({"model":"llama-3-8b","gpu":"rtx-5880-ada","task":"inference","gpu_count":8})");
    CHECK(r["plan"]["dp"] == 1);
    CHECK(r["plan"]["tp"].get<int>() * r["plan"]["pp"].get<int>() == 8);
}

TEST_CASE("within one server a stated count stays one tensor-parallel group", "[planner][replicas]") {
    // vLLM's --tensor-parallel-size 8 on one server is how the benchmark
    // rows at 8 GPUs run (validation/public-v2.jsonl): not replaced by replicas.
    const Json r = estimateOk(R"({"model":"llama-3-8b","gpu":"H100 SXM5","task":"inference","gpu_count":8})");
    CHECK(r["plan"]["tp"] == 8);
    CHECK(r["plan"]["dp"] == 1);
    CHECK(!whyHas(r, "replicas_fill_count"));
}

TEST_CASE("a count replicas do not divide leaves the rest idle, and says so", "[planner][replicas]") {
    // Llama 3.1 405B in FP8 is about 405 GB of weights: four 80 GB H100s
    // (320 GB) cannot hold it, eight (640 GB) can, so the smallest group is
    // one server at TP 8. 1,010 GPUs (2 x 5 x 101) as one group would be
    // TP 2 x 505 stages of a 126-layer model: not a layout. 126 TP-8
    // replicas use 1,008 GPUs; 2 idle.
    const Json r = estimateOk(
        R"({"model":"llama-3.1-405b","gpu":"H100 SXM5","task":"inference","gpu_count":1010,"weights":"fp8"})");
    REQUIRE(r["fits"] == true);
    CHECK(r["plan"]["tp"] == 8);
    CHECK(r["plan"]["dp"] == 126);
    CHECK(r["plan"]["gpu_count"] == 1008);
    CHECK(whyHas(r, "replicas_leave_gpus_idle"));
    CHECK(warned(r, "gpus_idle"));
}

TEST_CASE("an auto count past one server takes whole servers", "[planner][nodes]") {
    // Llama 3.1 70B full fine-tuning under ZeRO-3 on A800 80GB: the fewest
    // GPUs that fit is 21 (gpus_needed), three servers of 8. Nobody rents
    // 21 of 24 GPUs; the plan is the three servers: 24, and ZeRO-3 shards
    // over any count, so 24 fits too. (Every state on the GPUs: with host
    // offload allowed, 7 GPUs of one server hold it.)
    const Json r = estimateOk(
        R"({"model":"llama-3.1-70b","gpu":"a800-sxm4-80gb","task":"finetune","method":"full","gpu_count":"auto","parallel":{"offload":"none"}})");
    REQUIRE(r["fits"] == true);
    REQUIRE(r["gpus_needed"].is_number());
    const int needed = r["gpus_needed"];
    const int perNode = r["plan"]["gpus_per_node"];
    const int count = r["plan"]["gpu_count"];
    CHECK(needed > perNode);
    CHECK(count % perNode == 0);
    CHECK(count >= needed);
    CHECK(count - needed < perNode);
    if (needed % perNode != 0) CHECK(whyHas(r, "count_whole_nodes"));
}

TEST_CASE("an auto count within one server is left as it is", "[planner][nodes]") {
    // 70B in bf16 (140 GB) on 80 GB H100s: 2 GPUs hold it; within a server
    // any count the layout divides is a plan people run.
    const Json r = estimateOk(R"({"model":"llama-3.1-70b","gpu":"H100 SXM5","task":"inference","gpu_count":"auto"})");
    REQUIRE(r["fits"] == true);
    CHECK(r["plan"]["gpu_count"].get<int>() <= 8);
    CHECK(!whyHas(r, "count_whole_nodes"));
}

TEST_CASE("recommendations past one server propose whole servers", "[recommend][nodes]") {
    for (const char* request :
         {R"({"model":"llama-3.1-70b","task":"finetune","method":"full","objective":"cost_per_token","top":8})",
          R"({"model":"llama-3.1-70b","task":"pretrain","objective":"cost_per_token","top":8})"}) {
        INFO(request);
        const caliper::ApiResponse res = caliper::recommendJson(caliper::test::projectCatalog(), request);
        REQUIRE(res.status == 0);
        const Json rec = Json::parse(res.json);
        for (const Json& o : rec["options"]) {
            const int count = o["gpu_count"];
            const caliper::GpuSpec* gpu =
                caliper::findGpu(caliper::test::projectCatalog(), o["gpu_id"].get<std::string>());
            REQUIRE(gpu);
            const int perNode = std::max(1, gpu->gpusPerNode);
            INFO(o["gpu_id"] << " x" << count << ", " << perNode << " per node");
            // One server (any count its layout divides), or whole servers.
            if (count > perNode) CHECK(count % perNode == 0);
        }
    }
}

TEST_CASE("accelerate's device_map split: the fullest GPU decides the fit", "[memory][accelerate]") {
    using namespace caliper;
    // Llama 3 8B (config.json: hidden 4096, intermediate 14336, 32 layers,
    // 8 KV heads, vocab 128256, untied lm_head) in bf16 over 4 GPUs.
    // A layer: q, o 4096^2 + k, v 4096 x 1024 + MLP 3 x 4096 x 14336 +
    // norms = 218.1 M parameters = 436.2 MB; embeddings and lm_head
    // 128256 x 4096 x 2 B = 1050.7 MB each; total T = 32 layers + both
    // tables (+ final norm) = 16.06 GB.
    // get_balanced_memory: per_gpu = T / 4 + 1.25 x 436.2 MB = 4015 + 545 =
    // 4560 MB on GPUs 0-2. GPU 0 keeps room for the largest module (a table,
    // 1050.7 MB): 4560 - 1050.7 - 1050.7 (embeddings) = 2459 MB of layers,
    // 5 layers. GPUs 1 and 2: floor(4560 / 436.2) = 10 layers each. The
    // last GPU: 32 - 5 - 20 = 7 layers and lm_head.
    Scenario s = test::serving("llama-3-8b", "h100-sxm5-80gb", Engine::Transformers);
    s.gpuCount = 4;
    s.parallel.strategy = Strategy::LayerSplit;
    const sizing::Inputs in = sizing::prepare(s);
    Plan plan = makePlan(s, 4);
    REQUIRE(plan.strategy == Strategy::LayerSplit);
    REQUIRE(plan.pp == 4);
    const std::optional<sizing::AccelerateStages> split = sizing::accelerateStages(in, sizing::layoutOf(plan));
    REQUIRE(split);
    REQUIRE(split->count == 3);
    // (Each derived figure above checked against the prepared model.)
    const double layer = in.weights().layerBytes;
    CHECK(layer / 1e6 == Approx(436.2).margin(1.0));
    CHECK(split->stages[0].layers == 5);
    CHECK(split->stages[0].first);
    CHECK(!split->stages[0].last);
    CHECK(split->stages[1].layers == 10);
    CHECK(split->stages[2].layers == 7);
    CHECK(split->stages[2].last);
    // The breakdown is the fullest GPU's. A middle GPU holds the most
    // weights, 10 x 436.2 = 4362 MB, against the last's 7 x 436.2 + 1050.7 =
    // 4104 MB; the last also computes the logits, but generate() asks for
    // the last position's only (1 x 128256 x 6 B = 0.8 MB), less than the
    // middle GPU's 258 MB of extra weights and its 3 more layers' KV. So the
    // middle GPU is the fullest, with 10 layers.
    const MemoryEstimate m = estimateMemory(in, plan, true);
    CHECK(gibToBytes(m.memory.weightsGiB) == Approx(10 * layer).epsilon(1e-6));
    // Over 2 GPUs: per_gpu = 16.06 / 2 GB + 545 MB = 8575 MB; GPU 0 takes
    // (8575 - 1050.7 - 1050.7) / 436.2 = 14 layers, the last 18 and lm_head,
    // 2 layers (872 MB) more than an even 16 + 16 split puts there.
    s.gpuCount = 2;
    const sizing::Inputs in2 = sizing::prepare(s);
    const Plan plan2 = makePlan(s, 2);
    const std::optional<sizing::AccelerateStages> split2 = sizing::accelerateStages(in2, sizing::layoutOf(plan2));
    REQUIRE(split2);
    REQUIRE(split2->count == 2);
    CHECK(split2->stages[0].layers == 14);
    CHECK(split2->stages[1].layers == 18);
    const MemoryEstimate m2 = estimateMemory(in2, plan2, false);
    CHECK(gibToBytes(m2.memory.weightsGiB) == Approx(18 * layer + in2.weights().headBytes).epsilon(1e-6));
}

TEST_CASE("accelerate keeps a tied lm_head and the logits on GPU 0", "[memory][accelerate]") {
    using namespace caliper;
    // Llama 3.2 3B ties lm_head to the embeddings (tie_word_embeddings):
    // get_module_size_with_ties places lm_head with embed_tokens, on GPU 0,
    // and the logits come out there; the last GPU holds layers only.
    Scenario s = test::serving("llama-3.2-3b", "h100-sxm5-80gb", Engine::Transformers);
    REQUIRE(s.model.tiedEmbeddings);
    s.gpuCount = 2;
    s.parallel.strategy = Strategy::LayerSplit;
    const sizing::Inputs in = sizing::prepare(s);
    const Plan plan = makePlan(s, 2);
    const std::optional<sizing::AccelerateStages> split = sizing::accelerateStages(in, sizing::layoutOf(plan));
    REQUIRE(split);
    REQUIRE(split->count == 2);
    CHECK(split->stages[0].first);
    CHECK(split->stages[0].last);
    CHECK(!split->stages[1].last);
    CHECK(split->stages[0].layers + split->stages[1].layers == in.shape().stackLayers);
}
