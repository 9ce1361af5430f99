// `caliper validate`: how a measured row becomes a request (engine, token
// counts, parallel layout, compared field) and which rows cannot be expressed.
#include "validation_fixture.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "validate/names.hpp"
#include "validate/row.hpp"
#include "validate/text.hpp"

using caliper::io::Compared;
using caliper::test::projectCatalog;
using Json = nlohmann::json;
using caliper::test::validateOne;
using caliper::test::validationRow;

TEST_CASE("a llama-bench tg128 row is pure generation on llama.cpp", "[validation]") {
    const auto m = caliper::test::mappedRow(
        validationRow({{"batch", 1}, {"seq_len", 128}, {"extra", "llama.cpp llama-bench -ngl 99 -fa 0 (tg128)"}}));
    CHECK(m.request["engine"] == "llama.cpp");
    CHECK(m.request["prompt_tokens"] == 0);  // llama-bench -n 128 starts from an empty context
    CHECK(m.request["output_tokens"] == 128);
    CHECK(m.request["flash_attention"] == false);  // "-fa 0"
    CHECK(m.request["model"] == "llama-2-7b");
    CHECK(m.request["gpu"] == "rtx-4090");
    CHECK(m.compared == Compared::Decode);
    CHECK(m.measured == 100.0);
    REQUIRE(m.expectFits);
    CHECK(*m.expectFits);  // the benchmark ran on that card
}

TEST_CASE("a llama-bench pp512 row is a pure prompt run", "[validation]") {
    const auto m = caliper::test::mappedRow(
        validationRow({{"kind", "prefill_tps"}, {"seq_len", 512}, {"extra", "llama.cpp llama-bench pp512, CUDA"}}));
    CHECK(m.request["engine"] == "llama.cpp");
    CHECK(m.request["prompt_tokens"] == 512);
    CHECK(m.request["output_tokens"] == 0);
    CHECK(m.compared == Compared::Prefill);
}

TEST_CASE("TensorRT-LLM throughput rows include the prefill and are per GPU", "[validation]") {
    const auto m = caliper::test::mappedRow(
        validationRow({{"model", "LLaMA-2 70B (meta-llama/Llama-2-70b-hf per methodology)"},
                       {"params_b", 70},
                       {"quant", "fp8"},
                       {"gpu", "NVIDIA H100 80GB HBM3"},
                       {"gpu_count", 2},
                       {"batch", 96},
                       {"extra",
                        "TensorRT-LLM static batching; input 2048, output 128, TP 2; value = output "
                        "tokens/s per GPU, includes prefill time amortised"}}));
    CHECK(m.request["engine"] == "tensorrt-llm");
    CHECK(m.request["model"] == "llama-2-70b");
    CHECK(m.request["prompt_tokens"] == 2048);
    CHECK(m.request["output_tokens"] == 128);
    CHECK(m.request["batch"] == 96);
    CHECK(m.request["parallel"]["tp"] == 2);
    CHECK(m.compared == Compared::DecodeWithPrefill);
    CHECK(m.perGpu);
}

TEST_CASE("in free text the last mention of a setting wins", "[validation]") {
    const caliper::io::RowSetup s = caliper::io::readSetup(
        "ms-swift sft; defaults unless overridden: max_length 2048, batch_size 1, gradient_checkpointing true, "
        "use_flash_attn true, lora_rank 8, lora_target_modules DEFAULT. Overrides: max_length=512, flash_attn=False, "
        "grad_ckpt=False, lora_rank=64, target=ALL (all linear). Memory: torch reserved.");
    CHECK(s.seqLen == 512);
    CHECK(s.flashAttention == false);
    CHECK(s.gradientCheckpointing == false);
    CHECK(s.loraRank == 64);
    CHECK(s.loraAllLinear == true);
    CHECK(s.measured == caliper::io::MeasuredMemory::Reserved);
    CHECK(s.engines.transformers);
}

TEST_CASE("free text gives ZeRO stage, offload, parallel degrees and context length", "[validation]") {
    using caliper::io::readSetup;
    const auto zero = readSetup(
        "DeepSpeed estimate_zero3_model_states_mem_needs_all_live; offload_param=none, "
        "offload_optimizer=cpu, zero_init=1");
    CHECK(zero.zeroStage == 3);
    CHECK_FALSE(zero.offloadParameters);
    CHECK(zero.offloadOptimizer);
    CHECK(zero.measured == caliper::io::MeasuredMemory::ModelStates);
    const auto megatron = readSetup("TP 8, CP 1, PP 16, 16M tokens per batch; standard 8K-context stage");
    CHECK(megatron.tp == 8);
    CHECK(megatron.pp == 16);
    CHECK(megatron.cp == 1);
    CHECK(megatron.seqLen == 8192);  // 8K = 8 x 1024 tokens
    CHECK(megatron.globalBatch);
    const auto bench = readSetup("llama-bench pp 512, Metal");  // "pp" is a prompt length for llama-bench
    CHECK(bench.benchPrompt == 512);
    CHECK_FALSE(bench.pp);
}

TEST_CASE("a training row that names no offload is scored with its states on the GPUs", "[validation]") {
    // The run kept its optimizer states on the GPUs: the request says so, so
    // the planner does not weigh ZeRO-Offload where they overflow (a run that
    // ran out of memory is scored as one that did).
    const auto m = caliper::test::mappedRow(validationRow({{"kind", "fits"},
                                                           {"model", "meta-llama/Llama-3.1-8B"},
                                                           {"params_b", 8.03},
                                                           {"quant", "bf16"},
                                                           {"method", "full"},
                                                           {"gpu", "NVIDIA A10G 24GB"},
                                                           {"gpu_count", 1},
                                                           {"extra", "full fine-tune, AdamW"},
                                                           {"value", "fits"},
                                                           {"measured", true}}));
    CHECK(m.request["parallel"]["offload"] == "none");
}

TEST_CASE("a row naming Megatron-Core's recompute modules carries them to the request", "[validation]") {
    // The Megatron MoE model zoo's table writes its recompute column as
    // module names ("norm, act": --recompute-modules layernorm moe_act);
    // the row states them as recompute_modules=layernorm,moe_act.
    const auto m = caliper::test::mappedRow(validationRow(
        {{"kind", "train_tflops_per_gpu"},
         {"model", "Qwen/Qwen3-235B-A22B"},
         {"params_b", 235},
         {"quant", "bf16"},
         {"method", "pretrain"},
         {"gpu", "H100 SXM"},
         {"gpu_count", 256},
         {"tp", 2},
         {"pp", 8},
         {"ep", 32},
         {"batch", 1},
         {"global_batch", 2048},
         {"seq_len", 4096},
         {"engine", "megatron-core"},
         {"extra", "VP=4. Recompute column 'norm, act': recompute_modules=layernorm,moe_act."},
         {"value", 245},
         {"unit", "TFLOP/s/GPU"},
         {"measured", true}}));
    REQUIRE(m.request.contains("recompute_modules"));
    CHECK(m.request["recompute_modules"] == Json::array({"layernorm", "moe_act"}));
    // No full recomputation: the modules replace Megatron's default.
    CHECK(m.request["gradient_checkpointing"] == false);
    CHECK(caliper::io::readSetup("no recompute stated").recomputeModules.empty());
}

