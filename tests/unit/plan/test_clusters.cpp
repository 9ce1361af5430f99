// Clusters as they are built: nodes of GPUs joined by a named fabric,
// pipeline bubbles, expert and context parallelism, and pre-training runs of
// thousands of GPUs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "caliper/api.hpp"
#include "catalog_fixture.hpp"

using caliper::test::projectCatalog;
using Json = nlohmann::json;

namespace {

Json answer(const Json& request, int expectedStatus = 0) {
    const caliper::ApiResponse response = caliper::estimateJson(projectCatalog(), request.dump());
    INFO(request.dump() << " -> " << response.json.substr(0, 1500));
    REQUIRE(response.status == expectedStatus);
    return Json::parse(response.json);
}

double explained(const Json& result, const std::string& term) {
    for (const Json& e : result["explain"]) {
        if (e["term"] == term) return e["value"].get<double>();
    }
    return -1;
}

std::string explainedText(const Json& result, const std::string& term) {
    for (const Json& e : result["explain"]) {
        if (e["term"] == term) return e["formula"].get<std::string>();
    }
    return "";
}

// Llama 3 70B pre-training on H100 SXM in Megatron's layout (TP 8 x PP 4,
// the rest data parallel).
Json pretrain70b(int gpus) {
    return {{"model", "llama-3-70b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"}, {"gpu_count", gpus},
            {"seq_len", 8192},        {"batch", 1},               {"parallel", {{"tp", 8}, {"pp", 4}}}};
}

// Llama-2-7B pre-training on 8 H100s in Megatron, bf16, s 1024, b 1, eager
// attention, no recomputation: the recomputation cases below start from it.
Json megatronLlama2At1k() {
    return {{"model", "llama-2-7b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"}, {"engine", "megatron"},
            {"gpu_count", 8},        {"seq_len", 1024},          {"batch", 1},        {"weights", "bf16"},
            {"flash_attention", false}, {"gradient_checkpointing", false},
            {"parallel", {{"tp", 1}, {"pp", 1}}}};
}

}  // namespace

TEST_CASE("a stated cluster of 16,384 GPUs is planned, and per-GPU throughput falls as it grows", "[clusters]") {
    // Llama 3 405B ran on 16,384 H100s (arXiv 2407.21783 Table 4: 430 ->
    // 400 TFLOP/s per GPU from 8k to 16k GPUs); the request takes up to 100,000.
    const Json small = answer(pretrain70b(128));
    const Json large = answer(pretrain70b(16384));
    CHECK(large["plan"]["gpu_count"] == 16384);
    CHECK(large["plan"]["nodes"] == 2048);
    CHECK(large["plan"]["dp"] == 512);
    CHECK(large["train_tflops_per_gpu"].get<double>() < small["train_tflops_per_gpu"].get<double>());
    answer({{"model", "llama-3-70b"}, {"gpu", "h100"}, {"task", "pretrain"}, {"gpu_count", 100001}}, 2);
}

