#pragma once
// One model of data/models.json <-> ModelSpec, and the same shape when a
// request passes its own model object (docs/CONTRACT.md, "Scenario").
#include <string>
#include <vector>

#include "caliper/model.hpp"
#include "caliper/result.hpp"
#include "json/json_read.hpp"

namespace caliper::io {

// catalogEntry = true: every key of data/README.md must be present (nullable
// ones may be null), kv_bytes_per_token must agree with the architecture, and
// unknown keys are rejected.
//
// catalogEntry = false (a model object in a request): the same keys, all
// optional ("id" defaults to "custom"), unknown keys still rejected. Either the
// architecture (layers, hidden_size, heads, intermediate_size, vocab_size) or
// params_b must be given. With params_b and no full architecture, a Llama-like
// shape is assumed (shapeAssumed, warning "model_shape_assumed").
//
// Throws InputError naming the JSON pointer under `path` ("/models/3/layers").
ModelSpec modelFromJson(const Json& object, const std::string& path, std::vector<Warning>* warnings,
                        bool catalogEntry = false);

// Every data/README.md key plus the docs/CONTRACT.md listing keys: params_b,
// active_params_b and kv_bytes_per_token computed from the architecture
// (countParams, kvBytesPerToken16); "shape_assumed": true when it was guessed.
Json modelToJson(const ModelSpec& model);

}  // namespace caliper::io