TEST_CASE("DeepSpeed estimator rows compare model states on any large GPU", "[validation]") {
    const auto m =
        caliper::test::mappedRow(validationRow({{"kind", "train_memory"},
                                                {"model", "t5-3b"},
                                                {"params_b", 2.851},
                                                {"quant", "fp16 mixed precision (Adam states fp32)"},
                                                {"method", "full"},
                                                {"gpu", "any (estimator)"},
                                                {"gpu_count", 8},
                                                {"extra",
                                                 "DeepSpeed estimate_zero3_model_states_mem_needs_all_live; ZeRO-3, "
                                                 "cpu_offload=1, cpu_offload_params=1. ESTIMATE, not a measurement."},
                                                {"value", 0.12},
                                                {"unit", "GB"},
                                                {"trust", "estimate"},
                                                {"measured", false}}));
    CHECK(m.request["engine"] == "deepspeed");
    CHECK(m.request["weights"] == "fp16");
    CHECK(m.request["parallel"]["strategy"] == "zero3");
    CHECK(m.request["parallel"]["offload"] == "parameters");
    CHECK(m.request["gpu"] == caliper::io::largestGpu(projectCatalog())->id);
    CHECK(m.compared == Compared::ModelStates);
    // DeepSpeed's estimators print mem / 2**30 labelled "GB" (deepspeed/runtime/zero/stage3.py).
    CHECK(m.measured == Approx(0.12));
    CHECK_FALSE(m.expectFits);  // a formula, not a run
}

TEST_CASE("a model described by its architecture becomes a model object", "[validation]") {
    const auto m = caliper::test::mappedRow(
        validationRow({{"kind", "train_throughput"},
                       {"model", "Megatron GPT 7.1B (hidden 4096, 30 layers, 32 heads, vocab 131072)"},
                       {"params_b", 7.1},
                       {"quant", "bf16"},
                       {"method", "pretrain"},
                       {"gpu", "NVIDIA H100 (variant not stated)"},
                       {"gpu_count", 96},
                       {"batch", 192},
                       {"seq_len", 4096},
                       {"extra", "Megatron-Core; TP=2, PP=1, DP=48; global batch 192 sequences of 4096 tokens"},
                       {"value", 465.9},
                       {"unit", "TFLOPs/GPU"}}));
    const Json& model = m.request["model"];
    CHECK(model["hidden_size"] == 4096);
    CHECK(model["layers"] == 30);
    CHECK(model["heads"] == 32);
    CHECK(model["vocab_size"] == 131072);
    CHECK(model["params_b"] == 7.1);
    CHECK(m.request["engine"] == "megatron");
    CHECK(m.request["task"] == "pretrain");
    CHECK(m.request["batch"] == 1);  // 192 is the global batch, reached by accumulation
    CHECK(m.request["parallel"]["tp"] == 2);
    CHECK(m.compared == Compared::TrainTflops);
}

TEST_CASE("clusters up to the request's limit run at their size; beyond it TP x PP keeps fewer replicas", "[validation]") {
    const Json big = validationRow({{"kind", "train_throughput"},
                                    {"model", "meta-llama/Llama-3.1-405B (pre-training)"},
                                    {"params_b", 405},
                                    {"quant", "bf16"},
                                    {"method", "pretrain"},
                                    {"gpu", "NVIDIA H100"},
                                    {"gpu_count", 16384},
                                    {"extra", "TP 8, CP 1, PP 16"},
                                    {"value", 400.0},
                                    {"unit", "TFLOPs/GPU"}});
    // Llama 3 405B trained on 16,384 H100s (arXiv 2407.21783 Table 4): within the 100,000-GPU limit.
    CHECK(caliper::test::mappedRow(big).request["gpu_count"] == 16384);
    Json huge = big;
    huge["gpu_count"] = 262144;
    CHECK(caliper::test::mappedRow(huge).request["gpu_count"] == 99968);  // 781 replicas of TP 8 x PP 16 = 128 GPUs
    Json noDegrees = huge;
    noDegrees["extra"] = "strong scaling";
    CHECK_THAT(caliper::test::unexpressedReason(noDegrees), Catch::Contains("100000-GPU limit"));
    Json mfu = big;
    mfu["unit"] = "MFU";
    mfu["value"] = 0.4;
    CHECK(caliper::test::mappedRow(mfu).compared == Compared::TrainMfu);
}

TEST_CASE("setups the engine does not model are listed with a reason", "[validation]") {
    CHECK_THAT(caliper::test::unexpressedReason(
                   validationRow({{"extra", "llama-bench tg128 with -nkvo 1 (KV cache kept in CPU RAM)"}})),
               Catch::Contains("host memory"));
    // Context parallelism is modelled, but only at a stated sequence length.
    CHECK_THAT(caliper::test::unexpressedReason(validationRow({{"kind", "train_throughput"},
                                                               {"method", "pretrain"},
                                                               {"unit", "TFLOPs/GPU"},
                                                               {"seq_len", nullptr},
                                                               {"gpu_count", 16384},
                                                               {"extra", "TP 8, CP 16, PP 16"}})),
               Catch::Contains("sequence length"));
    CHECK_THAT(caliper::test::unexpressedReason(
                   validationRow({{"kind", "inference_memory"},
                                  {"unit", "GiB"},
                                  {"extra", "long prompt (a few thousand tokens; exact count not stated)"}})),
               Catch::Contains("not stated"));
    CHECK_THAT(caliper::test::unexpressedReason(validationRow({{"kind", "fits"}, {"value", "maybe"}})),
               Catch::Contains("OOM"));
}

TEST_CASE("model and GPU names resolve through notes and qualifiers", "[validation]") {
    using caliper::io::findRowGpu;
    using caliper::io::findRowModel;
    const caliper::Catalog& catalog = projectCatalog();
    auto modelId = [&](const char* name, double paramsB) {
        const caliper::ModelSpec* m = findRowModel(catalog, name, paramsB);
        return m ? m->id : std::string("(none)");
    };
    CHECK(modelId("Llama 2 70B class (GPTQ 4-bit)", 70) == "llama-2-70b");
    CHECK(modelId("Mixtral 8x7B-style MoE (Megatron-Core)", 46.7) == "mixtral-8x7b");
    CHECK(modelId("meta-llama/Llama-3.1-405B (pre-training)", 405) == "llama-3.1-405b");
    CHECK(modelId("LLaMA-2 7B (meta-llama/Llama-2-7b-hf per methodology)", 7) == "llama-2-7b");
    CHECK(modelId("Llama 2 70B", 7) == "(none)");  // a size ten times off is another model
    const caliper::GpuSpec* a100 = findRowGpu(catalog, "NVIDIA A100 (80GB assumed; not stated)");
    REQUIRE(a100);
    CHECK(a100->memoryGb == Approx(80));
    const caliper::GpuSpec* a100small = findRowGpu(catalog, "NVIDIA A100 40GB (as stated in post)");
    REQUIRE(a100small);
    CHECK(a100small->memoryGb == Approx(40));
    const caliper::GpuSpec* apple = findRowGpu(catalog, "Apple M2 Max (30-core GPU)");
    REQUIRE(apple);
    CHECK(apple->vendor == "apple");
    CHECK(caliper::io::namesNoGpu("any (estimator)"));
    CHECK_FALSE(caliper::io::namesNoGpu("NVIDIA T4 16GB (Google Colab)"));
}

TEST_CASE("free text names optimizers, serving pools and parallel sizes", "[validation]") {
    using caliper::io::readSetup;
    CHECK(readSetup("optim=paged_adamw_32bit").optimizer == "adamw");  // paged but 32-bit: plain AdamW states
    CHECK(readSetup("optim adamw_bnb_8bit").optimizer == "adamw-8bit");
    CHECK(readSetup("paged_adamw_8bit").optimizer == "paged-adamw-8bit");
    const auto vllm = readSetup("vllm serve --tensor-parallel-size 4 --gpu-memory-utilization 0.85, bs=16");
    CHECK(vllm.engines.vllm);
    CHECK(vllm.tp == 4);
    CHECK(vllm.gpuMemoryUtilization == Approx(0.85));
    CHECK(vllm.batch == 16);
    CHECK_FALSE(readSetup("llama-bench pp512 (PP = prompt processing bs=512)").batch);
}

