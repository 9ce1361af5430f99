#include "caliper/scenario.hpp"

#include <cctype>
#include <cstdlib>
#include <string>

#include "caliper/names.hpp"
#include "flash_attention_default.hpp"
#include "speed/efficiency.hpp"  // computeCapability (read without strtod), belowVolta

namespace caliper {

namespace {

bool fp8Format(WeightFormat f) { return f == WeightFormat::Fp8 || f == WeightFormat::Fp8Block; }
bool fp4Format(WeightFormat f) { return f == WeightFormat::Mxfp4 || f == WeightFormat::Nvfp4; }

// Engines with Marlin-class weight-only kernels: vLLM and SGLang run FP8,
// MXFP4, NVFP4 and INT4 weights on any NVIDIA GPU from Ampere (cc 8.0) on,
// dequantizing to 16-bit inside the GEMM (vLLM docs "FP8 W8A8": "Ampere GPUs
// are supported for W8A16 (weight-only FP8) utilizing Marlin kernels";
// vLLM marlin_utils_fp8.py is_fp8_marlin_supported: capability >= 80).
bool marlinWeightOnly(const Scenario& s) {
    const bool engine = s.engine == Engine::Vllm || s.engine == Engine::Sglang;
    return engine && s.gpu.vendor == "nvidia" && computeCapability(s.gpu) >= 8.0;
}

// Architectures for which Ollama turns flash attention on by itself:
// gpt-oss (ollama/ollama#11996 "gptoss: enable flash attention by default"),
// gemma3 (#12639), qwen3 and qwen3moe (#12482), qwen3vl (#12862). Matched
// on the catalog's family or a config.json's model_type, lower-cased with
// spaces, '-' and '_' dropped ("Qwen3 MoE", "qwen3_moe" -> "qwen3moe").
bool ollamaFlashAttentionByDefault(const std::string& family) {
    std::string key;
    for (char c : family) {
        if (c == ' ' || c == '-' || c == '_') continue;
        key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    for (const char* on : {"gptoss", "gemma3", "gemma3text", "qwen3", "qwen3moe", "qwen32507", "qwen3coder", "qwen3vl",
                           "qwen3vlmoe"}) {
        if (key == on) return true;
    }
    return false;
}

}  // namespace

bool nativeFp4(const GpuSpec& gpu) {
    // FP4 tensor cores: NVIDIA Blackwell (cc 10.x data center, 12.x RTX);
    // AMD CDNA 4 (MI355X) runs MXFP4 matrix instructions.
    if (gpu.vendor == "nvidia") return computeCapability(gpu) >= 10.0;
    return gpu.vendor == "amd" && gpu.architecture.find("CDNA 4") != std::string::npos;
}

LossKernel lossKernelOf(const Scenario& s) {
    if (s.lossKernel) return *s.lossKernel;
    switch (s.engine) {
        case Engine::Megatron: return LossKernel::VocabParallel;
        // Unsloth patches the causal-LM loss with its Triton kernel
        // (unsloth/kernels/cross_entropy_loss.py Fast_CrossEntropyLoss,
        // patch_loss_functions): 16-bit logits in, logsumexp per row.
        case Engine::Unsloth: return LossKernel::Fused;
        // torchtune's recipes use CEWithChunkedOutputLoss (recipes/configs/
        // llama3_1/8B_lora_single_device.yaml `loss:`; 8 output chunks).
        case Engine::Torchtune: return LossKernel::Chunked;
        default: return LossKernel::Eager;
    }
}

bool fp32Adapters(const Scenario& s) {
    if (s.method != Method::Lora && s.method != Method::Qlora) return false;
    // An fp32 base trains its adapters in fp32 already: no cast, no copy.
    if (s.weights == WeightFormat::Fp32) return false;
    switch (s.lora.adapterDtype) {
        case AdapterDtype::Fp32: return true;
        case AdapterDtype::Model: return false;
        default: return s.engine == Engine::Transformers || s.engine == Engine::Deepspeed || s.engine == Engine::Fsdp;
    }
}

ExpertAdapters expertAdaptersOf(const Scenario& s) {
    if (s.method != Method::Lora || !s.lora.allLinear() || s.model.moe.experts <= 0) return ExpertAdapters::Modules;
    if (s.lora.experts != ExpertAdapters::Auto) return s.lora.experts;
    if (s.engine != Engine::Transformers && s.engine != Engine::Deepspeed && s.engine != Engine::Fsdp) {
        return ExpertAdapters::Modules;
    }
    return s.model.moe.peftFrozenExperts ? ExpertAdapters::Frozen : ExpertAdapters::Fused;
}

bool fusedExpertAdapters(const Scenario& s) { return expertAdaptersOf(s) == ExpertAdapters::Fused; }

bool fp32GradientsOf(const Scenario& s) {
    if (s.fp32Gradients) return *s.fp32Gradients;
    return s.engine == Engine::Megatron;
}

bool runsWeightOnly(const Scenario& s) {
    if (fp8Format(s.weights)) return !s.gpu.supportsFp8;
    if (fp4Format(s.weights)) return !nativeFp4(s.gpu);
    return false;
}

WeightsChoice defaultWeights(const Scenario& s) {
    const WeightFormat base = s.gpu.supportsBf16 ? WeightFormat::Bf16 : WeightFormat::Fp16;
    if (s.method == Method::Qlora && s.task != Task::Inference) return {WeightFormat::Nf4Dq, "weights_qlora_nf4"};
    if (s.engine == Engine::Ollama && s.task == Task::Inference) {
        // Ollama's library tags default to Q4_K_M, the quantization its docs
        // show (docs/import.md: `ollama create --quantize q4_K_M`, one of
        // q4_K_S / q4_K_M / q8_0 it makes); gpt-oss ships its native MXFP4.
        if (s.model.nativeWeights == WeightFormat::Mxfp4) return {WeightFormat::Mxfp4, "weights_native"};
        return {WeightFormat::Q4_K_M, "weights_ollama_library"};
    }
    if (!s.model.nativeWeights) return {base, "weights_native_16bit"};
    const WeightFormat native = *s.model.nativeWeights;
    // Fine-tuning and pre-training load quantized checkpoints dequantized to
    // 16-bit (OpenAI cookbook "Fine-tuning gpt-oss": Mxfp4Config(dequantize=True);
    // DeepSeek-V3 inference/fp8_cast_bf16.py for training frameworks).
    if (s.task != Task::Inference) return {base, "weights_training_16bit"};
    if (s.engine == Engine::Mlx) {
        // mlx-lm loads safetensors: 16-bit, MLX's own affine quantization made
        // by mlx_lm.convert, and the quantized checkpoints its load_model maps
        // onto MLX modes (mlx_lm/utils.py): AWQ/GPTQ int4 to affine, and
        // quant_method "mxfp4" (gpt-oss) to {"group_size": 32, "bits": 4,
        // "mode": "mxfp4"}, MLX's MXFP4 mode (ml-explore/mlx #2499, in MLX
        // 0.29; gpt_oss.py sanitize keeps the experts' _blocks/_scales as
        // they ship): 4.25 bits per expert weight, the rest bf16. FP8 and
        // NVFP4 (ModelOpt) checkpoints load dequantized.
        if (fp8Format(native) || native == WeightFormat::Nvfp4) return {base, "weights_native_unsupported"};
        return {native, "weights_native"};
    }
    if (s.engine == Engine::LlamaCpp) {
        // GGUF carries MXFP4 as its own type (ggml MXFP4, added for gpt-oss);
        // FP8 checkpoints convert to Q8_0, the GGUF type of the same size.
        if (native == WeightFormat::Mxfp4) return {native, "weights_native"};
        if (fp8Format(native)) return {WeightFormat::Q8_0, "weights_native_as_gguf"};
        return {base, "weights_native_unsupported"};
    }
    const bool weightOnly = fp8Format(native) ? !s.gpu.supportsFp8 : fp4Format(native) ? !nativeFp4(s.gpu) : false;
    if (!weightOnly) return {native, "weights_native"};
    if (marlinWeightOnly(s) || (native == WeightFormat::Mxfp4 && s.gpu.vendor == "nvidia" &&
                                computeCapability(s.gpu) >= 8.0)) {
        return {native, "weights_native_weight_only"};
    }
    // vLLM's gpt-oss recipe runs the MXFP4 checkpoint on MI300X, MI325X
    // (CDNA 3) and the Radeon AI PRO R9700 (RDNA 4) as well (vllm-project/
    // recipes OpenAI/GPT-OSS.md), weight-only: dequantized in the GEMM.
    const bool amdMxfp4 = s.gpu.vendor == "amd" && (s.gpu.architecture.find("CDNA 3") != std::string::npos ||
                                                    s.gpu.architecture.find("RDNA 4") != std::string::npos);
    if (native == WeightFormat::Mxfp4 && amdMxfp4 &&
        (runtimeOf(s.engine) == Engine::Vllm || runtimeOf(s.engine) == Engine::Sglang)) {
        return {native, "weights_native_weight_only"};
    }
    return {base, "weights_native_unsupported"};
}

std::optional<WeightFormat> weightFormatFromName(std::string_view name) {
    if (const auto format = valueNamed<WeightFormat>(name)) return format;
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto same = [&lower](const char* text) {
        std::string t(text);
        for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return t == lower;
    };
    static constexpr std::pair<const char*, WeightFormat> kAliases[] = {
        {"f16", WeightFormat::Fp16},          {"f32", WeightFormat::Fp32},          {"nf4_dq", WeightFormat::Nf4Dq},
        {"gptq", WeightFormat::GptqInt4},     {"awq", WeightFormat::AwqInt4},       {"int4", WeightFormat::AwqInt4},
        {"w4a16", WeightFormat::Int4W4a16},   {"int4_w4a16", WeightFormat::Int4W4a16},
        {"w8a8", WeightFormat::Int8W8a8},     {"int8_w8a8", WeightFormat::Int8W8a8},
        {"fp8_block", WeightFormat::Fp8Block}};
    for (const auto& [alias, f] : kAliases) {
        if (same(alias)) return f;
    }
    return std::nullopt;
}

HostSpec hostDefaults(const GpuSpec& gpu) {
    HostSpec h;
    // x16 link per direction: 15.75 GB/s Gen3, 31.5 Gen4, 63 Gen5 (PCI-SIG).
    const double pcie = gpu.pcieGen >= 5 ? 63.0 : gpu.pcieGen == 4 ? 31.5 : gpu.pcieGen == 3 ? 15.75 : 0.0;
    if (gpu.vendor == "apple") {
        // Unified memory: the host RAM is the machine's, read at the SoC's bandwidth.
        h.ramGib = gpu.memoryGb;
        h.memoryBandwidthGBps = gpu.bandwidthGBps;
        h.basis = "unified memory: RAM and bandwidth are the SoC's";
        // No sourced sustained CPU vector rate per Apple SoC in the catalog.
        h.cpuBasis = "unknown for this SoC";
        return h;
    }
    h.pcieGBps = pcie > 0 ? pcie : 31.5;
    if (gpu.gpuClass == "datacenter") {
        // 8 channels of DDR5-4800 per socket x 8 B = 307.2 GB/s (Xeon
        // Sapphire Rapids); 2 TiB of RAM as in a DGX H100.
        // Both are for the server's 8 GPUs: a plan that states no RAM
        // rents 1/8 of each per GPU (hostShare).
        h.ramGib = 2048;
        h.memoryBandwidthGBps = 307.2;
        h.ramPerServer = true;
        h.basis = "server: 8-channel DDR5-4800 (307.2 GB/s), 2 TiB RAM (DGX H100) for 8 GPUs, rented by the GPU";
        // One socket, like the bandwidth: Xeon Platinum 8480+/8480C (DGX
        // H100), 56 cores x 2 AVX-512 FMA units (Intel ARK) x 16 FP32 lanes
        // x 2 FLOPs x 2.0 GHz base = 7.168 TFLOPS.
        h.cpuTflops = 7.168;
        h.cpuBasis = "one Xeon Platinum 8480+ socket: 56 cores x 2 AVX-512 FMA x 16 FP32 lanes x 2 x 2.0 GHz";
    } else {
        // Desktop: two channels of DDR5-5600 x 8 B = 89.6 GB/s, 64 GiB.
        h.ramGib = 64;
        h.memoryBandwidthGBps = 89.6;
        h.basis = "desktop: dual-channel DDR5-5600 (89.6 GB/s), 64 GiB RAM";
        // Ryzen 9 9950X (AMD: 16 cores, 4.3 GHz base, DDR5-5600 dual
        // channel); Zen 5 runs AVX-512 on a full 512-bit datapath with two
        // FMA pipes: 16 x 2 x 16 FP32 lanes x 2 FLOPs x 4.3 GHz = 4.403 TFLOPS.
        h.cpuTflops = 4.403;
        h.cpuBasis = "Ryzen 9 9950X: 16 cores x 2 AVX-512 FMA x 16 FP32 lanes x 2 x 4.3 GHz";
    }
    return h;
}

void adaptToGpu(Scenario& s) {
    const bool bf16 = s.gpu.supportsBf16;
    // Unified-memory machines (Apple, DGX Spark, Ryzen AI Max): llama.cpp
    // (Metal, CUDA, ROCm/Vulkan) by default, as those machines' owners run
    // them; vLLM and the other serving engines only where asked.
    const bool servingEngine = s.engine == Engine::Vllm || s.engine == Engine::Sglang || s.engine == Engine::TensorrtLlm;
    if (!s.engineExplicit && s.task == Task::Inference && unifiedMemory(s.gpu) && servingEngine) s.engine = Engine::LlamaCpp;
    // vLLM needs CUDA capability 7.0 (compat.cpp): a Pascal card (P40, P100,
    // GTX 10-series) serves with llama.cpp, as its owners run it.
    if (!s.engineExplicit && s.task == Task::Inference && s.engine == Engine::Vllm && belowVolta(s.gpu)) s.engine = Engine::LlamaCpp;
    if (!s.host.explicitAny) s.host = hostDefaults(s.gpu);
    if (s.interconnect.gpusPerNode > 0) s.gpu.gpusPerNode = s.interconnect.gpusPerNode;  // the user's servers
    if (!s.weightsExplicit) {
        const WeightsChoice choice = defaultWeights(s);
        s.weights = choice.format;
        s.weightsWhy = choice.why;
    }
    if (!s.kvCacheExplicit) s.kvCache = bf16 ? KvFormat::Bf16 : KvFormat::Fp16;
    adaptFlashAttention(s);
}

void adaptFlashAttention(Scenario& s) {
    if (s.flashAttentionExplicit) return;
    // FlashAttention-2 needs Ampere or newer on NVIDIA; other vendors ship
    // their own fused attention (ROCm CK, Metal), so it stays on there.
    s.flashAttention = s.gpu.flashAttention2 || s.gpu.vendor != "nvidia";
    // Ollama leaves flash attention off unless OLLAMA_FLASH_ATTENTION is set
    // (envconfig/config.go: FlashAttention = Bool("OLLAMA_FLASH_ATTENTION"),
    // false when unset), except for the architectures it enables it for.
    if (s.engine == Engine::Ollama) s.flashAttention = s.flashAttention && ollamaFlashAttentionByDefault(s.model.family);
}

}  // namespace caliper
