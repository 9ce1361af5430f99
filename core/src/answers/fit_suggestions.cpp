// Computed fixes for a scenario that does not fit: each candidate change is
// applied to a copy of the scenario and evaluated on the same GPU count;
// only changes that fit are returned. Order: settings that cost nothing
// (an Apple GPU's wired limit, FlashAttention, checkpointing, KV dtype), then sharding and offload, then
// changes to the job (adapters, quantization, shorter context, smaller
// batch), then more GPUs.
#include "caliper/answers/fit_suggestions.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "caliper/plan/estimate.hpp"
#include "caliper/answers/limits.hpp"
#include "memory/sizing.hpp"
#include "plan/planner.hpp"

namespace caliper {

namespace {

struct Trial {
    bool fits = false;
    MemoryBreakdown memory;
    int count = 1;
};

int countOf(const Scenario& s) { return s.gpuCountAuto ? 1 : std::max(1, s.gpuCount); }

// The scenario as estimate() would plan it (the same planner, count and
// limit): a suggestion is kept only when, applied, the estimate fits.
Trial tryScenario(const Scenario& s) {
    const planner::Choice choice = planner::choose(s, s.maxGpus);
    Trial t;
    t.memory = choice.memory;
    t.count = choice.plan.gpuCount;
    t.fits = choice.fits && choice.plan.gpuCount <= s.maxGpus;
    return t;
}

class Collector {
public:
    explicit Collector(const Scenario& base) : base_(base) {}