TEST_CASE("counts and repackaging suffixes do not hide a catalog entry", "[validation]") {
    const caliper::GpuSpec* pair = caliper::io::findRowGpu(projectCatalog(), "2x NVIDIA GeForce RTX 3090");
    REQUIRE(pair);
    CHECK(pair->id == "rtx-3090");
    const caliper::ModelSpec* gguf = caliper::io::findRowModel(projectCatalog(), "TheBloke/Llama-2-7B-Chat-GGUF", 7);
    REQUIRE(gguf);
    CHECK(gguf->id == "llama-2-7b");
    // Quantized releases name their scheme last (RedHatAI's compressed-tensors
    // repos, public-v2.jsonl llm-d rows); the row's `quant` carries the format.
    const caliper::ModelSpec* fp8 =
        caliper::io::findRowModel(projectCatalog(), "RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic", std::nullopt);
    REQUIRE(fp8);
    CHECK(fp8->id == "llama-3.3-70b");
    const caliper::ModelSpec* w8a8 =
        caliper::io::findRowModel(projectCatalog(), "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", std::nullopt);
    REQUIRE(w8a8);
    CHECK(w8a8->id == "llama-3.1-8b");
}

TEST_CASE("a row without a quant field takes the precision its text names", "[validation]") {
    CHECK(caliper::io::readPrecision("transformers, load_in_4bit=True, bf16 compute") == "nf4");
    CHECK(caliper::io::readPrecision("llama-bench -m llama-2-7b.q4_k_m.gguf") == "q4_k_m");
    CHECK(caliper::io::readPrecision("no precision words here").empty());
    const auto m = caliper::test::mappedRow(
        validationRow({{"quant", nullptr}, {"extra", "vLLM, AWQ checkpoint, batch 8, input 512, output 128"}}));
    CHECK(m.request["weights"] == "awq-int4");
    CHECK(m.request["engine"] == "vllm");
    CHECK(m.request["batch"] == 8);
}

TEST_CASE("a bare mention switches a setting on, a negation off", "[validation]") {
    using caliper::io::readSetup;
    const auto listed = readSetup("bf16, gradient checkpointing, flash attention, DeepSpeed stage 2");
    CHECK(listed.gradientCheckpointing == true);
    CHECK(listed.flashAttention == true);
    CHECK(listed.zeroStage == 2);
    CHECK(readSetup("no gradient checkpointing").gradientCheckpointing == false);
    CHECK(readSetup("gradient checkpointing enabled. Overrides: grad_ckpt=False").gradientCheckpointing == false);
    CHECK(readSetup("eager attention (no Flash Attention)").flashAttention == false);
    CHECK_FALSE(readSetup("bf16 weights").gradientCheckpointing);
}

TEST_CASE("a release suffix falls back to the catalog's release of the same model", "[validation]") {
    const caliper::ModelSpec* mistral =
        caliper::io::findRowModel(projectCatalog(), "mistralai/Mistral-7B-Instruct-v0.2", 7.24);
    REQUIRE(mistral);
    CHECK(mistral->id == "mistral-7b-v0.3");
}

TEST_CASE("a v2 row's structured keys win over its free text", "[validation]") {
    // The text names llama.cpp, input 2048, TP 4; the row's own keys say vLLM,
    // isl 1000 / osl 200, TP 2 (validation/README.md: keys added in v2).
    const auto m = caliper::test::mappedRow(validationRow({{"quant", "bf16"},
                                                           {"gpu", "H100-80GB"},
                                                           {"gpu_count", 2},
                                                           {"engine", "vllm"},
                                                           {"tp", 2},
                                                           {"pp", 1},
                                                           {"isl", 1000},
                                                           {"osl", 200},
                                                           {"gpu_memory_utilization", 0.95},
                                                           {"extra", "llama.cpp, input 2048, output 64, TP 4"}}));
    CHECK(m.request["engine"] == "vllm");
    CHECK(m.request["output_tokens"] == 200);
    CHECK(m.request["parallel"]["tp"] == 2);
    CHECK(m.request["gpu_memory_utilization"] == 0.95);
}

TEST_CASE("a v2 row's engine outside the contract leaves the choice to the text", "[validation]") {
    const auto m = caliper::test::mappedRow(
        validationRow({{"engine", "litgpt"}, {"extra", "llama.cpp llama-bench (tg128)"}}));
    CHECK(m.request["engine"] == "llama.cpp");
    CHECK(caliper::io::contractEngine("ollama") == "llama.cpp");  // Ollama serves through llama.cpp
    CHECK(caliper::io::contractEngine("nemo") == "megatron");
}

TEST_CASE("LitGPT rows follow LitGPT's scripts: allocated memory, chunked loss, no checkpointing on one GPU",
          "[validation]") {
    // finetune/lora.py and generate/base.py at LitGPT commit 8641822 print
    // torch.cuda.max_memory_allocated(); one device runs without activation
    // checkpointing (QLoRA too); on several, the peak is FSDP loading the
    // full checkpoint on every GPU, which the engine does not size.
    const Json qlora = validationRow({{"kind", "finetune_memory"},
                                      {"model", "Llama 2 7B"},
                                      {"quant", "nf4"},
                                      {"method", "qlora"},
                                      {"gpu", "NVIDIA A100-SXM4-40GB"},
                                      {"gpu_count", 1},
                                      {"batch", 1},
                                      {"engine", "litgpt"},
                                      {"extra", "longest example 1304 tokens; --precision bf16-true"},
                                      {"value", 13.17},
                                      {"unit", "GB"}});
    const auto one = caliper::test::mappedRow(qlora);
    CHECK(one.compared == Compared::AllocatedMemory);
    CHECK(one.request["loss_kernel"] == "chunked");
    CHECK(one.request["gradient_checkpointing"] == false);
    CHECK(one.request["seq_len"] == 1304);
    // finetune/lora.py at 8641822: lora_dropout 0.05, lora_query and
    // lora_value only; LitGPT's GPT has one fused qkv layer and repeats k/v
    // to every head for training (lit_gpt/model.py).
    CHECK(one.request["lora"]["targets"] == "query-value");
    CHECK(one.request["lora"]["dropout"] == 0.05);
    CHECK(one.request["lora"]["fused_qkv"] == true);
    CHECK(one.request["kv_heads_repeated"] == true);
    // Its GPT keeps lm_head apart from wte (litgpt/model.py), and Fabric's
    // BitsandbytesPrecision quantizes lm_head with the other linear layers.
    CHECK(one.request["untied_head"] == true);
    CHECK(one.request["lora"]["quantized_head"] == true);
    // LitGPT pins bitsandbytes 0.42.0, whose MatMul4Bit keeps its input.
    CHECK(one.request["lora"]["kept_4bit_inputs"] == true);
    // A 16-bit LoRA run has no 4-bit head.
    Json sixteen = qlora;
    sixteen["quant"] = "bf16";
    sixteen["method"] = "lora";
    CHECK_FALSE(caliper::test::mappedRow(sixteen).request["lora"].contains("quantized_head"));
    CHECK_FALSE(caliper::test::mappedRow(sixteen).request["lora"].contains("kept_4bit_inputs"));
    // A config hub yaml listing every layer (gemma-2b/lora.yaml: lora_query,
    // lora_key, lora_value, lora_projection, lora_mlp, lora_head true).
    Json every = qlora;
    every["extra"] = "yaml (read at HEAD): precision bf16-true, lora_r 8 alpha 16 targets [query,key,value,projection,mlp,head]";
    CHECK(caliper::test::mappedRow(every).request["lora"]["targets"] == "all-linear");

    Json multi = qlora;
    multi["quant"] = "bf16";
    multi["method"] = "lora";
    multi["gpu_count"] = 2;
    const auto two = validateOne(multi);
    REQUIRE(two.unscored.size() == 1);
    CHECK(two.unscored[0].reason.find("loading the full checkpoint") != std::string::npos);

    // The config hub's README: "All runs are single-GPU experiments".
    multi["extra"] = "machine 4xA10G; README also says 'All runs are single-GPU experiments'";
    CHECK(caliper::test::mappedRow(multi).request["gpu_count"] == 1);
    // ...but the config's own `devices` is what ran (phi-2/full.yaml: devices 2).
    multi["extra"] = "README also says 'All runs are single-GPU experiments'; yaml (read at HEAD): precision "
                     "bf16-true, devices 2, micro_batch_size 4";
    const auto yaml = validateOne(multi);
    REQUIRE(yaml.unscored.size() == 1);
    CHECK(yaml.unscored[0].reason.find("loading the full checkpoint") != std::string::npos);

    // generate/base.py's defaults: prompt "Hello, my name is", 50 new tokens.
    const auto inference = caliper::test::mappedRow(validationRow({{"kind", "inference_memory"},
                                                                   {"model", "Llama 2 7B"},
                                                                   {"quant", "bf16"},
                                                                   {"method", "inference"},
                                                                   {"gpu", "NVIDIA A100-SXM4-40GB"},
                                                                   {"engine", "litgpt"},
                                                                   {"value", 13.52},
                                                                   {"unit", "GB"}}));
    CHECK(inference.request["prompt_tokens"] == 6);
    CHECK(inference.request["output_tokens"] == 50);
    CHECK(inference.compared == Compared::AllocatedMemory);
}

