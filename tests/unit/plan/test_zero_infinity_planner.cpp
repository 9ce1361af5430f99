// Training offload and the host around the GPUs: a data-center GPU's
// default host RAM is its share of an 8-GPU server (host_share.cpp), the
// planner's ZeRO-Offload takes the GPUs whose share holds it, ZeRO-3 with
// parameters and optimizer in host RAM (ZeRO-Infinity's CPU offload) comes
// in where ZeRO-Offload does not fit, and an offloaded plan at the top of
// the memory band does not displace a plan with its states on the GPUs.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "api_fixture.hpp"
#include "offload_fixture.hpp"
#include "result_fixture.hpp"

using caliper::test::checkOffloadedFit;
using caliper::test::estimateOk;
using caliper::test::kGiB;
using caliper::test::listHasCode;
using caliper::test::explainValue;
using Json = nlohmann::json;

namespace {

// Llama 3 70B (models.json: 70.554e9 parameters), full fine-tune with
// checkpointing, one sequence of 2,048 tokens a micro-batch, on A100 80GB
// (8 a server, PCIe Gen4).
const std::string kLlama70 =
    R"({"model":"llama-3-70b","gpu":"A100 80GB","task":"finetune","method":"full","batch":1,"gradient_checkpointing":true)";

}  // namespace

TEST_CASE("a GPU rented alone has its share of the server's host RAM", "[planner][offload][host]") {
    // Llama 2 13B (13.016e9 parameters) on A100 80GB: ZeRO-Offload's host
    // RAM is DeepSpeed's estimate_zero2_model_states_mem_needs with
    // cpu_offload: params x max(4 x GPUs, 16) x 1.5 = 13.016e9 x 24 B =
    // 290.9 GiB on one or two GPUs. One GPU's share of the default server
    // (2 TiB for 8 GPUs) is 256 GiB: at one GPU it is refused with the
    // share named; an "auto" count takes two GPUs, whose 512 GiB hold it.
    const std::string base = R"({"model":"llama-2-13b","gpu":"A100 80GB","task":"finetune","method":"full")";
    const double hostGiB = 13.016e9 * 16 * 1.5 / kGiB;
    const Json one = estimateOk(base + R"(,"gpu_count":1})");
    CHECK(one["fits"] == false);
    CHECK(one["plan"]["offload"] == "optimizer");
    CHECK(one["memory"]["cpu_offload_gib"].get<double>() == Approx(hostGiB).epsilon(0.01));
    CHECK(listHasCode(one["warnings"], "host_ram_too_small"));
    const Json fewest = estimateOk(base + R"(,"gpu_count":"auto"})");
    CHECK(fewest["fits"] == true);
    CHECK(fewest["plan"]["offload"] == "optimizer");
    CHECK(fewest["plan"]["gpu_count"] == 2);
    CHECK(fewest["gpus_needed"] == 2);
    CHECK(explainValue(fewest, "host_ram_gib") == Approx(2 * 2048.0 / 8));
    // A stated host RAM is the plan's own machine, all of it: one GPU.
    const Json owned = estimateOk(base + R"(,"gpu_count":1,"host":{"ram_gib":512}})");
    CHECK(owned["fits"] == true);
    CHECK(owned["plan"]["offload"] == "optimizer");
    CHECK(explainValue(owned, "host_ram_gib") == Approx(512.0));
}

