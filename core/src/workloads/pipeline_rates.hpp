#pragma once
// How fast one GPU runs the parts of a non-LLM pipeline: large matmuls,
// attention, elementwise passes, weight streaming. The constants and the
// measurements they rest on are in pipeline_rates.cpp.
#include "caliper/scenario.hpp"

namespace caliper::workloads {

struct PipelineRates {
    double matmulFlopsPerS = 0;     // achieved, for the linear layers
    double attentionFlopsPerS = 0;  // achieved, FlashAttention-2 class kernels
    double bandwidthBytesPerS = 0;  // achieved, for elementwise passes and weight streaming
    double layerOverheadS = 0;      // fixed time per layer per forward (launches)
    double weightStreamBytesPerS = 0;  // achieved, reading weights and caches in a decode step
    double peakTflops = 0;          // the dense tensor rate the fractions apply to
};

PipelineRates pipelineRates(const Scenario& scenario);
// The same as run by `engine` (diffusion pipelines run eager whatever the
// request names).
PipelineRates pipelineRates(const Scenario& scenario, Engine engine);

// Bytes each token moves per layer outside the matmuls (norms, modulation,
// RoPE, activation functions, copies), in units of hidden x 2 bytes: eager
// PyTorch (diffusers, transformers, sentence-transformers) or an engine that
// fuses them (vLLM, SGLang, TensorRT-LLM; text-embeddings-inference).
double elementwisePassesPerTokenLayer();  // eager
double elementwisePasses(const Scenario& s);  // by the scenario's engine

// Speed-up of n GPUs over one for a sequence-parallel (Ulysses) DiT.
double sequenceParallelSpeedup(int gpus);

}  // namespace caliper::workloads
