// The multi-GPU planner and the GPU-count search.
#include <optional>

#include <catch2/catch.hpp>

#include "caliper/plan/estimate.hpp"
#include "memory/sizing.hpp"
#include "plan/prepared.hpp"
#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;

TEST_CASE("default strategy per task, engine and count", "[plan]") {
    Scenario s = serving("llama-3.1-8b", "h100-sxm5-80gb", Engine::Vllm);
    CHECK(defaultStrategy(s, 1) == Strategy::Single);
    CHECK(defaultStrategy(s, 4) == Strategy::Tensor);
    s.engine = Engine::LlamaCpp;
    CHECK(defaultStrategy(s, 2) == Strategy::LayerSplit);
    // transformers spreads a model over GPUs with device_map="auto"
    // (accelerate's layer split); tensor parallelism (tp_plan="auto") is
    // what a request states with a tensor degree.
    s.engine = Engine::Transformers;
    CHECK(defaultStrategy(s, 1) == Strategy::Single);
    CHECK(defaultStrategy(s, 4) == Strategy::LayerSplit);
    s.parallel.tp = 4;
    CHECK(defaultStrategy(s, 4) == Strategy::Tensor);
    s.parallel.tp = 0;
    Scenario t = finetuning("llama-3.1-8b", "h100-sxm5-80gb", Method::Full, Engine::Transformers);
    CHECK(defaultStrategy(t, 8) == Strategy::Zero3);
    t.engine = Engine::Deepspeed;
    CHECK(defaultStrategy(t, 8) == Strategy::Zero3);
    t.engine = Engine::Fsdp;
    CHECK(defaultStrategy(t, 8) == Strategy::Fsdp);
    t.engine = Engine::Megatron;
    CHECK(defaultStrategy(t, 64) == Strategy::Tensor);
}

TEST_CASE("tensor parallel divides the heads, pipeline takes the rest", "[plan]") {
    // Llama-3-70B: 64 heads, 8 KV heads (config.json).
    Scenario s = serving("llama-3-70b", "h100-sxm5-80gb", Engine::Vllm);
    Plan p = makePlan(s, 8);
    CHECK(p.strategy == Strategy::Tensor);
    CHECK(p.tp == 8);
    CHECK(p.pp == 1);
    p = makePlan(s, 3);  // 3 does not divide 64 heads: one tensor rank, three stages
    CHECK(p.tp == 1);
    CHECK(p.pp == 3);
    p = makePlan(s, 6);
    CHECK(p.tp == 2);
    CHECK(p.pp == 3);
    p = makePlan(s, 16);
    CHECK(p.tp * p.pp == 16);
    CHECK(p.nodes == 2);  // 8 H100 per HGX server (catalog gpus_per_node)
}

TEST_CASE("Megatron keeps tensor parallelism inside the NVLink domain", "[plan]") {
    Scenario s = finetuning("llama-3-70b", "h100-sxm5-80gb", Method::Full, Engine::Megatron);
    s.task = Task::Pretrain;
    s.seqLen = 4096;
    const Plan p = makePlan(s, 64);
    CHECK(p.tp == 8);
    CHECK(p.tp * p.pp * p.dp == 64);
    CHECK(p.nodes == 8);
    // No NVLink (RTX 4090): no tensor parallelism.
    s.gpu = catalogGpu("rtx-4090");
    CHECK(makePlan(s, 8).tp == 1);
}

TEST_CASE("fewest GPUs is the first count that fits", "[plan][gpu_count]") {
    const char* models[] = {"llama-3.1-8b", "qwen2.5-72b", "mixtral-8x22b", "llama-3.1-405b"};
    for (const char* model : models) {
        for (Engine engine : {Engine::Vllm, Engine::LlamaCpp}) {
            Scenario s = serving(model, "rtx-4090", engine);
            if (engine == Engine::LlamaCpp) s.weights = WeightFormat::Q4_K_M;
            const std::optional<int> n = fewestGpus(s);
            INFO(model << " " << toString(engine));
            REQUIRE(n.has_value());
            CHECK(fitsMemory(s, memoryOn(s, *n)));
            // Every smaller count the strategy can use does not fit.
            for (int smaller : {1, 2, 3, 4, 6, 8, 16, 24, 32}) {
                if (smaller >= *n) break;
                const Plan plan = makePlan(s, smaller);
                if (plan.tp * plan.pp * plan.dp != smaller) continue;
                CHECK_FALSE(fitsMemory(s, estimateMemory(s, plan).memory));
            }
        }
    }
}