TEST_CASE("the inter-node fabric sets the data-parallel link and its cost", "[clusters]") {
    // 400 Gb/s InfiniBand per GPU = 50 GB/s x 0.88 NCCL efficiency = 44 GB/s;
    // a 100 Gb/s Ethernet port per 8-GPU server over TCP sockets = 12.5 / 8 x 0.5.
    Json ib = pretrain70b(256);
    ib["interconnect"] = {{"inter_node", "infiniband-ndr"}};
    Json eth = pretrain70b(256);
    eth["interconnect"] = {{"inter_node", "ethernet-100g"}};
    const Json a = answer(ib);
    const Json b = answer(eth);
    CHECK_THAT(explainedText(a, "train_links_gbps"), Catch::Contains("dp 8 over InfiniBand NDR"));
    CHECK(explained(a, "train_links_gbps") == Approx(44.0).epsilon(0.01));
    CHECK(explained(b, "train_links_gbps") == Approx(12.5 / 8 * 0.5).epsilon(0.01));
    CHECK(b["train_tflops_per_gpu"].get<double>() < a["train_tflops_per_gpu"].get<double>());
    // A pipeline across servers sends each micro-batch's activations over the
    // fabric: 8192 tokens x 8192 x 2 bytes / tp 8 = 16.8 MB, twice per chunk;
    // at 0.2 GB/s per GPU (25 Gb/s per 8-GPU server over TCP) that outlasts
    // the compute it overlaps, at 44 GB/s it hides.
    Json slow = pretrain70b(32);
    slow["interconnect"] = {{"inter_node", "ethernet-25g"}};
    Json fast = pretrain70b(32);
    fast["interconnect"] = {{"inter_node", "infiniband-ndr"}};
    const Json slowAnswer = answer(slow);
    CHECK(explained(slowAnswer, "train_pp_send_exposed_s") > 0);
    CHECK(explained(answer(fast), "train_pp_send_exposed_s") == -1);  // hidden: no term
    CHECK(slowAnswer["train_tokens_per_s"].get<double>() < answer(fast)["train_tokens_per_s"].get<double>() / 2);
    // Smaller servers: 4 GPUs per node doubles the nodes.
    Json four = pretrain70b(64);
    four["parallel"] = {{"tp", 4}, {"pp", 4}};
    four["interconnect"] = {{"gpus_per_node", 4}};
    const Json c = answer(four);
    CHECK(c["plan"]["nodes"] == 16);
    CHECK(c["plan"]["gpus_per_node"] == 4);
    Json bad = pretrain70b(64);
    bad["interconnect"] = {{"inter_node", "carrier-pigeon"}};
    CHECK(answer(bad, 2)["error"]["path"] == "/interconnect/inter_node");
}

TEST_CASE("a plan over several nodes names the fabric between them", "[clusters]") {
    // 32 H100 SXM in 8-GPU servers = 4 nodes. Without `interconnect` the
    // fabric is the SXM boards' default, one 400 Gb/s InfiniBand NIC per GPU:
    // 50 GB/s x 0.88 NCCL efficiency = 44 GB/s (speed/comm.cpp).
    const Json byClass = answer(pretrain70b(32));
    REQUIRE(byClass["plan"]["nodes"] == 4);
    const Json link = byClass["plan"]["inter_node"];
    CHECK(link["fabric"].is_null());
    CHECK(link["name"] == "InfiniBand 400 Gb/s");
    CHECK(link["bus_gbps"].get<double>() == Approx(44.0));
    // The fabric the request names, as `explain` shows it on the pipeline's
    // cross-node link: RoCE 200 Gb/s per GPU = 25 GB/s x 0.88 = 22 GB/s.
    Json roce = pretrain70b(32);
    roce["interconnect"] = {{"inter_node", "roce-200g"}};
    const Json named = answer(roce);
    CHECK(named["plan"]["inter_node"]["fabric"] == "roce-200g");
    CHECK(named["plan"]["inter_node"]["name"] == "RoCE 200 Gb/s per GPU");
    CHECK(named["plan"]["inter_node"]["bus_gbps"].get<double>() == Approx(22.0));
    CHECK_THAT(explainedText(named, "train_links_gbps"), Catch::Contains("RoCE 200 Gb/s per GPU"));
    // One 8-GPU server has no link between nodes.
    const Json one = answer({{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"gpu_count", 8}});
    CHECK(one["plan"]["nodes"] == 1);
    CHECK(one["plan"]["inter_node"].is_null());
}

