// The parts of a validation row's free text that describe the model and its
// numerics: architecture numbers, optimizer, KV-cache type, weight precision,
// serving pool fraction.
#include "validate/text.hpp"

#include "validate/text_patterns.hpp"

namespace caliper::io {


std::string readOptimizer(const std::string& t) {
    const bool eightBit = mentions(t, {"8-bit adam", "8bit adam", "adamw_8bit", "adamw-8bit", "adam8bit", "adamw8bit",
                                       "adamw 8-bit", "adam 8-bit", "bnb_8bit", "8-bit optimizer", "8bit optimizer"});
    const bool paged = mentions(t, {"paged_adamw_8bit", "paged adamw 8-bit", "paged-adamw-8bit"});
    if (paged || (eightBit && mentions(t, {"paged"}))) return "paged-adamw-8bit";
    if (eightBit) return "adamw-8bit";
    if (mentions(t, {"adafactor"})) return "adafactor";
    if (mentions(t, {"sgd"})) return "sgd";
    if (mentions(t, {"adam"})) return "adamw";
    return "";
}

std::optional<double> readPoolFraction(const std::string& t) {
    static const std::regex fraction(R"(gpu[_-]memory[_-]utilization\s*[=:]?\s*(0?\.\d+|1\.0*)\b)");
    std::smatch m;
    if (!std::regex_search(t, m, fraction)) return std::nullopt;
    return std::stod(m[1].str());
}

std::string readKvCache(const std::string& t) {
    static const Patterns kv = compile(
        {R"((?:kv[_ -]?cache(?: type| dtype)?|-ctk|cache-type-k|kv_cache_dtype))"
         R"(\s*[=:]?\s*(fp8|q8_0|q4_0|f16|fp16|bf16|fp32)\b)"});
    return lastHit(t, kv).capture;
}

// The first weight-precision word of the text, spelled as a row's `quant`
// field would be; the first, because setups name the weights before
// secondary precisions ("bf16 weights, fp32 master copy").
std::string readPrecision(const std::string& t) {
    static const Patterns words = compile({R"(\b(q[2-8]_(?:k_[sml]|k|[01])|iq[1-4]_[a-z]+)\b)",
                                           R"(\b(load_in_4bit|load_in_8bit|nf4|gptq|awq|mxfp4|fp8|int8|int4)\b)",
                                           R"(\b(bf16|bfloat16|fp16|float16|f16|fp32|float32)\b)"});
    Hit first;
    for (const std::regex& pattern : words) {
        std::smatch m;
        if (std::regex_search(t, m, pattern) && (first.position < 0 || m.position(0) < first.position)) {
            first.position = m.position(0);
            first.capture = m[1].str();
        }
    }
    if (first.capture == "load_in_4bit") return "nf4";
    if (first.capture == "load_in_8bit") return "int8";
    if (first.capture == "bfloat16") return "bf16";
    if (first.capture == "float16") return "fp16";
    if (first.capture == "float32") return "fp32";
    return first.capture;
}

ModelShapeText readShape(const std::string& t) {
    static const Patterns hidden = compile({R"(hidden(?:_size| size)?\s*[=:]?\s*(\d+))", R"(d_model\s*[=:]?\s*(\d+))"});
    static const Patterns layers = compile({R"((\d+)\s+(?:transformer\s+)?layers)", R"(\blayers\s*[=:]\s*(\d+))",
                                            R"(num_hidden_layers\s*[=:]?\s*(\d+))"});
    static const Patterns heads =
        compile({R"((\d+)\s+(?:attention\s+)?heads)", R"(num_attention_heads\s*[=:]?\s*(\d+))"});
    static const Patterns kvHeads =
        compile({R"((\d+)\s+(?:kv|key-value)\s+heads)", R"(num_key_value_heads\s*[=:]?\s*(\d+))"});
    static const Patterns vocab = compile({R"(vocab(?:ulary|_size)?(?: size)?\s*[=:]?\s*(\d+))"});
    static const Patterns ffn = compile({R"((?:ffn_hidden_size|ffn(?: size)?|intermediate_size)\s*[=:]?\s*(\d+))"});
    ModelShapeText m;
    m.hidden = lastInteger(t, hidden);
    m.layers = lastInteger(t, layers);
    m.heads = lastInteger(t, heads);
    m.kvHeads = lastInteger(t, kvHeads);
    m.vocab = lastInteger(t, vocab);
    m.intermediate = lastInteger(t, ffn);
    m.multiQuery = mentions(t, {"mqa", "multi-query"});
    return m;
}

}  // namespace caliper::io
