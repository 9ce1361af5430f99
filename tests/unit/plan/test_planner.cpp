// The planner: the knobs practitioners turn (checkpointing, DDP vs ZeRO,
// tensor vs pipeline degrees, the GPU count within a limit), the plan
// object it reports, and the cases that used to come out absurd.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "caliper/api.hpp"
#include "api_fixture.hpp"
#include "catalog_fixture.hpp"
#include "result_fixture.hpp"

using caliper::test::kGiB;
using caliper::test::listHasCode;
using caliper::test::projectCatalog;
using Json = nlohmann::json;

using caliper::test::estimateOk;

TEST_CASE("gradient_checkpointing takes true, false and \"auto\" (the default)", "[planner]") {
    const Json r = estimateOk(R"({"model":"llama-3.1-8b","gpu":"4090","task":"finetune","method":"lora"})");
    CHECK(r["plan"]["gradient_checkpointing"].is_boolean());
    const caliper::ApiResponse bad = caliper::estimateJson(
        projectCatalog(), R"({"model":"llama-3.1-8b","gpu":"4090","task":"finetune","gradient_checkpointing":"maybe"})");
    REQUIRE(bad.status == 2);
    const Json error = Json::parse(bad.json)["error"];
    CHECK(error["code"] == "invalid_value");
    CHECK(error["path"] == "/gradient_checkpointing");
    // Asked off, it stays off whatever the memory.
    const Json off = estimateOk(
        R"({"model":"llama-3.1-8b","gpu":"4090","task":"finetune","method":"lora","gradient_checkpointing":false,"gpu_count":1})");
    CHECK(off["plan"]["gradient_checkpointing"] == false);
}

TEST_CASE("the plan object names every knob and why", "[planner]") {
    const Json r = estimateOk(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","task":"finetune","method":"full","gpu_count":8})");
    for (const char* key : {"strategy", "tp", "pp", "ep", "dp", "attention_dp", "nodes", "gpus_per_node",
                            "gradient_checkpointing", "micro_batch", "offload", "gpu_layers", "cpu_moe_layers", "inter_node", "why"}) {
        INFO(key);
        CHECK(r["plan"].contains(key));
    }
    CHECK(r["plan"]["why"].size() >= 2);
    CHECK(r["plan"]["tp"].get<int>() * r["plan"]["pp"].get<int>() * r["plan"]["dp"].get<int>() == 8);
}

TEST_CASE("LoRA of an 8B model on one 24 GB card: one GPU with checkpointing", "[planner]") {
    // Llama-3.1-8B in bf16 is 8.03e9 x 2 B = 15.0 GiB. Without checkpointing
    // the 32 layers keep ~0.32 GiB of activations each at 2,048 tokens
    // (s*h*(12 + 4/4) + 8*s*f bytes), ~10 GiB: over 24 GB. With it, each
    // layer keeps its 2*s*h = 16 MiB input and one layer is recomputed, so it
    // fits one 4090 (the usual PEFT recipe on a 24 GB card).
    const Json r = estimateOk(R"({"model":"llama-3.1-8b","gpu":"4090","gpu_count":"auto","task":"finetune","method":"lora"})");
    CHECK(r["gpus_needed"] == 1);
    CHECK(r["gpu_count"] == 1);
    CHECK(r["fits"] == true);
    CHECK(r["plan"]["gradient_checkpointing"] == true);
    CHECK(listHasCode(r["plan"]["why"], "checkpointing_needed_to_fit"));
}

TEST_CASE("DDP is chosen over ZeRO-3 when the model fits one GPU", "[planner]") {
    // LoRA of an 8B model fits one 48 GB RTX 6000 Ada: on four of them plain
    // DDP (one all-reduce of the adapter gradients) beats ZeRO-3, which
    // gathers every layer's 16-bit weights twice per step.
    const Json r = estimateOk(
        R"({"model":"llama-3.1-8b","gpu":"rtx-6000-ada","gpu_count":4,"task":"finetune","method":"lora"})");
    CHECK(r["fits"] == true);
    CHECK(r["strategy"] == "ddp");
    CHECK(r["plan"]["dp"] == 4);
    CHECK(listHasCode(r["plan"]["why"], "strategy_replicas_fit"));
    const Json zero3 = estimateOk(
        R"({"model":"llama-3.1-8b","gpu":"rtx-6000-ada","gpu_count":4,"task":"finetune","method":"lora","parallel":{"strategy":"zero3"}})");
    CHECK(r["train_tokens_per_s"].get<double>() > zero3["train_tokens_per_s"].get<double>());
}