    // Applies `change` to a copy; keeps it when it fits.
    void consider(const char* code, const std::string& detail, const std::function<void(Scenario&)>& change) {
        Scenario s = base_;
        change(s);
        const Trial t = tryScenario(s);
        if (t.fits) out_.push_back(FitSuggestion{code, detail, t.memory.totalGiB, t.count, true});
    }
    void add(FitSuggestion suggestion) { out_.push_back(std::move(suggestion)); }
    std::vector<FitSuggestion> take() { return std::move(out_); }

private:
    const Scenario& base_;
    std::vector<FitSuggestion> out_;
};

bool isShardedStrategy(Strategy s) { return s == Strategy::Zero3 || s == Strategy::Fsdp; }

// What the engine itself offers, so that a suggestion names only changes the
// chosen engine can make. Megatron-LM trains with its own optimizers, Adam
// or SGD (megatron/training/arguments.py --optimizer choices), and its PEFT
// (Megatron-Bridge LoRA/DoRA) adapts 16-bit bases: no bitsandbytes 8-bit
// optimizer, no 4-bit QLoRA base. The PyTorch trainers (transformers,
// DeepSpeed, FSDP, Unsloth, torchtune) take bitsandbytes' optimizers and
// 4-bit bases.
bool engineOffersBitsandbytes(Engine engine) { return runtimeOf(engine) != Engine::Megatron; }

void trainingChanges(const Scenario& s, const Plan& plan, Collector& c) {
    if (!s.flashAttention && s.gpu.flashAttention2) {
        c.consider("flash_attention", "FlashAttention on", [](Scenario& x) { x.flashAttention = true; });
    }
    if (!s.gradientCheckpointing && !s.gradientCheckpointingAuto) {
        c.consider("gradient_checkpointing", "gradient checkpointing on",
                   [](Scenario& x) { x.gradientCheckpointing = true; });
    }
    // The loss over the vocabulary the request fixed as eager: Liger's fused
    // linear cross entropy keeps no logits whole (an "auto" loss the planner
    // already weighs).
    const bool eagerLoss = s.lossKernel && (*s.lossKernel == LossKernel::Eager || *s.lossKernel == LossKernel::EagerShifted);
    if (eagerLoss && planner::fusedLinearLossRuns(s)) {
        c.consider("fused_linear_loss", "fused linear cross-entropy (Liger Kernel, use_liger_kernel=True)",
                   [](Scenario& x) { x.lossKernel = LossKernel::FusedLinear; });
    }
    if (s.optimizer == Optimizer::AdamW && engineOffersBitsandbytes(s.engine)) {
        c.consider("optimizer_8bit", "8-bit AdamW (bitsandbytes)", [](Scenario& x) { x.optimizer = Optimizer::AdamW8bit; });
    }
    // Unsloth shards nothing: its multi-GPU runs are DDP replicas.
    const bool shards = runtimeOf(s.engine) != Engine::Megatron && s.engine != Engine::Unsloth;
    if (plan.gpuCount > 1 && !isShardedStrategy(plan.strategy) && shards) {
        c.consider("zero3", "ZeRO-3 over the GPUs", [](Scenario& x) { x.parallel.strategy = Strategy::Zero3; });
    }
    if (s.parallel.offload == Offload::None && shards) {
        const Strategy sharded = runtimeOf(s.engine) == Engine::Fsdp ? Strategy::Fsdp : Strategy::Zero3;
        // The detail names the strategy the change sets with the offload:
        // applied as written, it is the plan the suggestion measured.
        const bool fsdp = sharded == Strategy::Fsdp;
        c.consider("offload_optimizer",
                   fsdp ? "FSDP with optimizer states in CPU RAM (parallel.offload optimizer)"
                        : "ZeRO-3 with optimizer states in CPU RAM (parallel.strategy zero3, parallel.offload optimizer)",
                   [&](Scenario& x) {
            x.parallel.offload = Offload::Optimizer;
            if (runtimeOf(x.engine) != Engine::Fsdp) x.parallel.strategy = Strategy::Zero3;
        });
        c.consider("offload_parameters",
                   fsdp ? "FSDP with parameters and optimizer states in CPU RAM (parallel.strategy fsdp, parallel.offload parameters)"
                        : "ZeRO-3 with parameters and optimizer states in CPU RAM (parallel.strategy zero3, parallel.offload parameters)",
                   [&](Scenario& x) {
            x.parallel.offload = Offload::Parameters;
            x.parallel.strategy = sharded;
        });
    }
    if (s.task == Task::Finetune && s.method == Method::Full) {
        c.consider("lora", "LoRA adapters instead of full fine-tuning", [](Scenario& x) { x.method = Method::Lora; });
    }
    if (s.task == Task::Finetune && s.method != Method::Qlora && engineOffersBitsandbytes(s.engine)) {
        c.consider("qlora", "QLoRA: NF4 base with adapters, checkpointing on", [](Scenario& x) {
            x.method = Method::Qlora;
            x.weights = WeightFormat::Nf4Dq;
            x.gradientCheckpointing = true;
        });
    }
}

void inferenceChanges(const Scenario& s, Collector& c) {
    const bool halfKv = s.kvCache == KvFormat::Bf16 || s.kvCache == KvFormat::Fp16 || s.kvCache == KvFormat::Fp32;
    if (halfKv && runtimeOf(s.engine) == Engine::LlamaCpp) {
        c.consider("kv_cache_q8_0", "KV cache in q8_0", [](Scenario& x) { x.kvCache = KvFormat::Q8_0; });
    } else if (halfKv && s.gpu.supportsFp8) {
        c.consider("kv_cache_fp8", "KV cache in fp8", [](Scenario& x) { x.kvCache = KvFormat::Fp8; });
    }
    // llama.cpp keeps what the GPU cannot hold in host RAM: the routed
    // experts of the fewest MoE layers (--n-cpu-moe, the way gpt-oss-120b
    // runs on one 24 GB card), or the layers past -ngl. Not on a SoC, whose
    // GPU memory already is the host's.
    if (runtimeOf(s.engine) == Engine::LlamaCpp && s.engine != Engine::Mlx && s.parallel.offload == Offload::None &&
        s.gpu.formFactor != "soc") {
        if (s.model.moe.experts > 0) {
            c.consider("offload_moe_experts", "MoE experts of some layers in host RAM (--n-cpu-moe)",
                       [](Scenario& x) { x.parallel.offload = Offload::MoeExperts; });
        }
        c.consider("offload_layers", "some layers in host RAM (-ngl)", [](Scenario& x) { x.parallel.offload = Offload::Layers; });
    }
    const FormatChoice format = bestWeightFormat(s);
    if (format.found && format.format != s.weights) {
        c.add(FitSuggestion{"quantize", std::string("weights ") + toString(format.format), format.memory.totalGiB,
                            countOf(s), true});
    }
}

// An Apple GPU wires about 3/4 of the Mac's RAM by default (the catalog's
// memory_gib); `sudo sysctl iogpu.wired_limit_mb` raises it. exo's
// configure_mlx.sh (exo-explore/exo) sets max(80% of RAM, RAM - 5 GiB),
// leaving the rest to macOS: the limit offered, where it is above the
// scenario's. It costs nothing, so it comes first.
void wiredLimitChange(const Scenario& s, Collector& c) {
    if (s.gpu.vendor != "apple" || s.host.ramGib <= 0) return;
    constexpr double kWiredShare = 0.8, kMacosReserveGiB = 5;
    const double raisedGiB = std::max(kWiredShare * s.host.ramGib, s.host.ramGib - kMacosReserveGiB);
    if (raisedGiB <= s.gpu.memoryGib) return;
    c.consider("gpu_wired_limit",
               sizing::fmt("GPU wired limit %.0f GiB (sudo sysctl iogpu.wired_limit_mb=%.0f)", raisedGiB,
                           std::floor(raisedGiB * 1024)),
               [raisedGiB](Scenario& x) { x.gpu.memoryGib = raisedGiB; });
}

// Shorter context, smaller batch: the limit that fits with all else equal.
void workloadChanges(const Scenario& s, Collector& c) {
    const ContextLimit context = longestContext(s);
    const std::int64_t current = s.task == Task::Inference ? s.promptTokens + s.outputTokens : s.seqLen;
    if (context.fits && context.tokens < current) {
        c.add(FitSuggestion{"shorter_context", sizing::fmt("context of %lld tokens", static_cast<long long>(context.tokens)),
                            context.memory.totalGiB, countOf(s), true});
    }
    const BatchLimit batch = largestBatch(s);
    if (batch.fits && batch.batch < s.batch) {
        c.add(FitSuggestion{"smaller_batch", sizing::fmt("batch of %lld", static_cast<long long>(batch.batch)),
                            batch.memory.totalGiB, countOf(s), true});
    }
}

void moreGpus(const Scenario& s, Collector& c) {
    if (s.gpuCountAuto) return;  // an "auto" count already is the fewest that fit
    Scenario wider = s;
    wider.gpuCountAuto = true;
    const Trial t = tryScenario(wider);
    if (!t.fits || t.count <= countOf(s)) return;
    c.add(FitSuggestion{"more_gpus", sizing::fmt("%d GPUs", t.count), t.memory.totalGiB, t.count, true});
}

}  // namespace

std::vector<FitSuggestion> fitSuggestions(const Scenario& scenario) {
    if (tryScenario(scenario).fits) return {};
    const sizing::Inputs in = sizing::prepare(scenario);
    const Plan plan = sizing::planFor(in, countOf(scenario));
    Collector c(scenario);
    wiredLimitChange(scenario, c);
    if (scenario.task == Task::Inference) inferenceChanges(scenario, c);
    else trainingChanges(scenario, plan, c);
    workloadChanges(scenario, c);
    moreGpus(scenario, c);
    return c.take();
}

}  // namespace caliper