TEST_CASE("LitGPT's adapter v2 rows scale every linear layer's output; adapter v1 rows do not", "[validation]") {
    // `litgpt finetune_adapter_v2` builds every linear layer as an
    // AdapterV2Linear (litgpt/adapter_v2.py); `finetune_adapter` (v1) only
    // adds the gated prefix (litgpt/adapter.py).
    const Json v2 = validationRow({{"kind", "finetune_memory"},
                                   {"model", "Llama 2 7B"},
                                   {"quant", "bf16"},
                                   {"method", "adapter"},
                                   {"gpu", "NVIDIA A100-SXM4-40GB"},
                                   {"gpu_count", 1},
                                   {"batch", 1},
                                   {"engine", "litgpt"},
                                   {"extra", "command `litgpt finetune_adapter_v2` (adapter v2); longest example 1304 tokens"},
                                   {"value", 23.76},
                                   {"unit", "GB"}});
    CHECK(caliper::test::mappedRow(v2).request["lora"]["output_scale"] == true);
    Json v1 = v2;
    v1["extra"] = "command `litgpt finetune_adapter` (adapter); longest example 1304 tokens";
    CHECK_FALSE(caliper::test::mappedRow(v1).request["lora"].contains("output_scale"));
}

TEST_CASE("a LitGPT full fine-tune reported below one device's bf16 AdamW states is not that setup", "[validation]") {
    // finetune/full.py, precision bf16-true, devices 1: bf16 weights and
    // gradients and torch AdamW's two bf16 moments, 8 bytes per parameter.
    // Llama 3.2 3B (tied embeddings) counts 3,212,749,824 parameters:
    // 25,701,998,592 bytes = 23.94 GiB, above the table's 16.51 GB (15.38 GiB).
    Json row = validationRow({{"kind", "finetune_memory"},
                              {"model", "meta-llama/Llama-3.2-3B"},
                              {"params_b", nullptr},
                              {"optimizer", "torch.optim.AdamW"},
                              {"quant", "bf16"},
                              {"method", "full"},
                              {"gpu", "A10G (1xA10G)"},
                              {"gpu_count", 1},
                              {"batch", 4},
                              {"seq_len", 512},
                              {"engine", "litgpt"},
                              {"extra", "yaml: precision bf16-true, devices 1"},
                              {"value", 16.51},
                              {"unit", "GB"}});
    const auto below = validateOne(row);
    REQUIRE(below.unscored.size() == 1);
    CHECK(below.unscored[0].reason.find("below the 23.94 GiB") != std::string::npos);
    // A figure above the states (TinyLlama 1.1B: 8.8 GB of states, 14.1 GB
    // reported) is scored.
    row["model"] = "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T";
    row["value"] = 14.1;
    CHECK(validateOne(row).scores.size() == 1);
}

TEST_CASE("an OOM of a quantization script is not a verdict on running the model", "[validation]") {
    const auto report = validateOne(validationRow({{"kind", "fits"},
                                                   {"model", "Llama 2 70B"},
                                                   {"quant", "gptq-int4"},
                                                   {"method", "inference"},
                                                   {"gpu", "NVIDIA A100-SXM4-40GB"},
                                                   {"extra", "printed 'OOM (quantize script)'"},
                                                   {"value", "OOM"}}));
    REQUIRE(report.unscored.size() == 1);
    CHECK(report.unscored[0].reason.find("quantization script") != std::string::npos);
}

TEST_CASE("kinds without a scorer are listed as unscored with the reason", "[validation]") {
    CHECK(validateOne(validationRow({{"kind", "made_up"}})).unscored[0].reason == "unknown kind 'made_up'");
}

TEST_CASE("several files are scored as one set, rows without an id named by file and line", "[validation]") {
    const std::string first = validationRow({{"extra", "llama.cpp (tg128)"}}).dump();
    const std::string second = "not json\n";
    const auto report = caliper::validateRows(projectCatalog(), {{"a.jsonl", first}, {"b.jsonl", second}});
    CHECK(report.rowsRead == 2);
    REQUIRE(report.unscored.size() == 1);
    CHECK(report.unscored[0].id == "b.jsonl line 1");
}

TEST_CASE("a serving row maps to the engine instance at its concurrency", "[validation]") {
    // An aiconfigurator sample as public-v2.jsonl holds it: DeepSeek-R1 on
    // H200, TensorRT-LLM, attention DP 8 x EP 8 (gpu_count = tp x pp x adp).
    const auto m = caliper::test::mappedRow(validationRow(
        {{"kind", "serving_tpot_ms"}, {"unit", "ms"}, {"model", "deepseek-ai/DeepSeek-R1"}, {"quant", "fp8"},
         {"gpu", "h200_sxm"}, {"gpu_count", 8}, {"tp", 1}, {"pp", 1}, {"ep", 8}, {"engine", "tensorrt-llm"},
         {"batch", 64}, {"isl", 1024}, {"osl", 1024}, {"value", 20.5},
         {"extra", "parallelism: tp_size=1, pp_size=1, attention_dp_size=8, moe_tp_size=1, moe_ep_size=8"}}));
    CHECK(m.request["engine"] == "tensorrt-llm");
    CHECK(m.request["gpu_count"] == 8);
    CHECK(m.request["parallel"]["tp"] == 8);
    CHECK(m.request["parallel"]["attention_dp"] == 8);
    CHECK(m.request["parallel"]["ep"] == 8);
    CHECK(m.request["batch"] == 64);
    CHECK(m.request["prompt_tokens"] == 1024);
    CHECK(m.request["output_tokens"] == 1024);
}