TEST_CASE("full fine-tuning of an 8B model on A100 40GB shards states and checkpoints", "[planner]") {
    // 16 B/parameter of mixed-precision AdamW states = 120 GiB for 8.03e9
    // parameters: ZeRO-3 needs at least 4 GPUs for the states alone (30 GiB
    // each of 39 usable); with checkpointing the activations are ~1 GiB plus
    // the 16*s*V-byte logits (3.9 GiB), so a handful of GPUs fit, never 153.
    // (States kept on the GPUs: offload "none".)
    const Json r = estimateOk(
        R"({"model":"llama-3-8b","gpu":"a100-sxm4-40gb","gpu_count":"auto","task":"finetune","method":"full","parallel":{"offload":"none"}})");
    REQUIRE(r["gpus_needed"].is_number());
    CHECK(r["gpus_needed"].get<int>() >= 4);
    CHECK(r["gpus_needed"].get<int>() <= 8);
    CHECK(r["plan"]["gradient_checkpointing"] == true);
    // Left to the planner, fewest GPUs first: ZeRO-Offload on one card (Ren
    // et al. 2101.06840 train 13B on one 32 GB V100), its 16-bit weights
    // 8.03e9 x 2 B = 14.96 GiB on the GPU and 8.03e9 x 16 x 1.5 B = 179.5
    // GiB in host RAM: one GPU's share of the server assumed beside it
    // (2 TiB for 8 GPUs, host.basis: 256 GiB, host_share.cpp).
    const Json fewest = estimateOk(R"({"model":"llama-3-8b","gpu":"a100-sxm4-40gb","gpu_count":"auto","task":"finetune","method":"full"})");
    CHECK(fewest["fits"] == true);
    CHECK(fewest["gpus_needed"] == 1);
    CHECK(fewest["plan"]["offload"] == "optimizer");
    CHECK(fewest["memory"]["cpu_offload_gib"].get<double>() == Approx(8.03e9 * 16 * 1.5 / kGiB).epsilon(0.01));
}

TEST_CASE("serving keeps tensor parallelism inside a node and names a pipeline a pipeline", "[planner]") {
    // Llama-3.1-405B on 16 H100: 8 per HGX server, so TP 8 x PP 2, never TP 16.
    Json r = estimateOk(R"({"model":"llama-3.1-405b","gpu":"h100-sxm5-80gb","gpu_count":16,"weights":"fp8"})");
    CHECK(r["plan"]["tp"].get<int>() <= r["plan"]["gpus_per_node"].get<int>());
    CHECK(r["plan"]["tp"] == 8);
    CHECK(r["plan"]["pp"] == 2);
    CHECK_FALSE(listHasCode(r["warnings"], "tp_across_nodes"));
    // 7 GPUs cannot split 64 heads: a pipeline of 7 stages, named so.
    r = estimateOk(R"({"model":"llama-2-70b","gpu":"4090","gpu_count":7,"weights":"awq-int4"})");
    CHECK(r["plan"]["tp"] == 1);
    CHECK(r["strategy"] == "pipeline");
}

TEST_CASE("within a GPU limit the planner takes the count that runs faster per GPU", "[planner]") {
    // Llama-2-70B in bf16 (~128 GiB) on 24 GB cards: 7 would fit only as a
    // 7-stage pipeline, which decodes one stage after another at batch 1;
    // 8 run tensor parallel and read each stage's weights at once.
    const Json r = estimateOk(R"({"model":"llama-2-70b","gpu":"4090","gpu_count":"auto","max_gpus":8})");
    if (r["fits"] == true) {
        CHECK(r["gpu_count"] == 8);
        CHECK(r["strategy"] == "tensor");
        CHECK(r["plan"]["tp"] == 8);
    }
}

TEST_CASE("power: board power or null with a warning, never 0 for a running plan", "[planner][power]") {
    const Json h100 = estimateOk(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb"})");
    CHECK(h100["power_w"].get<double>() > 700);  // one 700 W SXM part plus its host share
    // HGX H100 boards ship air-cooled: no liquid-cooling warning.
    const Json hgx = estimateOk(R"({"model":"llama-3.1-70b","gpu":"h100-sxm5-80gb","gpu_count":8})");
    CHECK_FALSE(listHasCode(hgx["warnings"], "liquid_cooling"));
    // GB200 comes in NVL72 racks, which are liquid-cooled.
    const Json gb200 = estimateOk(R"({"model":"llama-3.1-70b","gpu":"gb200","gpu_count":4})");
    CHECK(listHasCode(gb200["warnings"], "liquid_cooling"));
    // Ascend 910B: the catalog has no board power from a source.
    const Json ascend = estimateOk(R"({"model":"llama-3.1-8b","gpu":"ascend-910b"})");
    CHECK(ascend["power_w"].is_null());
    CHECK(listHasCode(ascend["warnings"], "power_unknown"));
    // A plan that does not fit does not run: no power figure.
    const Json no = estimateOk(R"({"model":"llama-3.1-405b","gpu":"4090","gpu_count":1})");
    CHECK(no["fits"] == false);
    CHECK(no["power_w"].is_null());
}