TEST_CASE("a pipeline pays its bubble, which interleaving divides", "[clusters]") {
    // 1F1B bubble = compute x (p - 1) / (v m) (Narayanan et al. 2104.04473 section 2.2):
    // global batch 64 over dp 4 of micro-batch 1 gives m = 16 micro-batches per step.
    Json r = pretrain70b(128);
    r["global_batch"] = 64;
    // Left out, vp follows the recipes: two layers per virtual stage (80 / 4 / 2 = 10).
    CHECK(answer(r)["plan"]["vp"] == 10);
    r["parallel"]["vp"] = 1;
    const Json plain = answer(r);
    REQUIRE(plain["plan"]["dp"] == 4);
    const double compute = explained(plain, "train_step_compute_s");
    CHECK(explained(plain, "train_pipeline_bubble_s") == Approx(compute * 3.0 / 16.0).epsilon(1e-3));
    r["parallel"]["vp"] = 2;
    const Json interleaved = answer(r);
    CHECK(explained(interleaved, "train_pipeline_bubble_s") == Approx(compute * 3.0 / 32.0).epsilon(1e-3));
    CHECK(interleaved["plan"]["vp"] == 2);
    CHECK(interleaved["train_tflops_per_gpu"].get<double>() > plain["train_tflops_per_gpu"].get<double>());
}

TEST_CASE("context parallelism splits each sequence's activations over its ranks", "[clusters]") {
    // Megatron-Core context parallelism gives each rank 1/cp of the sequence:
    // the stored layer activations halve at cp 2 (the logits term too).
    Json r = pretrain70b(64);
    r["seq_len"] = 32768;
    r["gradient_checkpointing"] = false;  // compare stored activations, not the planner's recomputation choice
    r["parallel"] = {{"tp", 8}, {"pp", 4}, {"cp", 1}};
    const double one = answer(r)["memory"]["activations_gib"].get<double>();
    r["parallel"]["cp"] = 2;
    const Json two = answer(r);
    CHECK(two["memory"]["activations_gib"].get<double>() == Approx(one / 2).epsilon(0.01));
    CHECK(two["plan"]["cp"] == 2);
    CHECK(two["plan"]["dp"] == 1);
    Json serving = {{"model", "llama-3-70b"}, {"gpu", "h100"}, {"gpu_count", 8}, {"parallel", {{"cp", 2}}}};
    CHECK(answer(serving, 2)["error"]["path"] == "/parallel/cp");
}

TEST_CASE("expert parallelism spreads routed experts and pays its all-to-all", "[clusters]") {
    // Qwen3-30B-A3B: 128 routed experts in each of 48 layers; EP 8 keeps
    // 1/8 of them per GPU instead of all of them.
    Json r = {{"model", "qwen3-30b-a3b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"},
              {"gpu_count", 16},         {"seq_len", 4096},          {"parallel", {{"strategy", "tensor"}, {"tp", 1}, {"pp", 2}, {"ep", 1}}}};
    const Json replicated = answer(r);
    r["parallel"]["ep"] = 8;
    const Json spread = answer(r);
    CHECK(spread["plan"]["ep"] == 8);
    CHECK(spread["memory"]["weights_gib"].get<double>() < replicated["memory"]["weights_gib"].get<double>() / 4);
    CHECK(explained(spread, "train_ep_all_to_all_s") > 0);
    r["parallel"]["ep"] = 6;  // 128 experts do not divide by 6
    CHECK(answer(r, 2)["error"]["path"] == "/parallel/ep");
    Json dense = pretrain70b(64);
    dense["parallel"]["ep"] = 8;
    CHECK(answer(dense, 2)["error"]["code"] == "incompatible_options");
}

TEST_CASE("pre-training an MoE model spreads its experts inside a node unless the request sets ep", "[clusters]") {
    // Qwen3-30B-A3B has 128 routed experts; on 16 H100 (8 per node) the
    // largest degree dividing the experts and the stage's GPUs within a node is 8.
    const Json r = answer({{"model", "qwen3-30b-a3b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"}, {"gpu_count", 16}});
    CHECK(r["plan"]["ep"] == 8);
    const Json fixed = answer({{"model", "qwen3-30b-a3b"},
                               {"gpu", "h100-sxm5-80gb"},
                               {"task", "pretrain"},
                               {"gpu_count", 16},
                               {"parallel", {{"ep", 2}}}});
    CHECK(fixed["plan"]["ep"] == 2);
    CHECK(fixed["memory"]["weights_gib"].get<double>() > r["memory"]["weights_gib"].get<double>());
    // A dense model keeps ep 1.
    CHECK(answer(pretrain70b(64))["plan"]["ep"] == 1);
}