TEST_CASE("an aiconfigurator row whose degrees were multiplied by its expert degree maps to the instance that ran",
          "[validation]") {
    // public-v2.jsonl rows as written: the parallelism columns hold the
    // instance times its expert degree (tp_size 64 on an 8-GPU h200_sxm
    // node), the source row id the deployment ("_tp8_ep8_": 8 GPUs, EP 8).
    // The DeepSeek-R1 "tp64" rows repeat to the digit the rows stated as
    // tp_size 8, moe_ep_size 8 (TPOT 8.6 ms, TTFT 494.0 ms at 4 requests).
    const char* aic = "github.com/ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/systems/silicon_sample.csv";
    auto mapped = [aic](const char* model, const char* quant, int gpuCount, int tp, int ep, const char* engine,
                        const std::string& extra) {
        return caliper::test::mappedRow(validationRow(
            {{"kind", "serving_tpot_ms"}, {"unit", "ms"}, {"model", model}, {"quant", quant}, {"gpu", "h200_sxm"},
             {"gpu_count", gpuCount}, {"tp", tp}, {"pp", 1}, {"ep", ep}, {"engine", engine}, {"batch", 4},
             {"isl", 1024}, {"osl", 1024}, {"value", 8.6}, {"source", aic}, {"extra", extra}}));
    };
    const auto r1 = mapped("deepseek-ai/DeepSeek-R1", "fp8", 64, 64, 8, "tensorrt-llm",
                           "parallelism: tp_size=64, pp_size=1, attention_dp_size=1, moe_tp_size=8, moe_ep_size=8; "
                           "source row id=2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_agg_1024x1024_c4_tp8_ep8_954 (CSV line 1)");
    CHECK(r1.request["gpu_count"] == 8);
    CHECK(r1.request["parallel"]["tp"] == 8);
    CHECK(r1.request["parallel"]["ep"] == 8);
    CHECK_FALSE(r1.request["parallel"].contains("attention_dp"));
    // The same deployment stated right (tp_size 8, moe_tp 1, moe_ep 8): unchanged.
    const auto right = mapped("deepseek-ai/DeepSeek-R1", "fp8", 8, 8, 8, "tensorrt-llm",
                              "parallelism: tp_size=8, pp_size=1, attention_dp_size=1, moe_tp_size=1, moe_ep_size=8; "
                              "source row id=x_fp8_agg_1024x1024_c4_tp8_0_ep8_0_1252 (CSV line 2)");
    CHECK(right.request["gpu_count"] == 8);
    CHECK(right.request["parallel"]["ep"] == 8);
    // gpt-oss-120b "tp16" with id tp4_ep4: the 4-GPU instance.
    const auto oss = mapped("openai/gpt-oss-120b", "fp4", 16, 16, 4, "tensorrt-llm",
                            "parallelism: tp_size=16, pp_size=1, attention_dp_size=1, moe_tp_size=4, moe_ep_size=4; "
                            "source row id=x_trtllm_fp4_agg_1024x1024_c4_tp4_ep4_987 (CSV line 3)");
    CHECK(oss.request["gpu_count"] == 4);
    CHECK(oss.request["parallel"]["tp"] == 4);
    CHECK(oss.request["parallel"]["ep"] == 4);
    // vLLM with attention DP: attention_dp_size 4 x tp_size 4 and moe_ep_size
    // 16 stated, id tp4_ep4: four attention-DP ranks of one GPU, EP 4.
    const auto dp = mapped("MiniMaxAI/MiniMax-M2.5", "fp8", 16, 4, 16, "vllm",
                           "parallelism: tp_size=4, pp_size=1, attention_dp_size=4, moe_tp_size=1, moe_ep_size=16; "
                           "source row id=x_vllm_fp8_agg_8192x1024_c32_tp4_ep4_1322 (CSV line 4)");
    CHECK(dp.request["gpu_count"] == 4);
    CHECK(dp.request["parallel"]["attention_dp"] == 4);
    CHECK(dp.request["parallel"]["tp"] == 4);  // the replica: tp 1 x 4 attention-DP ranks
    CHECK(dp.request["parallel"]["ep"] == 4);
    // No degrees in the id: more GPUs than the node's 8 with moe_tp x moe_ep =
    // tp_size is the product's signature (DeepSeek-V3 config 181). Its values
    // repeat config 83's (tp_size 8, moe_tp 8, moe_ep 1: TPOT 13.8 ms at 4
    // requests, as here) and not the expert-parallel rows' (8.6 ms), so the
    // experts are split by tensor parallelism, without expert parallelism.
    const auto noId = mapped("deepseek-ai/DeepSeek-V3", "fp8", 64, 64, 8, "tensorrt-llm",
                             "parallelism: tp_size=64, pp_size=1, attention_dp_size=1, moe_tp_size=8, moe_ep_size=8; "
                             "source row id=dsr1_h200_trtllm_fp8_agg_1024x1024_c4_cfg181 (CSV line 720)");
    CHECK(noId.request["gpu_count"] == 8);
    CHECK(noId.request["parallel"]["tp"] == 8);
    CHECK_FALSE(noId.request["parallel"].contains("ep"));
    // Config 183 (attention_dp_size 64) repeats config 83 too (TPOT 47.8
    // against 48.3 ms at 64 requests of 8,192 + 1,024 tokens; attention DP 8
    // x EP 8 measured 39.8 ms): the same 8-GPU tensor-parallel instance.
    const auto noIdDp = mapped("deepseek-ai/DeepSeek-V3", "fp8", 64, 1, 8, "tensorrt-llm",
                               "parallelism: tp_size=1, pp_size=1, attention_dp_size=64, moe_tp_size=8, moe_ep_size=8; "
                               "source row id=dsr1_h200_trtllm_fp8_agg_8192x1024_c64_cfg183 (CSV line 730)");
    CHECK(noIdDp.request["gpu_count"] == 8);
    CHECK(noIdDp.request["parallel"]["tp"] == 8);
    CHECK_FALSE(noIdDp.request["parallel"].contains("attention_dp"));
    CHECK_FALSE(noIdDp.request["parallel"].contains("ep"));
}

TEST_CASE("a vLLM start-up row maps to its context limit and pool fraction", "[validation]") {
    const auto m = caliper::test::mappedRow(validationRow(
        {{"kind", "kv_cache_tokens"}, {"unit", "tokens"}, {"model", "Qwen/Qwen2.5-7B-Instruct"}, {"quant", "bf16"},
         {"gpu", "H100-80GB"}, {"gpu_count", 2}, {"tp", 2}, {"pp", 1}, {"engine", "vllm"}, {"max_model_len", 8192},
         {"gpu_memory_utilization", 0.95}, {"value", 2390592}}));
    CHECK(m.request["max_model_len"] == 8192);
    CHECK(m.request["gpu_memory_utilization"] == 0.95);
    CHECK(m.request["parallel"]["tp"] == 2);
    CHECK(m.request["batch"] == 1);
}