TEST_CASE("an Apple plan draws the Mac's published maximum, with no host share", "[planner][power]") {
    // Apple support 102027: a Mac Studio (2025) M3 Ultra (80-core GPU) draws at
    // most 270 W at the wall; one Mac runs the plan, so 1 x 270 W + 0 W host.
    const Json studio = estimateOk(R"({"model":"llama-3.1-8b","gpu":"apple-m3-ultra-80c"})");
    REQUIRE(studio["fits"] == true);
    CHECK(studio["power_w"].get<double>() == Approx(270.0));
    CHECK_FALSE(listHasCode(studio["warnings"], "power_unknown"));
    // Apple support 103253: a Mac mini (2024) with the M4 draws at most 65 W.
    const Json mini = estimateOk(R"({"model":"llama-3.1-8b","gpu":"apple-m4-10c-24gb"})");
    REQUIRE(mini["fits"] == true);
    CHECK(mini["power_w"].get<double>() == Approx(65.0));
    // The M3 Max ships only in notebooks, for which Apple publishes no maximum.
    const Json laptop = estimateOk(R"({"model":"llama-3.1-8b","gpu":"apple-m3-max-40c"})");
    CHECK(laptop["power_w"].is_null());
    CHECK(listHasCode(laptop["warnings"], "power_unknown"));
}

TEST_CASE("explain holds no negative figure when a serving pool does not fit", "[planner]") {
    const Json r = estimateOk(R"({"model":"llama-3.1-70b","gpu":"h100-sxm5-80gb","gpu_count":1})");
    CHECK(r["fits"] == false);
    for (const Json& term : r["explain"]) {
        INFO(term["term"]);
        CHECK(term["value"].get<double>() >= 0);
    }
}

TEST_CASE("make it fit proposes only changes that fit when applied", "[planner]") {
    const std::string base = R"({"model":"llama-3.1-70b","gpu":"a100-sxm4-80gb","gpu_count":2,"task":"finetune","method":"full"})";
    const Json r = estimateOk(base);
    REQUIRE(r["fits"] == false);
    for (const Json& s : r["suggestions"]) {
        INFO(s.dump());
        CHECK(s["fits"] == true);
    }
    for (const Json& s : r["suggestions"]) {
        if (s["change"] != "more_gpus") continue;
        Json applied = Json::parse(base);
        applied["gpu_count"] = s["gpu_count"];
        CHECK(estimateOk(applied.dump())["fits"] == true);
    }
}

TEST_CASE("batch \"auto\" searches the training micro-batch: larger while it fits and runs faster", "[planner][micro-batch]") {
    // LoRA of Llama 3.1 8B on one H100 at 512-token sequences: one sequence
    // per micro-batch runs the GEMMs at 512 rows, 0.71 of their rate at 4096
    // (training_efficiency.cpp, DeepGEMM's table by M); eight sequences reach
    // 4096 rows, and sixteen gain nothing more (the rate is held beyond
    // 4096), so the search keeps eight: faster than one, with more
    // activation memory, and a larger one runs no faster.
    const std::string base = R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","gpu_count":1,"task":"finetune","method":"lora","seq_len":512,)";
    const Json one = estimateOk(base + R"("batch":1})");
    const Json searched = estimateOk(base + R"("batch":"auto"})");
    CHECK(one["plan"]["micro_batch"] == 1);
    REQUIRE(searched["fits"] == true);
    CHECK(searched["plan"]["micro_batch"] == 8);
    CHECK(listHasCode(searched["plan"]["why"], "micro_batch_fastest"));
    CHECK(searched["train_tokens_per_s"].get<double>() > one["train_tokens_per_s"].get<double>());
    CHECK(searched["memory"]["activations_gib"].get<double>() > one["memory"]["activations_gib"].get<double>());
    // The chosen micro-batch is the plan an explicit batch of 8 gives.
    const Json eight = estimateOk(base + R"("batch":8})");
    CHECK(searched["train_tokens_per_s"].get<double>() == Approx(eight["train_tokens_per_s"].get<double>()));
    CHECK(searched["memory"]["total_gib"].get<double>() == Approx(eight["memory"]["total_gib"].get<double>()));
    // With the count left open too, the count is the fewest that fit
    // micro-batch 1 (the leanest), and its reason stays first.
    std::string open = base;
    open.replace(open.find(R"("gpu_count":1)"), 13, R"("gpu_count":"auto")");
    const Json both = estimateOk(open + R"("batch":"auto"})");
    CHECK(both["gpu_count"] == 1);
    CHECK(both["gpus_needed"] == 1);
    CHECK(both["plan"]["micro_batch"] == 8);
    CHECK(both["plan"]["why"][1] == "count_fewest_that_fit");
}

