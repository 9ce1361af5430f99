#include "validate/benchmark_models.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace caliper::io {

namespace {

struct BenchmarkShape {
    const char* name;  // lowercase, as the rows write it
    int hidden, layers, heads, vocab, ffn;
};

// llm-foundry scripts/train/yamls/pretrain/mpt-<size>.yaml (commit
// 8c8dd48f, the commit the benchmark README rows cite): d_model, n_heads,
// n_layers, expansion_ratio 4 (a plain GeLU MLP of 4 d_model), vocab_size
// 50368, ALiBi positions, LayerNorm, multi-head attention, tied embeddings
// (MPT's output layer reuses the input table).
constexpr BenchmarkShape kMpt[] = {
    {"mpt-125m", 768, 12, 12, 50368, 3072},   {"mpt-350m", 1024, 24, 16, 50368, 4096},
    {"mpt-760m", 1536, 24, 12, 50368, 6144},  {"mpt-1b", 2048, 24, 16, 50368, 8192},
    {"mpt-3b", 2560, 32, 20, 50368, 10240},   {"mpt-7b", 4096, 32, 32, 50368, 16384},
    {"mpt-13b", 5120, 40, 40, 50368, 20480},  {"mpt-30b", 7168, 48, 56, 50368, 28672},
    {"mpt-70b", 8192, 80, 64, 50368, 32768},
};

// NeMo-Framework-Launcher launcher_scripts/conf/training/gpt3/{5b,20b,175b}.yaml:
// num_layers, hidden_size, num_attention_heads, ffn_hidden_size = 4 x hidden,
// the GPT-2 BPE vocabulary (50257) padded to a multiple of 128 (50304),
// learned positions, LayerNorm, untied output layer (Megatron's default).
constexpr BenchmarkShape kGpt3[] = {
    {"gpt3-5b", 4096, 24, 32, 50304, 16384},
    {"gpt3-20b", 6144, 44, 48, 50304, 24576},
    {"gpt3-175b", 12288, 96, 96, 50304, 49152},
};

std::string lowered(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

Json shapeObject(const BenchmarkShape& s) {
    return {{"hidden_size", s.hidden}, {"layers", s.layers},     {"heads", s.heads}, {"kv_heads", s.heads},
            {"vocab_size", s.vocab},   {"intermediate_size", s.ffn}, {"mlp", "plain"}, {"norm", "layernorm"}};
}

}  // namespace

std::optional<Json> benchmarkModel(std::string_view rowModelName) {
    const std::string name = lowered(rowModelName);
    for (const BenchmarkShape& s : kMpt) {
        if (name == s.name) {
            Json model = shapeObject(s);
            model["position"] = "alibi";
            model["tied_embeddings"] = true;
            return model;
        }
    }
    for (const BenchmarkShape& s : kGpt3) {
        if (name == s.name) {
            Json model = shapeObject(s);
            model["position"] = "learned";
            model["tied_embeddings"] = false;
            return model;
        }
    }
    return std::nullopt;
}

}  // namespace caliper::io