TEST_CASE("benchmark-only models run on the shape of their own configuration", "[validation]") {
    // llm-foundry's mpt-13b.yaml: d_model 5120, 40 heads, 40 layers,
    // expansion_ratio 4, vocab 50368; the README row ran FSDP on 64 A100 40GB
    // with activation checkpointing and micro-batch 16.
    const auto m = caliper::test::mappedRow(validationRow({{"kind", "train_tflops_per_gpu"},
                                                           {"model", "mpt-13b"},
                                                           {"params_b", 12.854},
                                                           {"quant", "bf16"},
                                                           {"method", "pretrain"},
                                                           {"gpu", "a100_40gb"},
                                                           {"gpu_count", 64},
                                                           {"batch", 16},
                                                           {"seq_len", 2048},
                                                           {"engine", "llm-foundry"},
                                                           {"value", 162},
                                                           {"extra", "PyTorch FSDP sharding_strategy=FULL_SHARD, "
                                                                     "activation_checkpointing=True"}}));
    CHECK(m.request["model"]["hidden_size"] == 5120);
    CHECK(m.request["model"]["layers"] == 40);
    CHECK(m.request["model"]["vocab_size"] == 50368);
    CHECK(m.request["model"]["mlp"] == "plain");
    CHECK(m.request["loss_kernel"] == "fused");  // MPT's default fused_crossentropy
    CHECK(m.request["engine"] == "fsdp");
    // The table's FULL_SHARD column is the run's layout: parameters,
    // gradients and optimizer states sharded over the 64 ranks, micro-batch
    // 16 (the row's batch), checkpointing on.
    CHECK(m.request["parallel"]["strategy"] == "fsdp");
    CHECK(m.request["batch"] == 16);
    CHECK(m.request["gradient_checkpointing"] == true);
    // NeMo's GPT-3 175B (launcher conf gpt3/175b.yaml): 96 layers of 12288.
    const auto g = caliper::test::mappedRow(validationRow(
        {{"kind", "train_tflops_per_gpu"}, {"model", "GPT3-175B"}, {"params_b", 175}, {"quant", "fp8"},
         {"method", "pretrain"}, {"gpu", "DGX-H100"}, {"gpu_count", 128}, {"tp", 4}, {"pp", 8}, {"engine", "nemo"},
         {"batch", 1}, {"seq_len", 2048}, {"value", 700}}));
    CHECK(g.request["model"]["hidden_size"] == 12288);
    CHECK(g.request["model"]["layers"] == 96);
}

TEST_CASE("a Megatron training row keeps its expert, context and virtual-pipeline degrees", "[validation]") {
    // NeMo performance-summary rows state TP, PP, CP and EP as keys and the
    // virtual pipeline in the text ("VP=5"), the global batch as a key.
    const auto m = caliper::test::mappedRow(validationRow({{"kind", "train_tflops_per_gpu"},
                                                           {"model", "LLAMA3_70B"},
                                                           {"params_b", 70.6},
                                                           {"quant", "fp8"},
                                                           {"method", "pretrain"},
                                                           {"gpu", "DGX-H100"},
                                                           {"gpu_count", 64},
                                                           {"tp", 4},
                                                           {"pp", 8},
                                                           {"cp", 2},
                                                           {"batch", 1},
                                                           {"global_batch", 256},
                                                           {"seq_len", 8192},
                                                           {"engine", "nemo"},
                                                           {"value", 500},
                                                           {"extra", "Precision 'FP8'. VP=5, GA=not listed"}}));
    CHECK(m.request["parallel"]["tp"] == 4);
    CHECK(m.request["parallel"]["pp"] == 8);
    CHECK(m.request["parallel"]["cp"] == 2);
    CHECK(m.request["parallel"]["vp"] == 5);
    CHECK(m.request["global_batch"] == 256);
}

TEST_CASE("NeMo 24.07's fine-tuning rows run the launcher's SFT recipe", "[validation]") {
    // The performance summary's SFT rows ran NeMo-Framework-Launcher's
    // examples/peft/llama/h100/*.sh (24.07 tag): ++peft.model.fp8_params=true
    // and conf/peft/llama/sft.yaml's distributed Adam with dtype bf16; the
    // 70B example's virtual_pipeline_model_parallel_size=20 is the row's
    // structured key vp.
    const Json row = validationRow({{"kind", "train_tokens_per_s_per_gpu"},
                                    {"model", "LLAMA2-70B"},
                                    {"params_b", 70},
                                    {"quant", "fp8"},
                                    {"method", "full"},
                                    {"gpu", "H100 (DGX-H100)"},
                                    {"gpu_count", 16},
                                    {"tp", 4},
                                    {"pp", 4},
                                    {"vp", 20},
                                    {"batch", 1},
                                    {"global_batch", 32},
                                    {"seq_len", 4096},
                                    {"engine", "nemo"},
                                    {"value", 1816},
                                    {"unit", "tokens/s/GPU"},
                                    {"source", "github.com/NVIDIA/NeMo docs/source/performance/performance_summary.md"},
                                    {"extra", "SFT; packed_sequence=true, max_seq_length=4096"}});
    const auto m = caliper::test::mappedRow(row);
    CHECK(m.request["optimizer"] == "adamw-bf16");
    CHECK(m.request["fp8_params"] == true);
    CHECK(m.request["fp32_gradients"] == false);
    CHECK(m.request["packing"] == true);
    CHECK(m.request["parallel"]["vp"] == 20);
    // Its pre-training rows ran examples/training (fp32 Adam states, 16-bit
    // weights): neither applies.
    Json pretrain = row;
    pretrain["method"] = "pretrain";
    const auto p = caliper::test::mappedRow(pretrain);
    CHECK_FALSE(p.request.contains("fp8_params"));
    CHECK(p.request.value("optimizer", std::string("adamw")) != "adamw-bf16");
}

TEST_CASE("Hugging Face rows run the code paths of their transformers version", "[validation]") {
    // transformers 4.49 dropped the shifted-logits copy (PR #35646) and PEFT
    // keeps adapters in fp32 since v0.12 (July 2024): a row stating
    // transformers 5.17 keeps the engine's defaults, with the head's eager
    // loss it ran pinned (left "auto", the planner would weigh Liger's fused
    // linear loss where the eager one does not fit); a row stating no version
    // (every public Hugging Face row predates 2025) runs the older heads and
    // adapters in the model's dtype.
    const Json current = validationRow({{"kind", "finetune_memory"},
                                        {"model", "meta-llama/Llama-3.1-8B"},
                                        {"quant", "bf16"},
                                        {"method", "lora"},
                                        {"gpu", "NVIDIA H100 80GB HBM3"},
                                        {"gpu_count", 1},
                                        {"batch", 1},
                                        {"seq_len", 1024},
                                        {"engine", "transformers"},
                                        {"engine_version", "5.17.0"},
                                        {"extra", "PEFT LoRA r=16 target_modules=all-linear; torch.cuda.max_memory_reserved"},
                                        {"value", 27.0},
                                        {"unit", "GiB"}});
    const auto now = caliper::test::mappedRow(current);
    CHECK(now.request["loss_kernel"] == "eager");
    CHECK_FALSE(now.request["lora"].contains("adapter_dtype"));

    Json older = current;
    older.erase("engine_version");
    const auto before = caliper::test::mappedRow(older);
    CHECK(before.request["loss_kernel"] == "eager-shifted");
    CHECK(before.request["lora"]["adapter_dtype"] == "model");

    // Engines with their own loss keep it (Megatron: vocab-parallel).
    Json megatron = older;
    megatron["engine"] = "megatron";
    CHECK_FALSE(caliper::test::mappedRow(megatron).request.contains("loss_kernel"));
}

