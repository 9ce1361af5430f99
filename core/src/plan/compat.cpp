// Compatibility rules (methodology §8: FlashAttention, vLLM and bitsandbytes
// READMEs; vendor specs for NVLink).
#include "caliper/plan/compat.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "caliper/plan/estimate.hpp"
#include "caliper/error.hpp"
#include "speed/efficiency.hpp"  // computeCapability: read without strtod, as a matrix cell checks every scenario
#include "text/grouped_number.hpp"

namespace caliper {

bool isGgufFormat(WeightFormat format) { return format >= WeightFormat::Q8_0; }

// What a GGUF file can hold: llama.cpp's quant types and ggml's F32, F16,
// BF16 and MXFP4 tensor types (ggml.h enum ggml_type).
bool ggufLoads(WeightFormat format) {
    return isGgufFormat(format) || format == WeightFormat::Fp32 || format == WeightFormat::Fp16 ||
           format == WeightFormat::Bf16 || format == WeightFormat::Mxfp4;
}

bool isTrainingEngine(Engine engine) {
    return engine == Engine::Deepspeed || engine == Engine::Fsdp || engine == Engine::Megatron ||
           engine == Engine::Unsloth || engine == Engine::Torchtune;
}

bool runsOnOneDevice(const Scenario& s) { return s.engine == Engine::Vllm && std::string_view(s.gpu.vendor) == "apple"; }

bool engineRunsJob(Engine engine, bool inference) {
    return engine == Engine::Transformers || isTrainingEngine(engine) != inference;
}

namespace {

// A rejection's error; its message is built only where a rule fails (a
// matrix checks every cell).
Error rejection(const char* code, const char* path, std::string message) {
    return Error{code, std::move(message), path};
}

// The engine-specific rules of scenarioError: which task, platform and
// options each engine takes.
// (Vendors are compared as string_views: inline, lengths first; every
// matrix cell runs these checks.)
std::optional<Error> engineError(const Scenario& s) {
    const bool training = s.task != Task::Inference;
    const Engine e = s.engine;
    if (training && (e == Engine::Vllm || e == Engine::Sglang || e == Engine::TensorrtLlm || e == Engine::LlamaCpp ||
                     e == Engine::Ollama || e == Engine::Mlx)) {
        return rejection("incompatible_options", "/engine", std::string(toString(e)) + " is an inference engine");
    }
    if (!training && isTrainingEngine(e) && e != Engine::Deepspeed) {
        return rejection("incompatible_options", "/engine", std::string(toString(e)) + " is a training framework");
    }
    // Unsloth and torchtune are fine-tuning libraries (Unsloth: one GPU or
    // DDP replicas; torchtune: post-training recipes); pre-training from
    // scratch at scale needs megatron, fsdp or deepspeed.
    if (s.task == Task::Pretrain && (e == Engine::Unsloth || e == Engine::Torchtune)) {
        return rejection("incompatible_options", "/engine",
            std::string(toString(e)) + " fine-tunes; pre-train with megatron, fsdp or deepspeed (continued pre-training: task finetune, method full)");
    }
    // TensorRT-LLM is built on CUDA and runs on NVIDIA GPUs only
    // (NVIDIA/TensorRT-LLM README, "Supported hardware").
    if (e == Engine::TensorrtLlm && std::string_view(s.gpu.vendor) != "nvidia") {
        return rejection("incompatible_options", "/engine", "tensorrt-llm runs on NVIDIA GPUs only; " + s.gpu.name + " is not one");
    }
    // vLLM reaches an Apple GPU through the vllm-metal plugin, which runs on
    // one Mac: "Single GPU Only", "No Distributed Inference: Tensor and
    // pipeline parallelism not supported" (vllm-project/vllm-metal README,
    // Limitations). Several Macs pool with llama.cpp's RPC backend instead.
    if (e == Engine::Vllm && std::string_view(s.gpu.vendor) == "apple" && !s.gpuCountAuto && s.gpuCount > 1) {
        return rejection("incompatible_options", "/gpu_count",
            "vllm on Apple silicon (vllm-metal) runs on one Mac; use llama.cpp to split a model across Macs");
    }
    // TensorRT-LLM's support matrix (nvidia.github.io/TensorRT-LLM,
    // reference/support-matrix, "Hardware") lists Blackwell, Hopper, Ada and
    // Ampere; Volta was dropped (release notes 0.x), Turing (SM75) is the
    // oldest its kernels were ever built for. Pascal and older cannot run it.
    if (e == Engine::TensorrtLlm && !s.gpu.computeCapability.empty() && computeCapability(s.gpu) < 7.5) {
        return rejection("incompatible_options", "/engine",
            "tensorrt-llm needs Turing (CUDA capability 7.5) or newer, and supports Ampere and newer; " + s.gpu.name +
                " has " + s.gpu.computeCapability);
    }
    // vLLM's GPU requirements (docs.vllm.ai, getting_started/installation/gpu,
    // NVIDIA CUDA): "compute capability 7.0 or higher (e.g., V100, T4,
    // RTX20xx, A100, L4, H100, etc.)": its wheels carry no Pascal kernels.
    if (e == Engine::Vllm && belowVolta(s.gpu)) {
        return rejection("incompatible_options", "/engine",
            "vllm needs CUDA capability 7.0 or newer (Volta and later); " + s.gpu.name + " has " +
                s.gpu.computeCapability + ": use llama.cpp");
    }
    // llama.cpp loads GGUF files only (ggml-org/llama.cpp README: "requires
    // the model to be stored in the GGUF file format"): its quant types, F32,
    // F16, BF16 and MXFP4 (ggml's MXFP4 type, added for gpt-oss). Ollama runs
    // llama.cpp's GGUF models; on Apple its MLX runner also serves NVFP4
    // library tags (measured rows: llmfit, Ollama ":nvfp4" tags on an M5 Max).
    if ((e == Engine::LlamaCpp || e == Engine::Ollama) && !ggufLoads(s.weights) &&
        !(e == Engine::Ollama && std::string_view(s.gpu.vendor) == "apple" && s.weights == WeightFormat::Nvfp4)) {
        return rejection("incompatible_options", "/weights",
            std::string(toString(e)) + " loads GGUF files (Q8_0 ... Q2_K, F16, BF16, F32, MXFP4), not " +
                toString(s.weights) + " weights");
    }
    // MLX runs on Apple silicon's Metal GPU only (ml-explore/mlx README).
    if (e == Engine::Mlx && std::string_view(s.gpu.vendor) != "apple") {
        return rejection("incompatible_options", "/engine", "mlx runs on Apple silicon only; " + s.gpu.name + " is not an Apple GPU");
    }
    // Unsloth's kernels are Triton kernels for NVIDIA GPUs, CUDA capability
    // 7.0 and up (Unsloth README, "Key Features").
    if (e == Engine::Unsloth && std::string_view(s.gpu.vendor) == "nvidia" && !s.gpu.computeCapability.empty() &&
        std::atof(s.gpu.computeCapability.c_str()) < 7.0) {
        return rejection("incompatible_options", "/engine",
            "unsloth needs CUDA capability 7.0 or newer; " + s.gpu.name + " has " + s.gpu.computeCapability);
    }
    const Strategy st = s.parallel.strategy;
    if (e == Engine::Unsloth && st != Strategy::Auto && st != Strategy::Single && st != Strategy::Ddp) {
        return rejection("incompatible_options", "/parallel/strategy",
            std::string("unsloth runs multi-GPU as DDP replicas, not ") + toString(st));
    }
    if (e == Engine::Torchtune && st != Strategy::Auto && st != Strategy::Single && st != Strategy::Fsdp) {
        return rejection("incompatible_options", "/parallel/strategy",
            std::string("torchtune's distributed recipes shard with FSDP2, not ") + toString(st));
    }
    if (s.checkpointOffload && e != Engine::Unsloth && e != Engine::Torchtune) {
        return rejection("incompatible_options", "/gradient_checkpointing",
            "gradient_checkpointing \"offload\" is Unsloth's and torchtune's (activation offloading), not " + std::string(toString(e)) + "'s");
    }
    return std::nullopt;
}

}  // namespace

namespace {

bool isFourBit(WeightFormat f) {
    return f == WeightFormat::Nf4 || f == WeightFormat::Nf4Dq || f == WeightFormat::GptqInt4 ||
           f == WeightFormat::AwqInt4;
}

// vLLM's own builds: ROCm on MI200s (gfx90a), MI300 (gfx942), MI350
// (gfx950), Radeon RX 7900 (gfx1100/1101), RX 9000 (gfx1200/1201) and Ryzen
// AI MAX (gfx1151) (docs.vllm.ai, installation/gpu, "AMD ROCm"
// requirements), and Apple silicon through vLLM-Metal (installation README).
bool vllmSupports(const Scenario& s) {
    if (s.engine != Engine::Vllm) return false;
    if (std::string_view(s.gpu.vendor) == "apple") return true;
    if (std::string_view(s.gpu.vendor) != "amd") return false;
    const std::string& arch = s.gpu.architecture;
    for (const char* family : {"CDNA 2", "CDNA 3", "CDNA 4", "RDNA 3", "RDNA 4"}) {
        if (arch.rfind(family, 0) == 0) return true;
    }
    return false;
}

void add(std::vector<Warning>& out, const char* code, std::string message) {
    out.push_back(Warning{code, std::move(message)});
}

}  // namespace

std::optional<Error> scenarioError(const Scenario& s) {
    const bool training = s.task != Task::Inference;
    if (training && isGgufFormat(s.weights)) {
        return rejection("incompatible_options", "/weights",
            std::string("GGUF format ") + toString(s.weights) + " is for llama.cpp inference, not training");
    }
    if (s.method == Method::Qlora && training && !isFourBit(s.weights)) {
        return rejection("incompatible_options", "/weights",
            std::string("QLoRA trains adapters over 4-bit base weights (nf4); got ") + toString(s.weights));
    }
    if (std::optional<Error> e = engineError(s)) return e;
    if (isGgufFormat(s.weights) && s.engine != Engine::LlamaCpp && s.engine != Engine::Ollama && s.engine != Engine::Vllm) {
        return rejection("incompatible_options", "/weights",
            std::string("GGUF format ") + toString(s.weights) + " needs llama.cpp, Ollama (or vLLM's GGUF loader)");
    }
    // FP8 matmuls need Ada/Hopper (cc 8.9+). vLLM and SGLang run FP8 weights on
    // Ampere as weight-only (Marlin, cc >= 8.0); anything older cannot. (The
    // capability is read only for FP8 weights on a GPU without FP8.)
    const bool fp8 = s.weights == WeightFormat::Fp8 || s.weights == WeightFormat::Fp8Block;
    const auto fp8WeightOnly = [&] {
        return (s.engine == Engine::Vllm || s.engine == Engine::Sglang) && !training && computeCapability(s.gpu) >= 8.0;
    };
    if (fp8 && !s.gpu.supportsFp8 && !fp8WeightOnly()) {
        return rejection("unsupported_format", "/weights", s.gpu.name + " has no FP8 support");
    }
    if (s.parallel.tp > 0 && s.model.heads > 0 && s.parallel.tp > s.model.heads) {
        return rejection("invalid_parallel", "/parallel/tp",
            "tensor parallel degree " + std::to_string(s.parallel.tp) + " exceeds the model's " +
                std::to_string(s.model.heads) + " attention heads");
    }
    if (s.parallel.tp > 0 && s.model.heads > 0 && s.model.heads % s.parallel.tp != 0) {
        return rejection("invalid_parallel", "/parallel/tp",
            "tensor parallel degree " + std::to_string(s.parallel.tp) + " must divide the " +
                std::to_string(s.model.heads) + " attention heads");
    }
    // MTP drafts with the model's own multi-token-prediction layers
    // (vLLM --speculative-config method "mtp", SGLang NEXTN): a model that
    // ships none has nothing to draft with.
    if (s.task == Task::Inference && s.serving.speculative && s.serving.speculative->method == "mtp" &&
        s.model.mtpLayers <= 0 && !s.model.id.empty()) {
        return rejection("incompatible_options", "/serving/speculative/method",
            s.model.id + " has no multi-token-prediction layers to draft with: speculative method \"mtp\" needs them "
                         "(use \"eagle\" or \"draft\")");
    }
    const bool cpuOffload = s.parallel.offload == Offload::Layers || s.parallel.offload == Offload::MoeExperts;
    if (cpuOffload && (runtimeOf(s.engine) != Engine::LlamaCpp || s.engine == Engine::Mlx || training)) {
        return rejection("incompatible_options", "/parallel/offload",
            std::string("offload \"") + toString(s.parallel.offload) + "\" is llama.cpp's (-ngl / --n-cpu-moe) for inference");
    }
    const int stack = s.model.layers + std::max(0, s.model.encoderLayers);
    if (s.parallel.gpuLayers >= 0 && s.parallel.offload != Offload::Layers) {
        return rejection("incompatible_options", "/parallel/gpu_layers", "gpu_layers goes with parallel.offload \"layers\"");
    }
    if (s.parallel.gpuLayers > stack) {
        return rejection("invalid_value", "/parallel/gpu_layers",
            "gpu_layers " + std::to_string(s.parallel.gpuLayers) + " exceeds the model's " + std::to_string(stack) + " layers");
    }
    const int moeLayers = s.model.moe.experts > 0 ? std::max(0, (s.model.layers - std::max(0, s.model.moe.denseLayers)) /
                                                                    std::max(1, s.model.moe.layerInterval))
                                                  : 0;
    if ((s.parallel.cpuMoeLayers >= 0 || s.parallel.offload == Offload::MoeExperts) && moeLayers == 0) {
        return rejection("incompatible_options", s.parallel.cpuMoeLayers >= 0 ? "/parallel/cpu_moe_layers" : "/parallel/offload",
            s.model.id + " is a dense model: it has no experts to keep on the CPU");
    }
    if (s.parallel.cpuMoeLayers >= 0 && s.parallel.offload != Offload::MoeExperts) {
        return rejection("incompatible_options", "/parallel/cpu_moe_layers", "cpu_moe_layers goes with parallel.offload \"moe-experts\"");
    }
    if (s.parallel.cpuMoeLayers > moeLayers) {
        return rejection("invalid_value", "/parallel/cpu_moe_layers",
            "cpu_moe_layers " + std::to_string(s.parallel.cpuMoeLayers) + " exceeds the model's " + std::to_string(moeLayers) +
                " MoE layers");
    }
    const int tp = s.parallel.tp > 0 ? s.parallel.tp : 1;
    const int pp = s.parallel.pp > 0 ? s.parallel.pp : 1;
    const int cp = s.parallel.cp > 0 ? s.parallel.cp : 1;
    if (s.parallel.cp > 1 && !training) {
        return rejection("incompatible_options", "/parallel/cp", "context parallelism splits training sequences; serving uses tp, pp and dp");
    }
    if (!s.parallel.reshardAfterForward && (!training || s.parallel.strategy != Strategy::Fsdp)) {
        return rejection("incompatible_options", "/parallel/reshard_after_forward",
                         "reshard_after_forward applies to FSDP training (parallel.strategy \"fsdp\")");
    }
    if (s.parallel.vp > 1 && pp <= 1) {
        return rejection("incompatible_options", "/parallel/vp", "virtual pipeline stages need a pipeline (parallel.pp > 1)");
    }
    if (!s.gpuCountAuto && tp * pp * cp > s.gpuCount) {
        return rejection("invalid_parallel", "/parallel",
            "tp x pp x cp = " + std::to_string(tp * pp * cp) + " needs more than the " + std::to_string(s.gpuCount) +
                " GPUs requested");
    }
    // Serving replicas (plan/replicas.hpp): dp copies of one tp x pp group,
    // which together use the whole stated count.
    if (!training && !s.gpuCountAuto && s.parallel.dp > 0) {
        const int dp = s.parallel.dp;
        const bool bothStated = s.parallel.tp > 0 && s.parallel.pp > 0;
        if (s.gpuCount % dp != 0 || (bothStated ? tp * pp * dp != s.gpuCount : (s.gpuCount / dp) % (tp * pp) != 0)) {
            return rejection("invalid_parallel", "/parallel/dp",
                "dp " + std::to_string(dp) + " replicas x tp " + std::to_string(tp) + " x pp " +
                    (s.parallel.pp > 0 ? std::to_string(pp) : std::string("(any)")) + " must multiply to the " +
                    std::to_string(s.gpuCount) + " GPUs requested");
        }
    }
    if (s.parallel.ep > 1 && training) {
        if (s.model.moe.experts <= 0) {
            return rejection("incompatible_options", "/parallel/ep", s.model.id + " is a dense model: it has no experts to spread");
        }
        if (s.model.moe.experts % s.parallel.ep != 0) {
            return rejection("invalid_parallel", "/parallel/ep",
                "expert parallel degree " + std::to_string(s.parallel.ep) + " must divide the " +
                    std::to_string(s.model.moe.experts) + " experts");
        }
        // Megatron-Core folds expert parallelism into the tp x cp x dp ranks of a pipeline stage.
        if (!s.gpuCountAuto && (s.gpuCount / pp) % s.parallel.ep != 0) {
            return rejection("invalid_parallel", "/parallel/ep",
                "expert parallel degree " + std::to_string(s.parallel.ep) + " must divide the " +
                    std::to_string(s.gpuCount / pp) + " GPUs of a pipeline stage");
        }
    }
    if (s.parallel.pp > 0 && s.model.layers > 0 && s.parallel.pp > s.model.layers) {
        return rejection("invalid_parallel", "/parallel/pp", "more pipeline stages than the model's layers");
    }
    return std::nullopt;
}

void checkScenario(const Scenario& s) {
    if (std::optional<Error> e = scenarioError(s)) throw InputError(std::move(*e));
}

std::vector<Warning> compatibilityWarnings(const Scenario& s, const Plan& plan) {
    std::vector<Warning> out;
    const GpuSpec& gpu = s.gpu;
    const bool training = s.task != Task::Inference;
    const bool nvidia = std::string_view(gpu.vendor) == "nvidia";
    const double cc = computeCapability(gpu);
    const bool wants16 = s.weights == WeightFormat::Bf16 || training;
    if (nvidia && !gpu.supportsBf16 && wants16) {
        add(out, "no_bf16", gpu.name + " has no bf16: use fp16 (with loss scaling for training)");
    }
    if (nvidia && !gpu.flashAttention2 && s.flashAttention) {
        add(out, "no_flash_attention_2", "FlashAttention-2 needs Ampere or newer; " + gpu.name + " falls back to " +
                                             (cc >= 7.5 ? "FlashAttention-1 or SDPA" : "eager or memory-efficient SDPA"));
    }
    const bool fp8 = s.weights == WeightFormat::Fp8 || s.weights == WeightFormat::Fp8Block;
    if (fp8 && !gpu.supportsFp8) {
        add(out, "fp8_weight_only", "no FP8 tensor cores before Ada/Hopper: FP8 weights run weight-only (W8A16)");
    }
    const bool fp4 = s.weights == WeightFormat::Mxfp4 || s.weights == WeightFormat::Nvfp4;
    if (fp4 && !nativeFp4(gpu) && !training && runtimeOf(s.engine) != Engine::LlamaCpp) {
        // Marlin and "before Blackwell" are NVIDIA's; other GPUs (Apple's
        // Metal, AMD before CDNA 4) dequantize in their own kernels.
        const std::string lacks = nvidia ? std::string("no FP4 tensor cores before Blackwell: ")
                                         : gpu.name + " has no FP4 matrix units: ";
        const char* kernels = nvidia ? " (weight-only, Marlin-class kernels)" : " (weight-only)";
        add(out, "fp4_weight_only", lacks + toString(s.weights) + " weights are dequantized to 16-bit inside the matmul" +
                                        kernels + ": memory as " + toString(s.weights) +
                                        ", decode near the memory roofline, prefill at the 16-bit rate");
    }
    if (!nvidia && (s.engine == Engine::Vllm || s.engine == Engine::TensorrtLlm || s.engine == Engine::Sglang) &&
        !vllmSupports(s)) {
        add(out, "software_ecosystem", gpu.name + " is not a CUDA GPU: check that " + toString(s.engine) +
                                           " supports it (ROCm, CANN, Gaudi or Metal builds)");
    }
    if (std::string_view(gpu.vendor) == "apple" && training) {
        add(out, "software_ecosystem", "training on Apple GPUs runs through MLX or PyTorch MPS, without CUDA kernels");
    }
    if (plan.gpuCount > 1 && gpu.nvlinkGBps <= 0 && nvidia && training) {
        add(out, "no_nvlink", gpu.name + " has no NVLink: gradients and shards cross PCIe, which slows multi-GPU training");
    }
    if (plan.gpuCount > 1 && gpu.nvlinkGBps > 0 && gpu.nvlinkMaxGpus > 0 && plan.gpuCount > gpu.nvlinkMaxGpus &&
        plan.nodes == 1) {
        add(out, "partial_nvlink", "NVLink joins only " + std::to_string(gpu.nvlinkMaxGpus) + " of these GPUs; the rest talk over PCIe");
    }
    // NVIDIA's China-market boards cap NVLink (A800/H800: 400 GB/s against the
    // A100's and H100's 600/900). Other vendors' links (Huawei HCCS) run at
    // their own full rate: no export variant to warn about.
    if (plan.gpuCount > 1 && nvidia && gpu.market == "china" && gpu.nvlinkGBps > 0 && gpu.nvlinkGBps <= 400) {
        add(out, "limited_nvlink", gpu.name + " NVLink is limited to " + groupedNumber(gpu.nvlinkGBps, 0) +
                                       " GB/s (export variant)");
    }
    if (plan.nodes > 1) {
        add(out, "multi_node", "needs " + std::to_string(plan.nodes) + " nodes joined by InfiniBand or RoCE");
    }
    if (training && !gpu.ecc && plan.gpuCount * plan.nodes >= 8) {
        add(out, "no_ecc", gpu.name + " has no ECC memory: long multi-GPU runs risk silent errors");
    }
    // Ollama truncates a prompt longer than num_ctx (llm/server.go
    // "truncating input prompt"); the figures keep the request's tokens.
    if (!training && s.engine == Engine::Ollama && s.promptTokens + s.outputTokens > ollamaNumCtx(s)) {
        add(out, "ollama_context_truncated",
            "prompt + output (" + groupedNumber(static_cast<double>(s.promptTokens + s.outputTokens), 0) +
                " tokens) exceed Ollama's num_ctx of " + groupedNumber(static_cast<double>(ollamaNumCtx(s)), 0) + ": Ollama truncates the prompt; set num_ctx (max_model_len) or OLLAMA_CONTEXT_LENGTH");
    }
    if (std::optional<Warning> w = contextWarning(s)) out.push_back(std::move(*w));
    return out;
}

std::optional<Warning> contextWarning(const Scenario& s) {
    const std::int64_t context = s.task != Task::Inference ? s.seqLen : s.promptTokens + s.outputTokens;
    if (s.model.maxContext <= 0 || context <= s.model.maxContext) return std::nullopt;
    return Warning{"context_exceeds_model", "context of " + groupedNumber(static_cast<double>(context), 0) +
                                                " tokens exceeds the model's " +
                                                groupedNumber(static_cast<double>(s.model.maxContext), 0)};
}

}  // namespace caliper
