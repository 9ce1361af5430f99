// llama.cpp's per-tensor type choice for GGUF files (src/llama-quant.cpp,
// llama_tensor_get_type_impl), reduced to the fraction of layers that get
// each type. Checked against the published file sizes of LLaMA-7B
// (llama.cpp PR #3084: Q4_0 3.56 GiB, Q4_K_M 3.80 GiB, Q6_K 5.15 GiB) and
// Llama-3-8B (tools/quantize: Q4_K_M 4.58 GiB, Q2_K 2.96 GiB).
#include "model/gguf_mix.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "model/ggml_types.hpp"

namespace caliper::sizing {

namespace {


// llama-quant.cpp use_more_bits(i, n): the first and last eighth of the
// layers and every third layer in between.
double moreBitsShare(int n) {
    int more = 0;
    for (int i = 0; i < n; ++i) {
        if (i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2) ++more;
    }
    return n > 0 ? double(more) / n : 0.0;
}

// Share of layers with index below `limit`.
double firstShare(int n, int limit) { return n > 0 ? double(std::min(std::max(limit, 0), n)) / n : 0.0; }

double mix(double share, double bitsA, double bitsB) { return share * bitsA + (1 - share) * bitsB; }

double baseBits(WeightFormat f) {
    switch (f) {
        case WeightFormat::Q8_0: return kGgmlQ8_0Bits;
        case WeightFormat::Q6_K: return kGgmlQ6_KBits;
        case WeightFormat::Q5_K_M:
        case WeightFormat::Q5_K_S: return kGgmlQ5_KBits;
        case WeightFormat::Q5_0: return kGgmlQ5_0Bits;
        case WeightFormat::Q4_K_M:
        case WeightFormat::Q4_K_S: return kGgmlQ4_KBits;
        case WeightFormat::Q4_0: return kGgmlQ4_0Bits;
        case WeightFormat::Q4_1: return kGgmlQ4_1Bits;
        case WeightFormat::Q3_K_L:
        case WeightFormat::Q3_K_M:
        case WeightFormat::Q3_K_S: return kGgmlQ3_KBits;
        case WeightFormat::Q2_K: return kGgmlQ2_KBits;
        default: return 16;
    }
}

// K-types need rows (the input dimension) in multiples of 256 weights;
// otherwise llama.cpp falls back to a 32-weight type (tensor_type_fallback).
double fallback(double bits, double rowLength) {
    const long row = static_cast<long>(rowLength);
    if (row % 256 == 0) return bits;
    if (bits == kGgmlQ2_KBits || bits == kGgmlQ3_KBits) return kGgmlQ4_0Bits;
    if (bits == kGgmlQ4_KBits) return kGgmlQ5_0Bits;
    if (bits == kGgmlQ5_KBits) return kGgmlQ5_1Bits;
    if (bits == kGgmlQ6_KBits) return kGgmlQ8_0Bits;
    return bits;
}

bool isFalcon(const ModelSpec& m) {
    std::string family = m.family + " " + m.id;
    std::transform(family.begin(), family.end(), family.begin(), [](unsigned char c) { return std::tolower(c); });
    return family.find("falcon") != std::string::npos;
}

// attn_v (and MLA's attn_kv_b): the ATTENTION_V branch, then the 70B and
// 8-expert bumps, which apply to the type each layer got. `stored` maps a
// layer's type to what its rows can hold (the fallback), before layers mix.
template <class Stored>
double attnVBits(WeightFormat f, const ModelShape& s, double base, Stored stored) {
    const int n = s.layers;
    const double gqa = double(s.heads) / s.kvHeads;
    const bool seventyB = s.layers == 80 && s.experts == 0;  // LLM_TYPE_70B (80-layer Llama-class)
    auto bump = [&](double bits) {
        if (seventyB && (bits == kGgmlQ3_KBits || bits == kGgmlQ4_KBits)) bits = kGgmlQ5_KBits;
        if (s.experts == 8) bits = kGgmlQ8_0Bits;  // Mixtral: attn_v in Q8_0
        return stored(bits);
    };
    switch (f) {
        case WeightFormat::Q2_K: return bump(gqa >= 4 ? kGgmlQ4_KBits : kGgmlQ3_KBits);
        case WeightFormat::Q3_K_M: return mix(firstShare(n, 2), bump(kGgmlQ5_KBits), bump(kGgmlQ4_KBits));
        case WeightFormat::Q3_K_L: return bump(kGgmlQ5_KBits);
        case WeightFormat::Q4_K_M:
        case WeightFormat::Q5_K_M: return mix(moreBitsShare(n), bump(kGgmlQ6_KBits), bump(base));
        case WeightFormat::Q4_K_S: return mix(firstShare(n, 4), bump(kGgmlQ5_KBits), bump(base));
        default: return bump(base);
    }
}

template <class Stored>
double ffnDownBits(WeightFormat f, const ModelSpec& m, const ModelShape& s, double base, Stored stored) {
    const int n = s.layers;
    const bool falcon = isFalcon(m);
    const double q3 = stored(kGgmlQ3_KBits), q4 = stored(kGgmlQ4_KBits), q5 = stored(kGgmlQ5_KBits);
    const double q6 = stored(kGgmlQ6_KBits), typed = stored(base);
    switch (f) {
        case WeightFormat::Q2_K: return q3;
        case WeightFormat::Q3_K_M: return mix(firstShare(n, n / 16), q5, falcon ? mix(moreBitsShare(n), q4, q3) : q4);
        case WeightFormat::Q3_K_L: return falcon ? q4 : q5;
        case WeightFormat::Q4_K_M: return falcon ? typed : mix(moreBitsShare(n), q6, typed);
        case WeightFormat::Q5_K_M: return mix(moreBitsShare(n), q6, typed);
        case WeightFormat::Q4_K_S: return falcon ? typed : mix(firstShare(n, n / 8), q5, typed);
        default: return typed;
    }
}

double attnOutputBits(WeightFormat f, const ModelSpec& m, const ModelShape& s, double base) {
    if (isFalcon(m)) return f == WeightFormat::Q3_K_L ? kGgmlQ4_KBits : base;
    if (s.experts == 8) {
        const bool low = f == WeightFormat::Q2_K || f == WeightFormat::Q3_K_S || f == WeightFormat::Q3_K_M ||
                         f == WeightFormat::Q4_K_S || f == WeightFormat::Q4_K_M;
        return low ? kGgmlQ5_KBits : base;
    }
    if (f == WeightFormat::Q2_K) return kGgmlQ3_KBits;
    if (f == WeightFormat::Q3_K_M) return kGgmlQ4_KBits;
    if (f == WeightFormat::Q3_K_L) return kGgmlQ5_KBits;
    return base;
}

}  // namespace

GgufBits ggufBits(WeightFormat f, const ModelSpec& m, const ModelShape& s) {
    GgufBits b;
    const double base = baseBits(f);
    if (base >= 16) return b;  // F16 / BF16 files
    const double h = s.hidden;
    // Q4_0/Q5_0 share their bits per weight with Q4_K/Q5_K, but they are
    // 32-weight block types that fit any row: only K-types fall back.
    const bool legacy = f == WeightFormat::Q4_0 || f == WeightFormat::Q4_1 || f == WeightFormat::Q5_0 ||
                        f == WeightFormat::Q8_0;
    auto fallback = [&](double bits, double rowLength) {
        return legacy && bits == base ? bits : sizing::fallback(bits, rowLength);
    };
    b.q = b.gate = b.up = b.other = fallback(base, h);
    b.k = fallback(s.experts == 8 ? kGgmlQ8_0Bits : base, h);
    b.v = attnVBits(f, s, base, [&](double bits) { return fallback(bits, h); });
    b.o = fallback(attnOutputBits(f, m, s, base), s.qDim);
    const double downRow = s.experts > 0 ? std::max(s.expertFfn, 1.0) : s.ffn;
    b.down = ffnDownBits(f, m, s, base, [&](double bits) { return fallback(bits, downRow); });
    if (isFalcon(m)) {  // fused attn_qkv: Q3_K_M/L -> Q4_K, Q4_K_M -> Q5_K, Q5_K_M -> Q6_K
        double qkv = base;
        if (f == WeightFormat::Q3_K_M || f == WeightFormat::Q3_K_L) qkv = kGgmlQ4_KBits;
        if (f == WeightFormat::Q4_K_M) qkv = kGgmlQ5_KBits;
        if (f == WeightFormat::Q5_K_M) qkv = kGgmlQ6_KBits;
        b.q = b.k = b.v = fallback(qkv, h);
    }
    // OUTPUT category: Q8_0 files keep Q8_0; Falcon and rows not divisible by
    // the block size get Q8_0; every other type stores Q6_K.
    const bool q8 = f == WeightFormat::Q8_0 || isFalcon(m);
    b.output = q8 ? kGgmlQ8_0Bits : fallback(kGgmlQ6_KBits, h);
    // A tied table takes the output's type; an untied token_embd keeps the base type.
    b.tokenEmbd = m.tiedEmbeddings ? b.output : fallback(base, h);
    return b;
}

}  // namespace caliper::sizing