// The search skips counts below the weights spread evenly (one GPU
// included), scans pipeline plans without galloping past the fit, settles a
// sharded scenario by its largest count and rejects a plan on its first
// stage: none of that may change the answer of a plain scan of every count.
TEST_CASE("the pruned GPU-count search answers what a scan of every count answers", "[plan][gpu_count]") {
    auto scan = [](const Scenario& s, int upTo) -> std::optional<int> {
        for (int n = 1; n <= upTo; ++n) {
            const Plan plan = makePlan(s, n);
            if (plan.tp * plan.pp * plan.dp != n) continue;  // a count the strategy cannot use
            if (fitsMemory(s, estimateMemory(s, plan).memory)) return n;
        }
        return std::nullopt;
    };
    Scenario zero3 = finetuning("llama-3.1-70b", "rtx-4090", Method::Full);
    zero3.parallel.strategy = Strategy::Zero3;
    zero3.gradientCheckpointing = true;
    Scenario longZero3 = zero3;  // activations alone overflow a 24 GB card at any count
    longZero3.seqLen = 131072;
    // Kimi K2: 61 layers of ~16.5B parameters (config.json), 33 GB each in
    // bf16: no split fits a 24 GB or a 4 GB card (one GPU per server: no
    // tensor parallelism), so the search ends where the plans end.
    const Scenario cases[] = {serving("llama-3.1-405b", "rtx-4090"), serving("qwen2.5-72b", "rtx-4090"),
                              serving("llama-3.1-8b", "rtx-4090"), zero3, longZero3,
                              serving("kimi-k2", "rtx-4090", Engine::LlamaCpp), serving("kimi-k2", "gtx-1050-ti")};
    for (const Scenario& s : cases) {
        INFO(s.model.id << " " << toString(s.task) << " seq " << s.seqLen);
        const std::optional<int> n = fewestGpus(s);
        // Up to the answer every count is scanned; where there is none, every count.
        CHECK(scan(s, n ? *n : kMaxGpus) == n);
    }
}

// The planner skips what the search ruled out (counts below the weights'
// bound and counts it probed without a fit) and shows the one-GPU breakdown
// the search kept; evaluateIfFits rejects a plan on a stage's weights
// (training: its states) and the overheads every GPU holds, on the first or
// the last pipeline stage, before the rest is worked out, and builds the
// breakdown of the fullest stage only. None of that may disagree with a
// full evaluation of the same plan: the same verdict, the same figures.
TEST_CASE("what the count search rules out does not fit, and a quick rejection agrees with a full evaluation",
          "[plan][gpu_count]") {
    Scenario zero3 = finetuning("llama-3.1-70b", "rtx-4090", Method::Full);
    zero3.parallel.strategy = Strategy::Zero3;
    Scenario lora = finetuning("llama-3.1-70b", "rtx-4090", Method::Lora);
    lora.gradientCheckpointing = true;
    // Megatron's pipelines: training plans with a first and a last stage.
    const Scenario megatron = finetuning("llama-3-70b", "a100-sxm4-40gb", Method::Full, Engine::Megatron);
    const Scenario cases[] = {serving("llama-3.1-405b", "rtx-4090"), serving("qwen2.5-72b", "rtx-4090"),
                              serving("llama-3.1-70b", "h100-sxm5-80gb", Engine::TensorrtLlm),
                              serving("kimi-k2", "rtx-4090", Engine::LlamaCpp), serving("llama-3.1-8b", "gtx-1050-ti"),
                              zero3, lora, megatron};
    for (const Scenario& s : cases) {
        INFO(s.model.id << " on " << s.gpu.id << " " << toString(s.engine));
        const sizing::Inputs in = sizing::prepare(s);
        const CountSearch search = searchGpuCounts(in);
        for (int n = 1; n <= 64; ++n) {
            INFO(n << " GPUs");
            const Plan plan = sizing::planFor(in, n);
            const bool usable = sizing::countUsable(in, plan);
            const MemoryBreakdown full = sizing::evaluate(in, plan, sizing::Explain(), nullptr);
            if (search.ruledOut(n)) CHECK_FALSE((usable && sizing::fits(s, full)));
            if (!usable) continue;
            const std::optional<MemoryBreakdown> quick = sizing::evaluateIfFits(in, plan);
            CHECK(quick.has_value() == sizing::fits(s, full));
            if (quick) {
                CHECK(quick->totalGiB == full.totalGiB);
                CHECK(quick->activationsGiB == full.activationsGiB);
                CHECK(quick->kvPoolGib == full.kvPoolGib);
            }
        }
        if (search.one) CHECK(search.one->memory.totalGiB == sizing::evaluate(in, sizing::planFor(in, 1), sizing::Explain(), nullptr).totalGiB);
    }
}

