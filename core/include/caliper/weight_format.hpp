#pragma once
// Weight and KV-cache storage formats (docs/CONTRACT.md "weights", "kv_cache").
// A model entry names its checkpoint's format with the same type.
#include <optional>
#include <string_view>

namespace caliper {

// GGUF types come last: isGgufFormat() tests `format >= Q8_0`.
enum class WeightFormat {
    Fp32, Bf16, Fp16, Fp8, Int8, Nf4, Nf4Dq, GptqInt4, AwqInt4, Mxfp4,
    Nvfp4, Int4W4a16, Int8W8a8, Fp8Block,
    Q8_0, Q6_K, Q5_K_M, Q5_K_S, Q5_0, Q4_K_M, Q4_K_S, Q4_0, Q4_1, Q3_K_L, Q3_K_M, Q3_K_S, Q2_K
};
enum class KvFormat { Fp32, Bf16, Fp16, Fp8, Q8_0, Q4_0 };

// The JSON name (toString, from the name table in caliper/names.hpp) and its
// parse, case-insensitive, with the aliases the request accepts (f16, gptq,
// awq, w4a16, ...). Both the request reader and the catalog loader use it.
const char* toString(WeightFormat);
const char* toString(KvFormat);
std::optional<WeightFormat> weightFormatFromName(std::string_view name);

}  // namespace caliper
