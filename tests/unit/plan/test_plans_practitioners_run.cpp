// Plans practitioners run where the logits or the frozen base, not the
// trained states, set the count: TRL's chunked NLL loss (loss_kernel
// "chunked-nll", which runs under ZeRO-3 where Liger's kernel does not), and
// ZeRO-3 with the frozen base in host RAM for LoRA, so that a LoRA plan needs
// no more GPUs than a full fine-tune of the same model where the same plans
// are open to both.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "api_fixture.hpp"
#include "result_fixture.hpp"

using caliper::test::estimateOk;
using caliper::test::kGiB;
using caliper::test::listHasCode;
using Json = nlohmann::json;

TEST_CASE("TRL's chunked NLL keeps one chunk of logits and lm_head's fp32 copies", "[memory][loss]") {
    // Llama 3.1 8B (models.json: hidden 4096, vocabulary 128256), LoRA, one
    // sequence of 2,048 tokens on one H100, checkpointing off.
    const std::string base =
        R"({"model":"llama-3.1-8b","gpu":"h100","task":"finetune","method":"lora","seq_len":2048,"batch":1,"gpu_count":1,"gradient_checkpointing":false)";
    const Json eager = estimateOk(base + R"(,"loss_kernel":"eager"})");
    const Json chunked = estimateOk(base + R"(,"loss_kernel":"chunked-nll"})");
    CHECK(chunked["plan"]["loss_kernel"] == "chunked-nll");
    // Eager: 12 B a logit, 12 x 2048 x 128256. Chunked NLL (sft_trainer.py
    // _chunked_cross_entropy_loss): the packed hidden states and their
    // gradient 2 x 2 x 2048 x 4096, w.float() and its fp32 gradient 2 x 4 x
    // 128256 x 4096, one chunk of 256 tokens' fp32 logits, log-softmax and
    // gradient 12 x 256 x 128256. At this size the head's fp32 copies
    // outweigh the logits: the eager loss is the leaner here.
    const double eagerLoss = 12.0 * 2048 * 128256;
    const double chunkedLoss = 2.0 * 2 * 2048 * 4096 + 2.0 * 4 * 128256 * 4096 + 12.0 * 256 * 128256;
    const double more = chunked["memory"]["activations_gib"].get<double>() - eager["memory"]["activations_gib"].get<double>();
    CHECK(more == Approx((chunkedLoss - eagerLoss) / kGiB).epsilon(0.01));
    // The allocator's varying-length reserve follows the blocks whose size
    // follows the length: the eager loss's whole working set, the chunked
    // loss's hidden-state copies only (its head copies and 256-token chunks
    // come back the same size every step). Same calibrated copies for both.
    const double eagerReserve = eager["memory"]["overhead_parts"]["varying_length_reserve_gib"].get<double>();
    const double chunkedReserve = chunked["memory"]["overhead_parts"]["varying_length_reserve_gib"].get<double>();
    REQUIRE(eagerReserve > 0);
    CHECK(chunkedReserve / eagerReserve == Approx((2.0 * 2 * 2048 * 4096) / eagerLoss).epsilon(0.01));
}

TEST_CASE("a 35B full fine-tune on 22 GB cards takes TRL's chunked NLL under ZeRO-3", "[planner][loss]") {
    // Qwen3.5 35B-A3B (models.json: 35.1e9 parameters, hidden 2048,
    // vocabulary 248320), full fine-tune at 4,096 tokens on the modified
    // RTX 2080 Ti 22GB. The eager loss keeps 12 x 4096 x 248320 B = 11.4 GiB
    // of logits on every GPU whatever ZeRO-3 shards, so the states must
    // spread until ~1 GiB a GPU is left for them: 418 GPUs. Liger's fused
    // linear loss does not run under ZeRO-3 (its gather hooks), and ZeRO-2
    // keeps the 16-bit weights whole (65 GiB). TRL's chunked NLL gathers
    // lm_head per chunk and keeps 2 x 2 x 4096 x 2048 + 2 x 4 x 248320 x 2048
    // + 12 x 256 x 248320 B = 4.5 GiB, so ZeRO-3's states get ~7 GiB more a GPU.
    const std::string base =
        R"({"model":"qwen3.5-35b-a3b","gpu":"rtx-2080-ti-22gb","task":"finetune","method":"full","seq_len":4096,"gpu_count":"auto")";
    const Json eager = estimateOk(base + R"(,"loss_kernel":"eager"})");
    CHECK(eager["gpus_needed"] == 418);
    const Json planned = estimateOk(base + "}");
    CHECK(planned["fits"] == true);
    CHECK(planned["plan"]["loss_kernel"] == "chunked-nll");
    CHECK(planned["plan"]["strategy"] == "zero3");
    CHECK(listHasCode(planned["plan"]["why"], "loss_chunked_nll_to_fit"));
    CHECK(planned["gpus_needed"].get<int>() < 100);
    // With an 8-card server's RAM stated (512 GiB), ZeRO-Infinity holds the
    // states in host RAM, 35.1e9 x 18 B x 1.5 = 883 GiB, two servers' worth:
    // the GPUs keep the gathered working set, the chunked loss and the
    // activations, off the top of the memory band.
    const Json served = estimateOk(base + R"(,"host":{"ram_gib":512}})");
    CHECK(served["fits"] == true);
    CHECK(served["plan"]["offload"] == "parameters");
    CHECK(served["plan"]["loss_kernel"] == "chunked-nll");
    CHECK(listHasCode(served["plan"]["why"], "zero_infinity_to_fit"));
    CHECK(served["memory"]["cpu_offload_gib"].get<double>() == Approx(35.107e9 * 18 * 1.5 / kGiB).epsilon(0.02));
    CHECK(served["gpus_needed"].get<int>() <= 16);
    // Its speed carries the offload: the parameter partitions over PCIe in
    // every pass and the CPU Adam (explain train_offload_s).
    REQUIRE(served["train_tokens_per_s"].is_number());
    CHECK(served["train_tokens_per_s"].get<double>() > 0);
    CHECK(caliper::test::explainValue(served, "train_offload_s") > 0);
    // A loss the request states is kept: the fixed ZeRO-3 takes the chunked
    // loss only where the loss is left "auto".
    const Json fixed = estimateOk(base + R"(,"loss_kernel":"fused-linear"})");
    CHECK(fixed["plan"]["loss_kernel"] == "fused-linear");
    CHECK(fixed["plan"]["strategy"] != "zero3");
}