TEST_CASE("a training request without batch searches the micro-batch; a stated batch is kept", "[planner][micro-batch]") {
    // The same LoRA run as above (Llama 3.1 8B, one H100, 512-token
    // sequences) with batch left out: the search is the default, so it
    // answers exactly what "batch": "auto" answers, micro-batch 8 (8 x 512 =
    // 4096 GEMM rows, the reference the rate is held at beyond).
    const std::string base = R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","gpu_count":1,"task":"finetune","method":"lora","seq_len":512)";
    const caliper::ApiResponse unstated = caliper::estimateJson(projectCatalog(), base + "}");
    const caliper::ApiResponse searched = caliper::estimateJson(projectCatalog(), base + R"(,"batch":"auto"})");
    REQUIRE(unstated.status == 0);
    CHECK(unstated.json == searched.json);
    const Json r = Json::parse(unstated.json);
    CHECK(r["plan"]["micro_batch"] == 8);
    CHECK(listHasCode(r["plan"]["why"], "micro_batch_fastest"));
    // A stated number keeps its meaning: one sequence per micro-batch, and
    // no reason for a micro-batch the planner did not choose.
    const Json one = estimateOk(base + R"(,"batch":1})");
    CHECK(one["plan"]["micro_batch"] == 1);
    for (const Json& code : one["plan"]["why"]) CHECK(code.get<std::string>().rfind("micro_batch_", 0) != 0);
    // Inference keeps one sequence by default.
    CHECK(estimateOk(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb"})")["scenario"]["batch"] == 1);
}

TEST_CASE("the micro-batch search stops at memory and at the global batch", "[planner][micro-batch]") {
    // QLoRA of Llama 3.1 8B on a 24 GB RTX 4090 at 1,024 tokens: activations
    // grow with the micro-batch until the next doubling no longer fits (with
    // the eager loss; left "auto", a stated micro-batch that does not fit
    // would take the fused linear one).
    const std::string qlora =
        R"({"model":"llama-3.1-8b","gpu":"4090","gpu_count":1,"task":"finetune","method":"qlora","seq_len":1024,"loss_kernel":"eager",)";
    const Json searched = estimateOk(qlora + R"("batch":"auto"})");
    REQUIRE(searched["fits"] == true);
    const int micro = searched["plan"]["micro_batch"].get<int>();
    CHECK(micro > 1);
    CHECK(listHasCode(searched["plan"]["why"], "micro_batch_largest_that_fits"));
    CHECK(estimateOk(qlora + R"("batch":)" + std::to_string(2 * micro) + "}")["fits"] == false);
    // A global batch of 4 sequences on one replica admits micro-batches 1, 2
    // and 4 only (Megatron: global = micro x dp x accumulation steps).
    const Json capped = estimateOk(qlora + R"("batch":"auto","global_batch":4})");
    CHECK(capped["plan"]["micro_batch"] == 4);
    CHECK(listHasCode(capped["plan"]["why"], "micro_batch_divides_global_batch"));
}

TEST_CASE("a pipeline keeps one 4096-token sequence per micro-batch", "[planner][micro-batch]") {
    // Llama 3.1 70B on 64 H100s in Megatron at TP 4 x PP 4, global batch
    // 512: the GEMMs already run at 4096 rows with one sequence, and halving
    // the micro-batches per step doubles the bubble (p - 1) / (v m), so the
    // search keeps micro-batch 1.
    const Json r = estimateOk(
        R"({"model":"llama-3.1-70b","gpu":"h100-sxm5-80gb","gpu_count":64,"task":"pretrain","engine":"megatron","seq_len":4096,)"
        R"("global_batch":512,"batch":"auto","parallel":{"tp":4,"pp":4}})");
    CHECK(r["plan"]["micro_batch"] == 1);
    CHECK(listHasCode(r["plan"]["why"], "micro_batch_fastest"));
}

TEST_CASE("batch \"auto\" is for training only", "[planner][micro-batch]") {
    const caliper::ApiResponse bad =
        caliper::estimateJson(projectCatalog(), R"({"model":"llama-3.1-8b","gpu":"4090","task":"inference","batch":"auto"})");
    REQUIRE(bad.status == 2);
    const Json error = Json::parse(bad.json)["error"];
    CHECK(error["code"] == "invalid_value");
    CHECK(error["path"] == "/batch");
}