TEST_CASE("the planner's Megatron layout for Llama 3 70B fits and interleaves two layers per virtual stage", "[clusters]") {
    // Megatron's default layout on 64 H100: TP 8 in the node, the fewest
    // stages that fit with the interleaved schedule's extra in-flight
    // activations (1 + (p - 1) / (p v)) counted, two layers per virtual stage.
    const Json r = answer({{"model", "llama-3-70b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"}, {"gpu_count", 64},
                           {"seq_len", 8192}, {"gradient_checkpointing", false}});
    const int pp = r["plan"]["pp"].get<int>();
    CHECK(r["plan"]["tp"] == 8);
    if (pp > 1) CHECK(r["plan"]["vp"] == 80 / pp / 2);
    CHECK(r["fits"] == true);
}

TEST_CASE("selective recomputation drops the attention scores and recomputes the attention core", "[clusters]") {
    // Llama-2-7B (32 layers, 32 heads) on 8 H100s, Megatron, bf16, s 1024,
    // b 1, eager attention: Korthikanti et al. (2205.05198) Table 2 keeps
    // 5 a s^2 b bytes of scores per layer, which selective recomputation
    // (their section 4.2; Megatron's core_attn module) does not keep:
    // 32 x 5 x 32 x 1024^2 = 5,368,709,120 bytes = 5 GiB.
    Json r = megatronLlama2At1k();
    const Json kept = answer(r);
    r["gradient_checkpointing"] = "selective";
    const Json selective = answer(r);
    CHECK(kept["memory"]["activations_gib"].get<double>() - selective["memory"]["activations_gib"].get<double>() ==
          Approx(5.0).epsilon(1e-4));
    // The recomputed attention core adds its forward, 2 L s d_attn of the
    // 6 L s d_attn training count: compute grows by (A / 3) / (6 N + A) with
    // N = 6,607,077,376 matmul parameters (lm_head included) and
    // A = 6 x 32 x 1024 x 4096 = 805,306,368 FLOPs per token: x 1.0066366.
    REQUIRE(explained(kept, "train_step_compute_s") > 0);
    CHECK(explained(selective, "train_step_compute_s") / explained(kept, "train_step_compute_s") ==
          Approx(1.0066366).epsilon(1e-5));
    CHECK(selective["plan"]["gradient_checkpointing"] == false);
    r["gradient_checkpointing"] = "partial";
    const Json bad = answer(r, 2);
    CHECK(bad["error"]["code"] == "invalid_value");
    CHECK(bad["error"]["path"] == "/gradient_checkpointing");
}

TEST_CASE("recompute_modules reads Megatron-Core's module names", "[clusters]") {
    // "core_attn" is the selective recomputation above; "layernorm" frees the
    // two norm outputs of each layer (Llama-2-7B, h 4096, 32 layers, s 1024,
    // b 1: 32 x 2 x 2 x 1024 x 4096 bytes = 0.5 GiB) and says so in explain.
    Json r = megatronLlama2At1k();
    const Json kept = answer(r);
    r["gradient_checkpointing"] = "selective";
    const Json selective = answer(r);
    r.erase("gradient_checkpointing");
    r["recompute_modules"] = Json::array({"core_attn"});
    CHECK(answer(r)["memory"]["activations_gib"] == selective["memory"]["activations_gib"]);
    r["recompute_modules"] = Json::array({"layernorm"});
    r["gradient_checkpointing"] = false;
    const Json norms = answer(r);
    CHECK(kept["memory"]["activations_gib"].get<double>() - norms["memory"]["activations_gib"].get<double>() ==
          Approx(0.5).epsilon(1e-4));
    CHECK(explainedText(norms, "activations_gib").find("recompute_modules layernorm") != std::string::npos);
    r["recompute_modules"] = Json::array({"mlp"});
    const Json bad = answer(r, 2);
    CHECK(bad["error"]["code"] == "invalid_value");
    CHECK(bad["error"]["path"] == "/recompute_modules");
}