// The search stops at usableCountLimit: past it no plan of the strategy
// can use its GPUs (a layer split has one GPU per layer at most; a serving
// tensor plan tp x pp GPUs, tp within a server or as requested).
TEST_CASE("no count past the usable limit makes a usable plan", "[plan][gpu_count]") {
    Scenario requestedTp = serving("llama-3.1-70b", "h100-sxm5-80gb");
    requestedTp.parallel.tp = 4;
    const Scenario cases[] = {serving("llama-3.1-8b", "rtx-4090", Engine::LlamaCpp), serving("llama-3.1-70b", "h100-sxm5-80gb"),
                              serving("kimi-k2", "gtx-1050-ti"), requestedTp};
    for (const Scenario& s : cases) {
        const sizing::Inputs in = sizing::prepare(s);
        const int limit = sizing::usableCountLimit(in);
        INFO(s.model.id << " on " << s.gpu.id << " " << toString(s.engine) << ": limit " << limit);
        REQUIRE(limit < kMaxGpus);
        for (int n = limit + 1; n <= kMaxGpus; ++n) CHECK_FALSE(sizing::countUsable(in, sizing::planFor(in, n)));
    }
}

TEST_CASE("replicated strategies fit on one GPU or none", "[plan][gpu_count]") {
    Scenario s = finetuning("llama-3.1-8b", "rtx-4090", Method::Full);
    s.parallel.strategy = Strategy::Ddp;
    CHECK_FALSE(fewestGpus(s).has_value());  // 16 bytes x 8B per GPU never fits 24 GB
    s.parallel.strategy = Strategy::Zero3;
    s.gradientCheckpointing = true;
    const std::optional<int> sharded = fewestGpus(s);
    REQUIRE(sharded.has_value());
    CHECK(*sharded > 1);
    Scenario small = serving("qwen2.5-0.5b", "rtx-4090");
    CHECK(fewestGpus(small) == 1);
}

TEST_CASE("more GPUs never raise per-GPU memory under sharding", "[plan][property]") {
    struct Case {
        Scenario scenario;
        const char* label;
    };
    Scenario tp = serving("llama-3.1-70b", "h100-sxm5-80gb", Engine::Vllm);
    tp.gpuMemoryUtilization = 1.0;
    Scenario zero3 = finetuning("llama-3.1-70b", "h100-sxm5-80gb", Method::Full, Engine::Deepspeed);
    Scenario fsdp = finetuning("llama-3.1-70b", "h100-sxm5-80gb", Method::Full, Engine::Fsdp);
    Scenario split = serving("llama-3.1-70b", "h100-sxm5-80gb", Engine::LlamaCpp);
    const Case cases[] = {{tp, "tensor"}, {zero3, "zero3"}, {fsdp, "fsdp"}, {split, "layer split"}};
    for (const Case& c : cases) {
        double previous = 1e18;
        for (int count : {1, 2, 4, 8, 16, 32, 64}) {
            const MemoryBreakdown m = memoryOn(c.scenario, count);
            // vLLM reports its whole budget once the KV fits: compare the tensors.
            const double used = m.totalGiB - m.overheadGiB;
            INFO(c.label << " x" << count);
            CHECK(used <= previous + 1e-9);
            previous = used;
        }
    }
}

TEST_CASE("transformers inference over several GPUs is accelerate's layer split by default", "[plan]") {
    // Llama 3 70B in bf16 over 4 H100s with engine transformers and no
    // strategy: the plan is device_map="auto", 80 layers over 4 pipeline
    // stages run one GPU at a time (tp 1, pp 4), not tensor parallelism.
    Scenario s = serving("llama-3-70b", "h100-sxm5-80gb", Engine::Transformers);
    Plan p = makePlan(s, 4);
    CHECK(p.strategy == Strategy::LayerSplit);
    CHECK(p.tp == 1);
    CHECK(p.pp == 4);
    // A stated tensor degree (tp_plan="auto" under torchrun) keeps tensor
    // parallelism: 64 heads and 8 KV heads divide by 4.
    s.parallel.tp = 4;
    p = makePlan(s, 4);
    CHECK(p.strategy == Strategy::Tensor);
    CHECK(p.tp == 4);
    CHECK(p.pp == 1);
}
