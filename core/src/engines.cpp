// The engines that reuse another engine's runtime (CONTRACT `engine`).
#include <algorithm>

#include "caliper/scenario.hpp"

namespace caliper {

namespace {

// Ollama's default context by total VRAM (ollama docs/context-length.mdx):
// under 24 GiB 4k, 24-48 GiB 32k, 48 GiB and more 256k.
constexpr double kOllamaSmallVramGiB = 24;
constexpr double kOllamaLargeVramGiB = 48;
constexpr std::int64_t kOllamaSmallCtx = 4096;
constexpr std::int64_t kOllamaMediumCtx = 32768;
constexpr std::int64_t kOllamaLargeCtx = 262144;

}  // namespace

Engine runtimeOf(Engine engine) {
    switch (engine) {
        // Ollama's runner is llama.cpp (ggml) with Ollama's defaults.
        case Engine::Ollama: return Engine::LlamaCpp;
        // MLX: Apple's Metal array framework. Published MLX-vs-llama.cpp
        // comparisons disagree on the sign of the difference (famstack.dev
        // "MLX vs GGUF part 2": within single digits once dtypes match), so
        // MLX takes llama.cpp's Metal figures; mlx-lm's KV cache grows in
        // steps of 256 tokens (mlx_lm/models/cache.py KVCache.step), as
        // llama.cpp pads n_ctx to 256 cells.
        case Engine::Mlx: return Engine::LlamaCpp;
        // Unsloth patches Hugging Face transformers + PEFT models with Triton
        // kernels (unsloth/kernels); its own mechanisms are applied on top.
        case Engine::Unsloth: return Engine::Transformers;
        // torchtune's distributed recipes shard with FSDP2 (fully_shard).
        case Engine::Torchtune: return Engine::Fsdp;
        default: return engine;
    }
}

std::int64_t ollamaNumCtx(const Scenario& s) {
    if (s.maxModelLen) return *s.maxModelLen;
    const double vramGiB = s.gpu.memoryGib * std::max(1, s.gpuCount);
    std::int64_t ctx = vramGiB < kOllamaSmallVramGiB ? kOllamaSmallCtx
                       : vramGiB < kOllamaLargeVramGiB ? kOllamaMediumCtx
                                                       : kOllamaLargeCtx;
    // ollama llm/server.go clamps num_ctx to the GGUF's trained context
    // ("requested context size too large for model").
    if (s.model.maxContext > 0) ctx = std::min<std::int64_t>(ctx, s.model.maxContext);
    return ctx;
}

std::int64_t cacheContextTokens(const Scenario& s) {
    // ollama llm/server.go: KvSize = num_ctx x numParallel, whatever the prompt.
    if (s.engine == Engine::Ollama) return ollamaNumCtx(s);
    return s.promptTokens + s.outputTokens;
}

}  // namespace caliper
