#pragma once
// Embedding models and rerankers (embedding.cpp): one forward pass over
// `batch` sequences of prompt_tokens, no generation.
#include "workloads/pipeline.hpp"

namespace caliper::workloads {

PipelineMemory embeddingMemory(const Scenario& s, double bytesPerWeight);
PipelineTime embeddingTime(const Scenario& s, bool withExplain);

}  // namespace caliper::workloads
