// Engine defaults that follow the machine (Ollama's context); runtimeOf
// (caliper/scenario.hpp) names the engines that reuse another's runtime.
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

std::int64_t ollamaNumCtx(const Scenario& s) { return ollamaNumCtx(s, s.gpuCount); }

std::int64_t ollamaNumCtx(const Scenario& s, int gpuCount) {
    if (s.maxModelLen) return *s.maxModelLen;
    const double vramGiB = s.gpu.memoryGib * std::max(1, gpuCount);
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