TEST_CASE("TensorRT-LLM rows of FP8 and NVFP4 checkpoints run an FP8 KV cache, vLLM rows the default", "[validation]") {
    // ModelOpt's NVFP4 exports write kv_cache_quant_algo FP8 in
    // hf_quant_config.json, and aiconfigurator models an FP8 KV cache for
    // fp8 and nvfp4 checkpoints (sdk/models/helpers.py), so a TensorRT-LLM
    // "fp4" sample runs its KV in FP8; the vLLM rows are left at the
    // engine's default.
    auto row = [](const char* engine, const char* quant) {
        return caliper::test::mappedRow(validationRow(
            {{"kind", "serving_ttft_ms"}, {"unit", "ms"}, {"model", "meta-llama/Llama-3.1-70B"}, {"quant", quant},
             {"gpu", "b200_sxm"}, {"gpu_count", 1}, {"tp", 1}, {"pp", 1}, {"engine", engine}, {"batch", 64},
             {"isl", 1024}, {"osl", 8192}, {"value", 241.5}}));
    };
    const auto fp4 = row("tensorrt-llm", "fp4");
    CHECK(fp4.request["weights"] == "nvfp4");
    CHECK(fp4.request["kv_cache"] == "fp8");
    CHECK(row("tensorrt-llm", "fp8").request["kv_cache"] == "fp8");
    CHECK_FALSE(row("vllm", "fp8").request.contains("kv_cache"));
}

TEST_CASE("aiconfigurator's SGLang rows from 0.5.6 on ran mixed chunked prefill, its 0.5.1 rows SGLang's default",
          "[validation]") {
    // aiconfigurator's generator passes --enable-mixed-chunk to aggregated
    // SGLang deployments since its pull 257 (2026-01-19); its SGLang data
    // moved from 0.5.1.post1 (pull 84, 2025-11-05) to 0.5.6.post2 (pull 228).
    auto row = [](const char* version, const char* source) {
        return caliper::test::mappedRow(validationRow(
            {{"kind", "serving_ttft_ms"}, {"unit", "ms"}, {"model", "Qwen/Qwen3-32B"}, {"quant", "bf16"},
             {"gpu", "h100_sxm"}, {"gpu_count", 2}, {"tp", 2}, {"pp", 1}, {"engine", "sglang"},
             {"engine_version", version}, {"batch", 16}, {"isl", 1024}, {"osl", 128}, {"value", 840.8},
             {"source", source}}));
    };
    const char* aic = "github.com/ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/systems/silicon_sample.csv";
    CHECK(row("0.5.6.post2", aic).request["serving"]["mixed_chunk"] == true);
    CHECK(row("0.5.9", aic).request["serving"]["mixed_chunk"] == true);
    CHECK_FALSE(row("0.5.1.post1", aic).request.contains("serving"));
    // Another source's SGLang rows keep SGLang's own default.
    CHECK_FALSE(row("0.5.9", "github.com/sgl-project/sglang").request.contains("serving"));
}

TEST_CASE("Megatron-Bridge's FP8 recipes train in fp8; its NVFP4 runs are listed as not expressible", "[validation]") {
    // docs/performance-summary.md names MXFP8 ("MXFP8", "FP8-MX") and FP8
    // current scaling ("FP8-CS"): all run the linear layers' GEMMs in FP8.
    Json row = validationRow({{"kind", "train_tflops_per_gpu"}, {"model", "LLAMA3_70B"}, {"params_b", 70}, {"method", "pretrain"},
                              {"gpu", "GB200 NVL72"}, {"gpu_count", 64}, {"batch", 1}, {"global_batch", 256}, {"seq_len", 8192},
                              {"tp", 1}, {"pp", 4}, {"cp", 1}, {"ep", 1}, {"engine", "nemo"}, {"value", 1937},
                              {"source", "github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md"},
                              {"extra", "Megatron-Bridge performance summary"}});
    for (const char* quant : {"mxfp8", "fp8-mx", "fp8-cs"}) {
        row["quant"] = quant;
        CHECK(caliper::test::mappedRow(row).request["weights"] == "fp8");
    }
    // The catalog holds no FP4 dense rate, so 4-bit training is not scored.
    row["quant"] = "nvfp4";
    CHECK(caliper::test::unexpressedReason(row).find("4-bit floating point") != std::string::npos);
}

TEST_CASE("a fine-tuning config that accumulates gradients states its global batch", "[validation]") {
    // ms-swift's defaults (gradient_accumulation_steps 16) at micro-batch 1:
    // 16 sequences per optimizer step; LitGPT's global_batch_size 32 at micro
    // batch 4. The gradients then stay alive through the next forward
    // (memory/train_activations.cpp), which the request's global batch says.
    auto mapped = [](const std::string& extra, int batch) {
        return caliper::test::mappedRow(validationRow({{"kind", "finetune_memory"},
                                                       {"model", "meta-llama/Llama-2-7b-hf"},
                                                       {"quant", "bf16"},
                                                       {"method", "lora"},
                                                       {"gpu", "NVIDIA A100 80GB"},
                                                       {"batch", batch},
                                                       {"seq_len", 2048},
                                                       {"extra", extra},
                                                       {"value", 20.0},
                                                       {"unit", "GiB"}}));
    };
    auto swift = mapped("ms-swift `swift sft`, gradient_accumulation_steps 16", 1);
    CHECK(swift.request["global_batch"] == 16);
    auto litgpt = mapped("yaml: precision bf16-true, global_batch_size 32, micro_batch_size 4", 4);
    CHECK(litgpt.request["batch"] == 4);
    CHECK(litgpt.request["global_batch"] == 32);
    // Without accumulation the request has no global batch.
    CHECK_FALSE(mapped("one micro-batch per step", 2).request.contains("global_batch"));
}

TEST_CASE("a Hugging Face uploader's name is not the framework that ran the row", "[validation]") {
    // validation/public-v2.jsonl: LitGPT's LoRA/QLoRA table lists Mistral 7B
    // v0.1 and v0.2 with the same settings; v0.2's weights come from the
    // "unsloth" organisation, which must not make the row an Unsloth run
    // (Unsloth always recomputes activations; LitGPT's recipe does not).
    const Json fields = {{"kind", "finetune_memory"}, {"params_b", 7}, {"quant", "bf16"}, {"method", "lora"},
                         {"gpu", "A10G (1xA10G)"}, {"batch", 2}, {"seq_len", 512}, {"optimizer", "torch.optim.AdamW"},
                         {"engine", "litgpt"}, {"extra", "config_hub/finetune lora.yaml, micro_batch_size 2, lora_r 32"},
                         {"value", 19.24}, {"unit", "GB"}};
    Json v01 = validationRow(fields), v02 = validationRow(fields);
    v01["model"] = "mistralai/Mistral-7B-v0.1";
    v02["model"] = "unsloth/Mistral-7B-v0.2";
    const auto a = caliper::test::mappedRow(v01), b = caliper::test::mappedRow(v02);
    CHECK(b.request["model"] == "mistral-7b-v0.3");  // the release-suffix fallback: v0.2's shape, as v0.3 but 768 fewer vocabulary rows
    CHECK(b.request.value("engine", std::string()) == a.request.value("engine", std::string()));
    CHECK(b.request["gradient_checkpointing"] == a.request["gradient_checkpointing"]);
    CHECK(caliper::io::withoutOrganisations("unsloth/Mistral-7B-v0.2") == "Mistral-7B-v0.2");
    CHECK(caliper::io::withoutOrganisations("Llama 2 70B (meta-llama/Llama-2-70b-hf)") == "Llama 2 70B (Llama-2-70b-hf)");
}

