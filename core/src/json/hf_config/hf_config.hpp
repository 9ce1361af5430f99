#pragma once
// A Hugging Face config.json, as published, -> ModelSpec with the same
// architecture (and so the same countParams) as the catalog entry of that
// model. Recognised by model_type / architectures.
#include <string>
#include <vector>

#include "caliper/model.hpp"
#include "caliper/result.hpp"
#include "json/json_read.hpp"

namespace caliper::io {

// True for an object with a string "model_type" or an "architectures" array.
bool looksLikeHfConfig(const Json& object);

// Known model types: llama, mistral, mixtral, qwen, qwen2, qwen2_moe, qwen3,
// qwen3_moe, gemma, gemma2, gemma3 (nested text_config), gemma3_text,
// deepseek_v2, deepseek_v3, kimi_k2, phi3, gpt_neox, bloom, falcon, gpt_oss,
// chatglm, glm, glm4, llama4 (nested text_config), llama4_text, gptj,
// gpt_bigcode, baichuan, t5, mt5, whisper, mllama (nested text_config),
// glm4_moe, qwen3_next, qwen3_5(_moe)(_text), nemotron_h, deepseek_v32,
// glm_moe_dsa, minimax_m2, qwen3_vl(_moe)(_text), kimi_k25, granitemoehybrid,
// gemma4 (nested text_config; not the E2B/E4B per-layer embeddings), gemma4_text, lfm2,
// ministral3, mistral3 (nested text_config, Pixtral encoder counted), mimo_v2_flash.
// Another model_type with the standard keys is read as a Llama-like decoder,
// a mixture of experts when it has expert keys (n_routed_experts,
// num_experts, num_local_experts, moe_intermediate_size, ...), with warning
// "unknown_model_type" naming the model and what was assumed. A missing key or a value beyond the
// sanity limits throws InputError "invalid_config" whose path is
// `path` + "/<key>".
ModelSpec modelFromHfConfig(const Json& config, const std::string& path, std::vector<Warning>* warnings);

}  // namespace caliper::io
