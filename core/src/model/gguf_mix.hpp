#pragma once
// Bits per weight of each tensor group in a llama.cpp GGUF file of a given
// type, following llama.cpp's per-tensor quantization rules (llama-quant.cpp,
// llama_tensor_get_type_impl): k-quant "mixes" give attn_v, ffn_down and
// attn_output more bits in some layers, and the output matrix is Q6_K.
#include "caliper/model.hpp"
#include "caliper/scenario.hpp"
#include "memory/sizing.hpp"

namespace caliper::sizing {

struct GgufBits {
    double q = 16, k = 16, v = 16, o = 16, gate = 16, up = 16, down = 16, other = 16;
    double tokenEmbd = 16;  // token_embd.weight
    double output = 16;     // output.weight (and a tied table, which takes the output's type)
};

GgufBits ggufBits(WeightFormat format, const ModelSpec& model, const ModelShape& shape);

}  // namespace caliper::sizing