TEST_CASE("an expert-parallel group over two nodes sends only the other node's share over the network", "[clusters]") {
    // Qwen3-30B-A3B (48 MoE layers, hidden 2048, top-8) on 16 H100 in two
    // nodes of 8, EP 16, micro-batch 1 x 4096 tokens: each GPU's routed copies,
    // 4096 x 2048 x 8 x 2 bytes = 134,217,728, go to the 16 ranks alike, 8 of
    // 16 across the network (InfiniBand NDR at 44 GB/s) while 7 of 16 take
    // NVLink at the same time. Dispatch + combine, forward + backward, 4
    // passes of 40 us + 67,108,864 B / 44 GB/s per layer, the busiest rank
    // receiving 1.25 x the mean (dropless routing, training/moe_step.cpp)
    // and half of it hidden under another micro-batch's compute; 256
    // sequences over 16 replicas are 16 micro-batches:
    // 0.5 x 4 x (40e-6 + 1.25 x 1.52522e-3) s x 48 x 16 = 2.9594 s.
    Json r = {{"model", "qwen3-30b-a3b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"}, {"engine", "megatron"},
              {"gpu_count", 16},         {"seq_len", 4096},          {"batch", 1},        {"global_batch", 256},
              {"weights", "bf16"},       {"gradient_checkpointing", false},
              {"parallel", {{"tp", 1}, {"pp", 1}, {"ep", 16}}}};
    const Json two = answer(r);
    REQUIRE(two["plan"]["ep"] == 16);
    CHECK(explained(two, "train_ep_all_to_all_s") == Approx(0.5 * 4.0 * (40e-6 + 1.25 * 67108864.0 / 44e9) * 48 * 16).epsilon(1e-3));
}

TEST_CASE("a hybrid stack's training FLOPs count attention on its attention layers only", "[clusters]") {
    // Nemotron 3 Nano: 52 layers, 23 Mamba-2 and 23 MoE-only among them, so
    // 6 attention layers of 32 heads x 128 (config.json hybrid_override_pattern).
    // Causal attention adds 6 L_attn d_attn per token and token of context
    // (Megatron-LM training.py hybrid_flops: attention only for its attention
    // layers): 4096 more tokens add 6 x 6 x 4096 x 4096 = 603,979,776 FLOPs per token.
    Json r = {{"model", "nemotron-3-nano-30b-a3b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"}, {"engine", "megatron"},
              {"gpu_count", 8}, {"seq_len", 4096}, {"batch", 1}, {"gradient_checkpointing", true}};
    const double at4k = explained(answer(r), "train_model_flops_per_token");
    r["seq_len"] = 8192;
    const double at8k = explained(answer(r), "train_model_flops_per_token");
    CHECK(at8k - at4k == Approx(603979776.0).epsilon(1e-3));  // explain values carry 6 significant digits
}

namespace {

// Megatron-Bridge's MoE pre-training layouts (docs/performance-summary.md,
// "26.08 NeMo Container", DGX-GB200 and DGX-H100 rows of the archive): FP8,
// no recomputation, bf16 gradient reduction.
Json moePretrain(const std::string& model, const std::string& gpu, int gpus, int microBatch, int globalBatch, Json parallel) {
    return {{"model", model},          {"gpu", gpu},          {"task", "pretrain"},         {"engine", "megatron"},
            {"weights", "fp8"},        {"gpu_count", gpus},   {"batch", microBatch},        {"seq_len", 4096},
            {"global_batch", globalBatch}, {"parallel", parallel}, {"gradient_checkpointing", false},
            {"fp32_gradients", false}};
}

}  // namespace

