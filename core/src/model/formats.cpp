// Bits per stored weight and bytes per KV-cache element of every format the
// engine knows. Figures for block formats include their scales; GGUF mixes
// are the effective averages of llama.cpp's quantization rules (per-tensor
// detail: gguf_mix.cpp).
#include "caliper/model/formats.hpp"

#include "model/ggml_types.hpp"

namespace caliper {

namespace {

// bitsandbytes NF4: 4-bit codes plus one fp32 absmax per 64 weights
// (quantize_4bit default blocksize=64): 4 + 32/64.
constexpr double kNf4Bits = 4.5;
// NF4 with double quantization: absmax stored as 8-bit per 64 weights plus an
// fp32 second-level scale per 256 blocks: 4 + 8/64 + 32/(64*256) (QLoRA §3).
constexpr double kNf4DqBits = 4.127;
// GPTQ/AWQ 4-bit, group 128: packed 4-bit weights + one fp16 scale and one
// packed 4-bit zero point per group: 4 + 16/128 + 4/128 (AutoGPTQ/AutoAWQ
// qweight/scales/qzeros layout).
constexpr double kInt4G128Bits = 4.15625;
// OCP MXFP4: 32 FP4 (E2M1) values share one 8-bit E8M0 scale: 4 + 8/32.
constexpr double kMxfp4Bits = 4.25;
// NVFP4: 16 FP4 (E2M1) values share one FP8 (UE4M3) scale, plus one FP32
// scale per tensor (negligible): 4 + 8/16 (NVIDIA "Introducing NVFP4";
// Intel Neural Compressor NVFP4 table: block 16, UE4M3 scale, FP32 global).
constexpr double kNvfp4Bits = 4.5;
// DeepSeek-style block FP8: one byte per weight plus one FP32 scale per
// 128 x 128 block (config.json quantization_config weight_block_size
// [128, 128], weight_scale_inv float32): 8 + 32/16384.
constexpr double kFp8BlockBits = 8.0 + 32.0 / (128 * 128);
// W8A8 INT8 (compressed-tensors / SmoothQuant as served by vLLM): int8
// weights with one FP32 scale per output channel, i.e. 32 bits per row of
// in_features weights; at in_features 4,096 that is 32/4096 bits per weight.
constexpr double kInt8W8a8Bits = 8.0 + 32.0 / 4096;

// Effective bits of the block linear layers for llama.cpp's mixed K-quant
// files, from the llama-quant.cpp rules applied to a Llama-3-8B block
// (GQA 4, ffn 3.5 x hidden; attn_v and ffn_down get more bits in part of the
// layers). Memory figures use the per-tensor rules for the actual model
// (gguf_mix.cpp); these averages serve the speed model.
constexpr double kQ5_K_MLinearBits = 5.653;
constexpr double kQ4_K_MLinearBits = 4.798;
constexpr double kQ4_K_SLinearBits = 4.536;
constexpr double kQ3_K_LLinearBits = 4.191;
constexpr double kQ3_K_MLinearBits = 3.844;
constexpr double kQ2_KLinearBits = 2.942;
WeightFormatInfo floatFormat(double bits, double embeddingBits) {
    WeightFormatInfo info;
    info.linearBits = bits;
    info.embeddingBits = embeddingBits;
    return info;
}

// Weight-only integer formats (bitsandbytes, GPTQ, AWQ, MXFP4): quantizers
// leave token embeddings and lm_head in 16-bit.
WeightFormatInfo weightOnly(double bits, bool fourBit) {
    WeightFormatInfo info;
    info.linearBits = bits;
    info.embeddingBits = 16;
    info.fourBit = fourBit;
    info.floatFormat = false;
    return info;
}

// GGUF: token_embd keeps the file's base type (the output matrix is Q6_K,
// see gguf_mix.cpp).
WeightFormatInfo gguf(double linearBits, double baseBits) {
    WeightFormatInfo info;
    info.linearBits = linearBits;
    info.embeddingBits = baseBits;
    info.gguf = true;
    info.fourBit = linearBits < 6;
    info.floatFormat = false;
    return info;
}

}  // namespace

WeightFormatInfo weightFormatInfo(WeightFormat format) {
    switch (format) {
        case WeightFormat::Fp32: return floatFormat(32, 32);
        case WeightFormat::Bf16:
        case WeightFormat::Fp16: return floatFormat(16, 16);
        case WeightFormat::Fp8: return floatFormat(8, 16);  // FP8 checkpoints keep embeddings in bf16
        case WeightFormat::Int8: return weightOnly(8, false);  // LLM.int8 / W8A8: per-row scales are negligible
        case WeightFormat::Nf4: return weightOnly(kNf4Bits, true);
        case WeightFormat::Nf4Dq: return weightOnly(kNf4DqBits, true);
        case WeightFormat::GptqInt4:
        case WeightFormat::AwqInt4: return weightOnly(kInt4G128Bits, true);
        case WeightFormat::Mxfp4: return weightOnly(kMxfp4Bits, true);  // expert weights only (gpt-oss)
        // ModelOpt NVFP4 checkpoints quantize the block linear layers and keep
        // embeddings and lm_head in 16-bit (nvidia/*-FP4 model cards).
        case WeightFormat::Nvfp4: return weightOnly(kNvfp4Bits, true);
        // compressed-tensors W4A16, group 128, with scales and zero points as
        // GPTQ/AWQ store them (served by Marlin kernels).
        case WeightFormat::Int4W4a16: return weightOnly(kInt4G128Bits, true);
        case WeightFormat::Int8W8a8: return weightOnly(kInt8W8a8Bits, false);
        case WeightFormat::Fp8Block: return floatFormat(kFp8BlockBits, 16);  // DeepSeek-V3 keeps embed/lm_head in bf16
        case WeightFormat::Q8_0: return gguf(kGgmlQ8_0Bits, kGgmlQ8_0Bits);
        case WeightFormat::Q6_K: return gguf(kGgmlQ6_KBits, kGgmlQ6_KBits);
        case WeightFormat::Q5_K_M: return gguf(kQ5_K_MLinearBits, kGgmlQ5_KBits);
        case WeightFormat::Q5_K_S: return gguf(kGgmlQ5_KBits, kGgmlQ5_KBits);
        case WeightFormat::Q5_0: return gguf(kGgmlQ5_0Bits, kGgmlQ5_0Bits);
        case WeightFormat::Q4_K_M: return gguf(kQ4_K_MLinearBits, kGgmlQ4_KBits);
        case WeightFormat::Q4_K_S: return gguf(kQ4_K_SLinearBits, kGgmlQ4_KBits);
        case WeightFormat::Q4_0: return gguf(kGgmlQ4_0Bits, kGgmlQ4_0Bits);
        case WeightFormat::Q4_1: return gguf(kGgmlQ4_1Bits, kGgmlQ4_1Bits);
        case WeightFormat::Q3_K_L: return gguf(kQ3_K_LLinearBits, kGgmlQ3_KBits);
        case WeightFormat::Q3_K_M: return gguf(kQ3_K_MLinearBits, kGgmlQ3_KBits);
        case WeightFormat::Q3_K_S: return gguf(kGgmlQ3_KBits, kGgmlQ3_KBits);
        case WeightFormat::Q2_K: return gguf(kQ2_KLinearBits, kGgmlQ2_KBits);
    }
    return floatFormat(16, 16);
}

double kvBytesPerElement(KvFormat format) {
    switch (format) {
        case KvFormat::Fp32: return 4;
        case KvFormat::Bf16:
        case KvFormat::Fp16: return 2;
        case KvFormat::Fp8: return 1;  // vLLM kv_cache_dtype=fp8 (per-tensor scale)
        case KvFormat::Q8_0: return kGgmlQ8_0Bits / 8;  // llama.cpp --cache-type-k q8_0: 34 bytes / 32
        case KvFormat::Q4_0: return kGgmlQ4_0Bits / 8;  // 18 bytes / 32
    }
    return 2;
}

}  // namespace caliper
