#pragma once
// A model entry's "workload" and "workload_shape" keys (data/README.md) <->
// ModelSpec. Strict like the rest of the entry: every key a kind needs must
// be there, every value in range, errors name the JSON pointer.
#include "caliper/model.hpp"
#include "json/json_read.hpp"

namespace caliper::io {

// Reads "workload" (absent or null: "llm") and "workload_shape" (required
// for asr and diffusion, null or absent otherwise) from the entry's reader.
void readWorkload(ObjectReader& entry, ModelSpec& model);

// Adds "workload" and "workload_shape" (null for embedding models) to the
// entry of a non-LLM model; LLM entries stay without them (absent = llm).
void writeWorkload(const ModelSpec& model, Json& entry);

}  // namespace caliper::io