TEST_CASE("an NVL72 rack is one NVLink domain: expert parallelism inside it runs over NVLink", "[clusters]") {
    // GB200 NVL72: NVLink switches join all 72 GPUs of the rack (the catalog's
    // nvlink_max_gpus and gpus_per_node), so EP 64 never leaves NVLink; on HGX
    // H100 (8 per server) EP 16 crosses InfiniBand.
    const Json rack = answer(moePretrain("gpt-oss-120b", "gb200", 64, 4, 1280, {{"tp", 1}, {"pp", 1}, {"ep", 64}}));
    CHECK(rack["plan"]["nodes"] == 1);
    CHECK_THAT(explainedText(rack, "train_links_gbps"), Catch::Contains("ep 64 over NVLink"));
    const Json hgx = answer(moePretrain("qwen3-30b-a3b", "h100-sxm5-80gb", 16, 1, 1024, {{"tp", 1}, {"pp", 1}, {"ep", 16}}));
    CHECK_THAT(explainedText(hgx, "train_links_gbps"), Catch::Contains("ep 16 over InfiniBand"));
    // Measured: 934 model TFLOP/s per GPU (gpt-oss-120b, 64 GB200, MXFP8, EP 64,
    // Megatron-Bridge 26.08). Across InfiniBand the same layout would be
    // all-to-all bound at a fraction of that; inside the rack the estimate
    // stays within the training band of it.
    const double tflops = rack["train_tflops_per_gpu"].get<double>();
    CHECK(tflops > 934 * 0.75);
    CHECK(tflops < 934 * 1.35);
}

TEST_CASE("expert gradients are reduced among the ranks that hold the same experts", "[clusters]") {
    // DeepSeek-V3 on 256 GB200 (TP 1, PP 4, VP 4, EP 64; Megatron-Bridge 26.08:
    // 1,276 TFLOP/s per GPU): each GPU holds 1/(pp x ep) of the 654B routed
    // expert weights, ~2.6B, and reduces their gradients among 256 / 256 = 1
    // rank; only the ~17B non-expert weights over 4 stages go through the
    // 64-way data-parallel all-reduce over InfiniBand (2 x 4.2B x 2 bytes /
    // 44 GB/s = 0.4 s, hidden under the backward pass). Reducing every
    // weight's gradient there (2 x 168B x 2 bytes / 44 GB/s = 15 s a step)
    // made the plan communication-bound.
    const Json r = answer(moePretrain("deepseek-v3", "gb200", 256, 1, 4096, {{"tp", 1}, {"pp", 4}, {"vp", 4}, {"ep", 64}}));
    CHECK(explained(r, "train_dp_comm_exposed_s") < 0.5);
    for (const Json& w : r["warnings"]) CHECK(w["code"] != "communication_bound");
    const double tflops = r["train_tflops_per_gpu"].get<double>();
    CHECK(tflops > 1276 * 0.75);
    CHECK(tflops < 1276 * 1.35);
}

TEST_CASE("Megatron takes the smallest model-parallel size that fits, tensor parallelism first within it", "[clusters]") {
    // Narayanan et al. 2104.04473, takeaway #2: t x p just large enough for
    // the model to fit, data parallelism over the rest. With the
    // distributed optimizer over dp ranks a GPU holds bf16 weights (2 B),
    // fp32 main gradients (4 B: Megatron accumulates bf16 runs' gradients in
    // fp32) and 12 B of Adam state / dp, all / tp. Llama-3-8B (8.03e9) at
    // TP 1 x DP 8: 7.5 B x 8.03e9 = 56.1 GiB of states beside about 20 GiB
    // of activations at 4,096 tokens without recomputation: it fits in
    // 80 GiB, as NeMo 24.07's table runs LLAMA3-8B on 8 H100 at TP 1 x CP 2
    // over 8,192-token sequences (4,096 tokens per GPU) and Megatron-Bridge
    // 25.11's at TP 1 (validation/public-v2.jsonl). Llama-2-13B (13.0e9)
    // at TP 1 needs 7.5 B x 13.0e9 = 90.9 GiB of states alone, more than
    // the card: TP 2 x DP 4 (the Megatron-LM README's weak-scaling table
    // likewise runs 7.1B at TP 2 and 32B at TP 8), not one TP 8 replica;
    // a 1B model trains as eight replicas.
    auto plan = [](const std::string& model) {
        return answer({{"model", model}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"}, {"engine", "megatron"},
                       {"gpu_count", 8}, {"seq_len", 4096}, {"batch", 1}, {"gradient_checkpointing", false}})["plan"];
    };
    const Json small = plan("llama-3.2-1b");
    CHECK(small["tp"] == 1);
    CHECK(small["pp"] == 1);
    CHECK(small["dp"] == 8);
    const Json eight = plan("llama-3-8b");
    CHECK(eight["tp"] == 1);
    CHECK(eight["pp"] == 1);
    CHECK(eight["dp"] == 8);
    const Json thirteen = plan("llama-2-13b");
    CHECK(thirteen["tp"] == 2);
    CHECK(thirteen["pp"] == 1);
    CHECK(thirteen["dp"] == 4);
    // Beyond one node's worth of model parallelism: TP 8 in the node, then
    // stages (the table's 70B-462B: TP 8 x PP 2-16).
    const Json large = answer({{"model", "llama-3.1-405b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"},
                               {"engine", "megatron"}, {"gpu_count", 1024}, {"seq_len", 4096}, {"batch", 1},
                               {"gradient_checkpointing", true}})["plan"];
    CHECK(large["tp"] == 8);
    CHECK(large["pp"].get<int>() >= 2);
    CHECK(large["dp"].get<int>() * large["pp"].get<int>() * 8 == 1024);
}

