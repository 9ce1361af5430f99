#pragma once
// Storage cost of weight and KV-cache formats.
#include "caliper/scenario.hpp"

namespace caliper {

struct WeightFormatInfo {
    double linearBits = 16;     // effective bits per weight of the block linear layers
    double embeddingBits = 16;  // bits per weight of token embeddings / lm_head as really stored
    bool gguf = false;
    bool fourBit = false;  // a 4-bit (or lower) weight-only format with dequantization cost
    bool floatFormat = true;  // fp32/bf16/fp16/fp8 (compute can run in it)
};

WeightFormatInfo weightFormatInfo(WeightFormat format);
double kvBytesPerElement(KvFormat format);

}  // namespace caliper
