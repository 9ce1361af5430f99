// The request's serving keys (CONTRACT v2): max_model_len and the "serving"
// object (prefix-cache hit rate, speculative decoding, request rate, SGLang's
// mixed chunked prefill).
#include "json/request/request_limits.hpp"
#include "json/request/scenario_json.hpp"

namespace caliper::io {

namespace {

// A speculative step keeps at most the drafted tokens plus the verified one;
// MTP/EAGLE trees beyond 16 drafted tokens are not a deployed configuration
// (vLLM num_speculative_tokens examples use 1-8).
constexpr double kMaxAcceptedTokensPerStep = 16;
// Context limits beyond 16M tokens exceed every model in the catalog.
constexpr std::int64_t kMaxModelLen = std::int64_t(1) << 24;
// A step budget is at least one token and, like the context, below 16M.
constexpr std::int64_t kMaxBatchedTokens = std::int64_t(1) << 24;

}  // namespace

void readServing(Scenario& s, ObjectReader& r) {
    s.maxModelLen = r.optionalInteger("max_model_len", 1, kMaxModelLen);
    // A request longer than the engine's context limit is refused, not served:
    // vLLM's input processor raises "The decoder prompt (length ...) is longer
    // than the maximum model length" and its OpenAI server "This model's
    // maximum context length is ... tokens"; llama-server answers "the request
    // exceeds the available context size". Ollama truncates instead (a
    // warning, plan/compat.cpp).
    const Engine runtime = runtimeOf(s.engine);
    const bool limited = runtime == Engine::Vllm || runtime == Engine::Sglang || runtime == Engine::TensorrtLlm ||
                         (runtime == Engine::LlamaCpp && s.engine != Engine::Ollama);
    if (s.maxModelLen && s.task == Task::Inference && limited && s.promptTokens + s.outputTokens > *s.maxModelLen) {
        fail("incompatible_options", r.pathOf("max_model_len"),
             "max_model_len " + std::to_string(*s.maxModelLen) + " is shorter than prompt_tokens + output_tokens (" +
                 std::to_string(s.promptTokens + s.outputTokens) + "): " + toString(s.engine) +
                 " refuses such a request; raise max_model_len or shorten the request");
    }
    const Json* serving = r.raw("serving");
    if (!serving || serving->is_null()) return;
    if (!serving->is_object()) failType("invalid_value", r.pathOf("serving"), "an object", *serving);
    ObjectReader o(*serving, r.pathOf("serving"));
    s.serving.prefixCacheHitRate = o.numberOr("prefix_cache_hit_rate", 0.0, 0.0, 1.0);
    const RequestLimit rate = limitOf("request_rate_per_s");
    s.serving.requestRatePerS = o.optionalNumber("request_rate_per_s", rate.min, rate.max);
    s.serving.mixedChunk = o.boolOr("mixed_chunk", false);
    if (const auto tokens = o.optionalInteger("max_num_batched_tokens", 1, kMaxBatchedTokens)) {
        s.serving.maxNumBatchedTokens = double(*tokens);
    }
    if (const Json* spec = o.raw("speculative"); spec && !spec->is_null()) {
        if (!spec->is_object()) failType("invalid_value", o.pathOf("speculative"), "an object", *spec);
        ObjectReader sp(*spec, o.pathOf("speculative"));
        SpeculativeSpec speculative;
        speculative.method = sp.enumOr("method", "mtp", {"mtp", "eagle", "draft"});
        speculative.acceptedTokensPerStep = sp.requiredNumber("accepted_tokens_per_step", 1.0, kMaxAcceptedTokensPerStep);
        sp.finish();
        s.serving.speculative = speculative;
    }
    o.finish();
}

}  // namespace caliper::io