TEST_CASE("Llama 3 405B on 16,384 H100 at Meta's batch runs a shallow pipeline, not 64 stages", "[clusters]") {
    // Llama 3 paper (arXiv 2407.21783) Table 4: 16,384 H100, TP 8 x CP 1 x
    // PP 16 x DP 128, sequences of 8,192 tokens, 16M tokens per batch (2,048
    // sequences), 400 TFLOP/s per GPU. At that batch a pipeline of 64 stages
    // has 2,048 / 32 = 64 micro-batches per replica for 63 idle slots, so the
    // plan that needs no recomputation only at 64 stages is the slower one.
    // Splitting each sequence in two (CP 2, as NeMo's 405B layout TP 8 x PP 8
    // x CP 2 does) halves the activations, so 8 stages fit without
    // recomputation; without a context split, checkpointing lets a pipeline
    // of at most 16 stages fit and keeps the bubble small.
    const Json request = {{"model", "llama-3.1-405b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"},
                          {"engine", "megatron"},       {"gpu_count", 16384},       {"seq_len", 8192},
                          {"batch", 1},                 {"global_batch", 2048}};
    const Json chosen = answer(request);
    CHECK(chosen["plan"]["tp"] == 8);
    CHECK(chosen["plan"]["pp"].get<int>() <= 16);
    Json deep = request;
    deep["parallel"] = {{"tp", 8}, {"pp", 64}};
    deep["gradient_checkpointing"] = false;
    const Json sixtyFour = answer(deep);
    REQUIRE(sixtyFour["fits"] == true);
    CHECK(chosen["train_tflops_per_gpu"].get<double>() > sixtyFour["train_tflops_per_gpu"].get<double>());
    CHECK(chosen["plan"]["cp"] == 2);
    CHECK(chosen["plan"]["gradient_checkpointing"] == false);
    Json whole = request;
    whole["parallel"] = {{"cp", 1}};
    const Json unsplit = answer(whole);
    CHECK(unsplit["plan"]["pp"].get<int>() <= 16);
    bool saysWhy = false;
    for (const Json& code : unsplit["plan"]["why"]) saysWhy = saysWhy || code == "checkpointing_shallower_pipeline_faster";
    CHECK(saysWhy);
}

TEST_CASE("only NVIDIA's China-market boards carry the capped-NVLink note", "[clusters][warnings]") {
    auto warns = [](const Json& result, const std::string& code) {
        for (const Json& w : result["warnings"]) {
            if (w["code"] == code) return true;
        }
        return false;
    };
    // A800: NVLink 400 GB/s against the A100's 600 (NVIDIA, November 2022).
    CHECK(warns(answer({{"model", "qwen3-32b"}, {"gpu", "a800-sxm4-80gb"}, {"gpu_count", 2}}), "limited_nvlink"));
    // Ascend 910B2: HCCS at its own 392 GB/s, no export variant of anything.
    CHECK_FALSE(warns(answer({{"model", "qwen3-32b"}, {"gpu", "ascend-910b2"}, {"gpu_count", 2}}), "limited_nvlink"));
}

