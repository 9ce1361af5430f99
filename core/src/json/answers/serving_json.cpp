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
// Replicas of one disaggregated deployment, and a prefill replica's degrees:
// within the 100,000 GPUs a gpu_count may name.
constexpr std::int64_t kMaxReplicas = 100000;
constexpr std::int64_t kMaxDegree = 100000;
// Requests per user of a benchmark run: serving benchmarks send 2-20
// (vLLM/SGLang benchmark_serving --num-prompts = concurrency x 8 or 10);
// beyond 10,000 the first round's share is below 0.01%.
constexpr std::int64_t kMaxRounds = 10000;

DisaggregatedServing readDisaggregated(const Json& value, const std::string& path) {
    if (!value.is_object()) failType("invalid_value", path, "an object", value);
    ObjectReader d(value, path);
    DisaggregatedServing out;
    out.prefillReplicas = int(d.optionalInteger("prefill_replicas", 1, kMaxReplicas).value_or(1));
    out.decodeReplicas = int(d.optionalInteger("decode_replicas", 1, kMaxReplicas).value_or(1));
    out.prefillMaxBatch = int(d.optionalInteger("prefill_max_batch", 1, kMaxReplicas).value_or(0));
    out.benchmarkRounds = int(d.optionalInteger("benchmark_rounds", 1, kMaxRounds).value_or(0));
    if (const Json* p = d.raw("prefill_parallel"); p && !p->is_null()) {
        if (!p->is_object()) failType("invalid_value", d.pathOf("prefill_parallel"), "an object", *p);
        ObjectReader pr(*p, d.pathOf("prefill_parallel"));
        out.prefillTp = int(pr.optionalInteger("tp", 1, kMaxDegree).value_or(0));
        out.prefillPp = int(pr.optionalInteger("pp", 1, kMaxDegree).value_or(0));
        out.prefillEp = int(pr.optionalInteger("ep", 1, kMaxDegree).value_or(0));
        out.prefillAttentionDp = int(pr.optionalInteger("attention_dp", 1, kMaxDegree).value_or(0));
        if (out.prefillTp > 0 && out.prefillAttentionDp > 0 && out.prefillTp % out.prefillAttentionDp != 0) {
            fail("invalid_parallel", pr.pathOf("attention_dp"),
                 "attention_dp must divide tp (the attention-DP ranks run the other layers tensor-parallel)");
        }
        pr.finish();
    }
    d.finish();
    return out;
}

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
    if (const Json* split = o.raw("disaggregated"); split && !split->is_null()) {
        if (s.task != Task::Inference) {
            fail("incompatible_options", o.pathOf("disaggregated"), "disaggregated serving is for task inference");
        }
        s.serving.disaggregated = readDisaggregated(*split, o.pathOf("disaggregated"));
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