TEST_CASE("LoRA under ZeRO-3 with the base in host RAM keeps the largest module gathered", "[planner][offload][lora]") {
    // GLM-5 (models.json: 743.9e9 parameters, vocabulary 154880, hidden
    // 6144), LoRA on H200 (141 GB, an 8-GPU server of 2 TiB host RAM, 256 GiB
    // a GPU's share). ZeRO-3 gathers module by module: the largest is lm_head,
    // 154880 x 6144 x 2 B = 1.77 GiB, as for its full fine-tune (before, two
    // whole 17.7 GiB MoE decoder layers, as FSDP's units). The planner weighs
    // ZeRO-Infinity for LoRA as for a full fine-tune: the 16-bit base in host
    // RAM (1.39 TiB) takes ceil(cpu_offload / 256 GiB) GPUs, against 24 with
    // the base sharded on the GPUs beside the merged expert copies PEFT's
    // ParamWrapper keeps.
    const Json lora = estimateOk(R"({"model":"glm-5","gpu":"h200","task":"finetune","method":"lora","gpu_count":"auto"})");
    CHECK(lora["fits"] == true);
    CHECK(lora["plan"]["offload"] == "parameters");
    CHECK(lora["plan"]["strategy"] == "zero3");
    CHECK(listHasCode(lora["plan"]["why"], "zero_infinity_to_fit"));
    CHECK(lora["memory"]["weights_gib"].get<double>() == Approx(154880.0 * 6144 * 2 / kGiB).epsilon(0.01));
    const double hostGiB = lora["memory"]["cpu_offload_gib"].get<double>();
    CHECK(hostGiB > 743.9e9 * 2 / kGiB);
    CHECK(lora["gpus_needed"] == int(std::ceil(hostGiB / 256.0)));
    // A stated parameter offload is not bounded from below by the weights
    // spread over the GPUs (they are in host RAM): one GPU where its host
    // RAM is unbounded by the request.
    const Json stated = estimateOk(
        R"({"model":"llama-3-70b","gpu":"h100","task":"finetune","method":"lora","gpu_count":"auto","parallel":{"strategy":"zero3","offload":"parameters"}})");
    CHECK(stated["gpus_needed"] == 1);
}

TEST_CASE("a LoRA plan needs no more GPUs than the full fine-tune it is offered", "[planner][lora][invariant]") {
    // LoRA's frozen base takes 2 B a parameter where a full fine-tune's
    // states take 16-18 B, and every plan open to the full fine-tune
    // (ZeRO-3, its CPU offload, checkpointing, the leaner losses) is open to
    // LoRA on a 16-bit base, so LoRA's fewest GPUs are never more. (Not for
    // the MoE models whose PEFT ParamWrapper merges a whole layer's experts
    // into a new 16-bit tensor, 17 GiB a GLM-5 layer: a physical extra that a
    // full fine-tune lacks; GLM-5 on H200 is checked, where it fits.)
    for (const char* model : {"llama-3-70b", "qwen2.5-32b", "qwen3-235b-a22b"}) {
        for (const char* gpu : {"h100", "h200", "a100-80gb"}) {
            const std::string tail = std::string(R"(","gpu":")") + gpu + R"(","task":"finetune","gpu_count":"auto","method":")";
            const Json full = estimateOk(std::string(R"({"model":")") + model + tail + R"(full"})");
            const Json lora = estimateOk(std::string(R"({"model":")") + model + tail + R"(lora"})");
            INFO(model << " on " << gpu);
            REQUIRE(full["gpus_needed"].is_number());
            REQUIRE(lora["gpus_needed"].is_number());
            CHECK(lora["gpus_needed"].get<int>() <= full["gpus_needed"].get<int>());
        }
    }
    const Json full = estimateOk(R"({"model":"glm-5","gpu":"h200","task":"finetune","method":"full","gpu_count":"auto"})");
    const Json lora = estimateOk(R"({"model":"glm-5","gpu":"h200","task":"finetune","method":"lora","gpu_count":"auto"})");
    CHECK(lora["gpus_needed"].get<int>() <= full["gpus_needed"].get<int>());
}