TEST_CASE("aiconfigurator's TensorRT-LLM rows and its vLLM rows from 0.16 on ran a step budget of batch + isl + 1500",
          "[validation]") {
    // The generator writes max_num_tokens = max_batch_size + isl + 1500 for
    // aggregated TensorRT-LLM (generator/backends/trtllm.py, 84ee71ebc,
    // 2025-09-30) and vLLM's --max-num-batched-tokens the same since
    // 2cecd6596 (2026-01-08, rule_plugin/vllm.rule): 32 + 4096 + 1500 = 5628.
    auto row = [](const char* engine, const char* version, const char* source) {
        return caliper::test::mappedRow(validationRow(
            {{"kind", "serving_ttft_ms"}, {"unit", "ms"}, {"model", "Qwen/Qwen3-32B"}, {"quant", "fp8"},
             {"gpu", "h100_sxm"}, {"gpu_count", 1}, {"tp", 1}, {"pp", 1}, {"engine", engine},
             {"engine_version", version}, {"batch", 32}, {"isl", 4096}, {"osl", 128}, {"value", 1337.0},
             {"source", source}}));
    };
    const char* aic = "github.com/ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/systems/silicon_sample.csv";
    CHECK(row("tensorrt-llm", "1.0.0rc3", aic).request["serving"]["max_num_batched_tokens"] == 5628);
    CHECK(row("vllm", "0.18.0", aic).request["serving"]["max_num_batched_tokens"] == 5628);
    // vLLM rows before the generator set it keep vLLM's default.
    CHECK_FALSE(row("vllm", "0.12.0", aic).request.contains("serving"));
    // Another source's rows keep the engine's default.
    CHECK_FALSE(row("tensorrt-llm", "1.0.0rc3", "github.com/NVIDIA/TensorRT-LLM").request.contains("serving"));
}

TEST_CASE("an FSDP sharding strategy the row states is the request's strategy", "[validation]") {
    // torch.distributed.fsdp.ShardingStrategy: FULL_SHARD is ZeRO-3's layout
    // (the engine's "fsdp"), SHARD_GRAD_OP ZeRO-2's, NO_SHARD DDP.
    const auto row = [](const char* extra) {
        return caliper::test::mappedRow(validationRow({{"kind", "train_tflops_per_gpu"},
                                                       {"model", "mpt-13b"},
                                                       {"params_b", 12.854},
                                                       {"quant", "bf16"},
                                                       {"method", "pretrain"},
                                                       {"gpu", "a100_40gb"},
                                                       {"gpu_count", 8},
                                                       {"batch", 8},
                                                       {"seq_len", 2048},
                                                       {"engine", "llm-foundry"},
                                                       {"value", 150},
                                                       {"extra", extra}}));
    };
    CHECK(row("sharding_strategy=SHARD_GRAD_OP").request["parallel"]["strategy"] == "zero2");
    CHECK(row("sharding_strategy: NO_SHARD").request["parallel"]["strategy"] == "ddp");
    CHECK(row("FSDP sharding_strategy=FULL_SHARD").request["parallel"]["strategy"] == "fsdp");
    // No strategy in the text: the planner's (engine fsdp defaults to it).
    CHECK(!row("activation_checkpointing=True").request["parallel"].contains("strategy"));
}

TEST_CASE("a disaggregated serving row is one decode replica with the split in serving.disaggregated", "[validation]") {
    // aiconfigurator config 538 (CSV line 656): 7 prefill workers of
    // attention DP 4 x EP 4 and 2 decode workers of attention DP 8 x EP 8:
    // 7 x 4 + 2 x 8 = 44 GPUs, 2,048 requests (128 per attention-DP rank).
    const char* aic = "github.com/ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/systems/silicon_sample.csv";
    Json fields = {{"kind", "serving_ttft_ms"}, {"unit", "ms"}, {"model", "deepseek-ai/DeepSeek-V3"}, {"quant", "fp4"},
                   {"gpu", "b200_sxm"}, {"gpu_count", 44}, {"engine", "sglang"}, {"engine_version", "0.5.8.post1"},
                   {"batch", 2048}, {"isl", 8192}, {"osl", 1024}, {"disaggregated", true},
                   {"prefill_workers", 7}, {"prefill_tp", 1}, {"prefill_pp", 1}, {"prefill_attention_dp", 4},
                   {"prefill_ep", 4}, {"prefill_batch", 1}, {"decode_workers", 2}, {"decode_tp", 1}, {"decode_pp", 1},
                   {"decode_attention_dp", 8}, {"decode_ep", 8}, {"benchmark_rounds", 10}, {"value", 9516.7}, {"source", aic},
                   {"extra", "prefill: 7 workers x (attention_dp_size=4, moe_ep_size=4)"}};
    const auto m = caliper::test::mappedRow(validationRow(fields));
    CHECK(m.request["gpu_count"] == 8);
    CHECK(m.request["parallel"]["tp"] == 8);
    CHECK(m.request["parallel"]["attention_dp"] == 8);
    CHECK(m.request["parallel"]["ep"] == 8);
    CHECK(m.request["batch"] == 2048);
    const Json& split = m.request["serving"]["disaggregated"];
    CHECK(split["prefill_replicas"] == 7);
    CHECK(split["decode_replicas"] == 2);
    CHECK(split["prefill_max_batch"] == 1);
    CHECK(split["benchmark_rounds"] == 10);
    CHECK(split["prefill_parallel"]["tp"] == 4);
    CHECK(split["prefill_parallel"]["attention_dp"] == 4);
    // SGLang's aggregated mixed-chunk convention is not applied to the split.
    CHECK_FALSE(m.request["serving"].contains("mixed_chunk"));
    // A gpu_count that is not both pools' GPUs is listed, not guessed.
    fields["gpu_count"] = 40;
    const caliper::io::MappingOutcome bad =
        caliper::io::mapValidationRow(caliper::test::projectCatalog(), validationRow(fields));
    CHECK_FALSE(bad.mapping);
    CHECK(bad.reason.find("prefill and decode") != std::string::npos);
}

TEST_CASE("FSDP inside a TP x PP layout is the data-parallel strategy, not the fsdp engine", "[validation]") {
    // Llama 3 405B (arXiv 2407.21783, Table 4 and section 3.3.2): TP 8 x PP 16
    // with FSDP as the data-parallel dimension, which "for model shards we do
    // not reshard after forward computation": FSDP2's reshard_after_forward=False.
    const auto m = caliper::test::mappedRow(validationRow(
        {{"kind", "train_throughput"}, {"model", "meta-llama/Llama-3.1-405B (pre-training)"}, {"params_b", 405},
         {"quant", "bf16"}, {"method", "pretrain"}, {"gpu", "NVIDIA H100 80GB HBM3"}, {"gpu_count", 16384},
         {"tp", 8}, {"pp", 16}, {"cp", 1}, {"global_batch", 2048}, {"seq_len", 8192}, {"value", 400.0},
         {"unit", "TFLOPs/GPU"},
         {"extra", "We use fully sharded data parallelism (FSDP) ... Our use of FSDP for Llama 3 shards optimizer "
                   "states and gradients, but for model shards we do not reshard after forward computation."}}));
    CHECK(m.request.value("engine", std::string()) != "fsdp");
    CHECK(m.request["parallel"]["strategy"] == "fsdp");
    CHECK(m.request["parallel"]["reshard_after_forward"] == false);
    // Without the tensor and pipeline split, FSDP names the engine as before.
    const auto plain = caliper::test::mappedRow(validationRow(
        {{"kind", "train_tflops_per_gpu"}, {"model", "mpt-13b"}, {"params_b", 12.854}, {"quant", "bf16"},
         {"method", "pretrain"}, {"gpu", "a100_40gb"}, {"gpu_count", 8}, {"batch", 8}, {"seq_len", 2048},
         {"value", 150}, {"extra", "PyTorch FSDP sharding_strategy=FULL_SHARD"}}));
    CHECK(plain.request["engine"] == "fsdp");
    CHECK_FALSE(plain.request["parallel"].contains("reshard_after_forward"));
}