TEST_CASE("ZeRO-3 with parameters and optimizer in host RAM fine-tunes Llama 3 70B on 8 A100 80GB", "[planner][offload]") {
    // GPU-only, ZeRO-3's 18 B a parameter over 8 GPUs is 70.554e9 x 18 / 8
    // = 147.9 GiB a GPU; ZeRO-Offload keeps the 16-bit weights whole on
    // each (131.4 GiB): neither fits 80 GB. With parameters offloaded a GPU
    // holds the largest module gathered (the embedding, 128,256 x 8,192 x 2 B
    // = 1.96 GiB), its gradient, the live-parameter cache and buckets and the
    // activations; host RAM holds DeepSpeed's
    // estimate_zero3_model_states_mem_needs with cpu_offload_params and
    // zero_init: 18 B x 70.554e9 x 1.5 = 1,774.1 GiB, within 2 TiB.
    const Json r = estimateOk(kLlama70 + R"(,"gpu_count":8,"host":{"ram_gib":2048}})");
    checkOffloadedFit(r, "zero3", "parameters", "zero_infinity_to_fit", 70.554e9 * 18 * 1.5 / kGiB);
    CHECK(r["memory"]["weights_gib"].get<double>() == Approx(128256.0 * 8192 * 2 / kGiB).epsilon(0.01));
    // The step: CPU Adam over every GPU's shard on the one host, 70.554e9 x
    // 30 B / (0.75 x 307.2 GB/s) = 9.19 s; each GPU's 1/8 partition of the
    // 16-bit parameters over PCIe Gen4 (32 x 0.8 GB/s) in the forward, the
    // recomputed forward and the backward, 3 x 2 x 8.82e9 / 25.6e9 = 2.07
    // s, and its gradients down, 0.69 s, hide under the compute.
    const double computeS = explainValue(r, "train_step_compute_s");
    REQUIRE(2.07 < 0.5 * computeS);
    REQUIRE(0.69 < 0.8 * 2.0 / 3.0 * computeS);
    CHECK(explainValue(r, "train_offload_s") == Approx(70.554e9 * 30 / (0.75 * 307.2e9)).epsilon(0.01));
    // The fewest GPUs with that host: one (its working set fits one card).
    CHECK(r["gpus_needed"] == 1);

    // A host RAM below the 1,774 GiB: shown, not fitting, with the RAM named.
    const Json small = estimateOk(kLlama70 + R"(,"gpu_count":8,"host":{"ram_gib":1536}})");
    CHECK(small["fits"] == false);
    CHECK(small["plan"]["offload"] == "parameters");
    CHECK(listHasCode(small["warnings"], "host_ram_too_small"));

    // No host stated: each GPU rents 256 GiB of the default server, so the
    // fewest GPUs whose share holds 1,774.1 GiB are 7 (1,792 GiB; 6 hold
    // 1,536), far fewer than the 21 of ZeRO-3 on the GPUs alone.
    const Json rented = estimateOk(kLlama70 + R"(,"gpu_count":"auto"})");
    CHECK(rented["fits"] == true);
    CHECK(rented["plan"]["offload"] == "parameters");
    CHECK(rented["plan"]["gpu_count"] == 7);
    CHECK(explainValue(rented, "host_ram_gib") == Approx(7 * 256.0));
    // A request that fixes the offload keeps the states on the GPUs.
    const Json none = estimateOk(kLlama70 + R"(,"gpu_count":8,"parallel":{"offload":"none"}})");
    CHECK(none["plan"]["offload"] == "none");
    CHECK(none["fits"] == false);
}

TEST_CASE("an offloaded plan at the top of the memory band does not displace one on the GPUs", "[planner][offload]") {
    // Llama 3 8B on A100 40GB, one sequence a micro-batch, with a 2 TiB
    // host. With checkpointing off ZeRO-Offload on one GPU keeps the whole
    // activations: its memory's band reaches past the usable memory (the
    // matrix's "tight"), a knife-edge fit, so the plan with every state on
    // the GPUs stays, on more of them.
    const std::string base = R"({"model":"llama-3-8b","gpu":"A100 40GB","task":"finetune","method":"full","batch":1,)"
                             R"("host":{"ram_gib":2048},)";
    const Json stated = estimateOk(base + R"("gradient_checkpointing":false,"gpu_count":1,"parallel":{"strategy":"zero2","offload":"optimizer"}})");
    REQUIRE(stated["fits"] == true);
    REQUIRE(stated["ranges"]["memory.total_gib"][1].get<double>() > stated["usable_memory_gib"].get<double>());
    const Json off = estimateOk(base + R"("gradient_checkpointing":false,"gpu_count":"auto"})");
    CHECK(off["fits"] == true);
    CHECK(off["plan"]["offload"] == "none");
    CHECK(off["plan"]["gpu_count"].get<int>() > 1);
    CHECK_FALSE(listHasCode(off["plan"]["why"], "zero_offload_to_fit"));
    // With checkpointing the same offload sits well inside the band: chosen.
    const Json on = estimateOk(base + R"("gradient_checkpointing":true,"gpu_count":"auto"})");
    CHECK(on["plan"]["offload"] == "optimizer");
    CHECK(on["plan"]["gpu_count"] == 1);
    CHECK(on["ranges"]["memory.total_gib"][1].get<double>() < on["usable_memory_gib"].get<double>());
}
