#pragma once
// A model name as people copy it from where they run it: an Ollama tag
// ("qwen2.5:7b-instruct-q4_K_M") or a GGUF file name
// ("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"), resolved to the catalog entry
// and to the quantization the name carries.
#include <optional>
#include <string>
#include <string_view>

#include "caliper/catalog.hpp"
#include "caliper/weight_format.hpp"

namespace caliper {

struct ModelReference {
    const ModelSpec* model = nullptr;     // null: no catalog entry
    std::optional<WeightFormat> weights;  // the quantization named, where Caliper knows it
    std::string formatName;               // the quantization as written ("IQ4_XS"); empty if none
};

// findModel first; failing that, the name without its file suffixes, its
// "hf.co/<org>/" prefix and its quantization words, then without the variant
// words the catalog folds into one entry ("instruct", "text", "latest").
ModelReference findModelReference(const Catalog& catalog, std::string_view query);

}  // namespace caliper
