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

// meta-llama/Llama-2-13b-hf config.json: 40 layers, hidden 5120, FFN 13824,
// 40 heads (MHA), vocab 32000.
inline ModelSpec llama2_13b() {
    ModelSpec m = llama2_7b();
    m.id = "llama-2-13b";
    m.layers = 40;
    m.hiddenSize = 5120;
    m.intermediateSize = 13824;
    m.heads = 40;
    m.kvHeads = 40;
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

// NVIDIA A100 datasheet, SXM4 80GB: 2039 GB/s, 312 dense BF16/FP16
// TFLOPS, 624 INT8 TOPS, 19.5 FP32, 400 W, NVLink 3 600 GB/s.
inline GpuSpec a100Sxm80() {
    GpuSpec g = h100Sxm();
    g.id = "a100-sxm4-80gb";
    g.name = "NVIDIA A100 SXM4 80GB";
    g.architecture = "Ampere";
    g.computeCapability = "8.0";
    g.memoryGib = 80.0;
    g.memoryType = "HBM2e";
    g.bandwidthGBps = 2039;
    g.bf16Tflops = 312;
    g.fp16Tflops = 312;
    g.fp8Tflops.reset();
    g.int8Tops = 624;
    g.fp32Tflops = 19.5;
    g.supportsFp8 = false;
    g.nvlinkGBps = 600;
    g.pcieGen = 4;
    g.tdpW = 400;
    return g;
}

// NVIDIA A10 datasheet: 24 GB GDDR6, 600 GB/s, 125 dense BF16/FP16 TFLOPS,
// 250 INT8 TOPS, 31.2 FP32, 150 W, PCIe 4, no NVLink.
inline GpuSpec a10() {
    GpuSpec g = a100Sxm80();
    g.id = "a10";
    g.name = "NVIDIA A10 24GB";
    g.computeCapability = "8.6";
    g.memoryGib = 22.49;
    g.memoryType = "GDDR6";
    g.bandwidthGBps = 600;
    g.bf16Tflops = 125;
    g.fp16Tflops = 125;
    g.int8Tops = 250;
    g.fp32Tflops = 31.2;
    g.nvlinkGBps = 0;
    g.nvlinkMaxGpus = 0;
    g.formFactor = "pcie";
    g.tdpW = 150;
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
