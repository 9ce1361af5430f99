#pragma once
// Hand-built models and GPUs for the speed and cost tests, with the figures'
// sources, so the tests do not move when the catalog is edited.
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper::test {

// meta-llama/Llama-3.1-8B config.json: 32 layers, hidden 4096, FFN 14336,
// 32 heads, 8 KV heads, vocab 128256, untied embeddings.
inline ModelSpec llama31_8b() {
    ModelSpec m;
    m.id = "llama-3.1-8b";
    m.layers = 32;
    m.hiddenSize = 4096;
    m.intermediateSize = 14336;
    m.heads = 32;
    m.kvHeads = 8;
    m.headDim = 128;
    m.vocabSize = 128256;
    m.maxContext = 131072;
    return m;
}

// meta-llama/Llama-2-7b-hf config.json: 32 layers, hidden 4096, FFN 11008,
// 32 heads (MHA), vocab 32000.
inline ModelSpec llama2_7b() {
    ModelSpec m = llama31_8b();
    m.id = "llama-2-7b";
    m.intermediateSize = 11008;
    m.kvHeads = 32;
    m.vocabSize = 32000;
    m.maxContext = 4096;
    return m;
}

// meta-llama/Llama-2-70b-hf config.json: 80 layers, hidden 8192, FFN 28672,
// 64 heads, 8 KV heads, vocab 32000.
inline ModelSpec llama2_70b() {
    ModelSpec m = llama2_7b();
    m.id = "llama-2-70b";
    m.layers = 80;
    m.hiddenSize = 8192;
    m.intermediateSize = 28672;
    m.heads = 64;
    m.kvHeads = 8;
    return m;
}

// mistralai/Mixtral-8x7B-v0.1 config.json: 32 layers, hidden 4096, 8 experts
// of FFN 14336, 2 per token, 32 heads, 8 KV heads, vocab 32000.
inline ModelSpec mixtral8x7b() {
    ModelSpec m = llama31_8b();
    m.id = "mixtral-8x7b";
    m.vocabSize = 32000;
    m.moe.experts = 8;
    m.moe.expertsPerToken = 2;
    m.moe.expertIntermediateSize = 14336;
    return m;
}

// NVIDIA H100 SXM5 80GB datasheet: 3.35 TB/s, 989.4 dense BF16/FP16 TFLOPS,
// 1978.9 dense FP8, 700 W, NVLink 4 900 GB/s in 8-GPU HGX boards.
inline GpuSpec h100Sxm() {
    GpuSpec g;
    g.id = "h100-sxm5-80gb";
    g.name = "NVIDIA H100 SXM5 80GB";
    g.vendor = "nvidia";
    g.gpuClass = "datacenter";
    g.architecture = "Hopper";
    g.computeCapability = "9.0";
    g.memoryGib = 79.6;
    g.memoryType = "HBM3";
    g.bandwidthGBps = 3350;
    g.bf16Tflops = 989.4;
    g.fp16Tflops = 989.4;
    g.fp8Tflops = 1978.9;
    g.int8Tops = 1978.9;
    g.fp32Tflops = 66.9;
    g.supportsBf16 = true;
    g.supportsFp8 = true;
    g.nvlinkGBps = 900;
    g.nvlinkMaxGpus = 8;
    g.pcieGen = 5;
    g.formFactor = "sxm";
    g.gpusPerNode = 8;
    g.tdpW = 700;
    return g;
}

// NVIDIA Ada whitepaper, RTX 4090: 1008 GB/s, FP16/BF16 with FP32
// accumulate 165.2 dense TFLOPS, FP16 accumulate 330.3, 450 W, no NVLink.
inline GpuSpec rtx4090() {
    GpuSpec g;
    g.id = "rtx-4090";
    g.name = "NVIDIA GeForce RTX 4090";
    g.vendor = "nvidia";
    g.gpuClass = "consumer";
    g.architecture = "Ada Lovelace";
    g.computeCapability = "8.9";
    g.memoryGib = 23.6;
    g.memoryType = "GDDR6X";
    g.bandwidthGBps = 1008;
    g.bf16Tflops = 165.2;
    g.fp16Tflops = 165.2;
    g.fp16Acc16Tflops = 330.3;
    g.fp8Tflops = 330.3;
    g.int8Tops = 660.6;
    g.fp32Tflops = 82.6;
    g.supportsBf16 = true;
    g.supportsFp8 = true;
    g.pcieGen = 4;
    g.formFactor = "pcie";
    g.gpusPerNode = 4;
    g.tdpW = 450;
    return g;
}

inline Scenario inference(ModelSpec model, GpuSpec gpu, Engine engine, WeightFormat weights) {
    Scenario s;
    s.model = std::move(model);
    s.gpu = std::move(gpu);
    s.engine = engine;
    s.weights = weights;
    s.kvCache = KvFormat::Bf16;
    return s;
}

inline Plan singleGpu() { return Plan{}; }

inline Plan plan(Strategy strategy, int gpus, int tp, int pp, int dp) {
    Plan p;
    p.strategy = strategy;
    p.gpuCount = gpus;
    p.tp = tp;
    p.pp = pp;
    p.dp = dp;
    p.nodes = 1;
    return p;
}

}  // namespace caliper::test