TEST_CASE("Megatron at 8,192 tokens splits each sequence before adding tensor parallelism; without either it is data parallel",
          "[clusters][planner]") {
    // NeMo's Llama 3 8B recipe (nemo/collections/llm/recipes/llama3_8b.py:
    // tensor 1, pipeline 1, context_parallelism 2, seq_length 8192) ran on 8
    // H100 in NeMo 24.07's performance summary (FP8, micro-batch 1, global
    // batch 128; validation/public-v2.jsonl nemo-2407-llama3-8b-*), and
    // Megatron-Core's parallelism guide lists context parallelism for
    // sequences of 8K+ tokens. Each GPU keeps 8,192 / 2 = 4,096 tokens of a
    // sequence, and the replicas are 8 / 2 = 4.
    Json request = {{"model", "llama-3-8b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"}, {"engine", "megatron"},
                    {"gpu_count", 8},        {"seq_len", 8192},          {"batch", 1},        {"global_batch", 128},
                    {"weights", "fp8"},      {"fp32_gradients", false}};
    const Json split = answer(request);
    CHECK(split["fits"] == true);
    CHECK(split["plan"]["tp"] == 1);
    CHECK(split["plan"]["pp"] == 1);
    CHECK(split["plan"]["cp"] == 2);
    CHECK(split["plan"]["dp"] == 4);
    CHECK(split["plan"]["gradient_checkpointing"] == false);
    // Neither tensor nor pipeline stages: Megatron-Core's data parallelism
    // (its DistributedDataParallel with the distributed optimizer), named so.
    CHECK(split["strategy"] == "ddp");
    CHECK(split["plan"]["strategy"] == "ddp");
    // At 4,096 tokens (below 8K) nothing is split: eight replicas.
    request["seq_len"] = 4096;
    const Json replicas = answer(request);
    CHECK(replicas["plan"]["cp"] == 1);
    CHECK(replicas["plan"]["dp"] == 8);
    CHECK(replicas["strategy"] == "ddp");
}

TEST_CASE("pre-training without a global batch takes ~4M tokens a step and at least one micro-batch per stage",
          "[clusters][planner]") {
    // Llama 3 (arXiv 2407.21783, section 3.4.1) trained 405B at 4M tokens per
    // batch, then 8M and 16M; on 16,384 H100 it ran PP 16 at 16 micro-batches
    // a step (Table 4: batch size per DP 16), one per stage. So a pipeline of
    // p stages over dp replicas runs m = max(p, ceil(4e6 / (8,192 x dp)))
    // micro-batches, and its bubble is (p - 1) / (vp x m): a deeper pipeline
    // pays for its depth instead of growing the batch.
    const Json r = answer({{"model", "llama-3.1-405b"}, {"gpu", "h100-sxm5-80gb"}, {"task", "pretrain"},
                           {"engine", "megatron"},       {"gpu_count", 16384},       {"seq_len", 8192}});
    const Json& plan = r["plan"];
    REQUIRE(r["fits"] == true);
    CHECK(plan["tp"] == 8);
    CHECK(plan["pp"].get<int>() <= 16);
    CHECK(plan["vp"].get<int>() > 1);
    const int pp = plan["pp"].get<int>(), dp = plan["dp"].get<int>(), vp = plan["vp"].get<int>();
    const int m = std::max(pp, static_cast<int>(std::ceil(4.0e6 / (8192.0 * dp))));
    const std::string bubble = explainedText(r, "train_pipeline_bubble_s");
    CHECK(bubble.find(std::to_string(pp - 1) + " / (" + std::to_string(vp) + " x " + std::to_string(m) + ")") !=
          std::string::npos);
}
