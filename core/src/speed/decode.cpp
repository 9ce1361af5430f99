// Decode speed: each step streams the weights (MoE: the experts the batch
// touches) and every sequence's KV cache, or is limited by matmul throughput
// at large batch, plus a fixed per-layer cost and tensor-parallel all-reduces.
// Eager engines issue every kernel from Python ahead of the GPU: a step takes
// the longer of the host's time and the GPU's.
#include <algorithm>
#include <cmath>
#include <string>

#include "caliper/model/formats.hpp"
#include "caliper/units.hpp"
#include "speed/efficiency.hpp"
#include "speed/speed_parts.hpp"

namespace caliper {

namespace {

// Generation is averaged over this many points of the growing context
// (midpoint rule; the step time is piecewise linear in the context).
constexpr int kContextSamples = 16;
// Activations cross the tensor-parallel all-reduce and stage boundaries in 16 bits.
constexpr double kActivationBytes = 2.0;
// Eager engines' 4-bit weight-only kernels take a fast path for one row
// only: over more rows the weights are dequantized into a 16-bit copy that
// a 16-bit GEMM reads (bitsandbytes < 0.50 autograd/_functions.py
// matmul_4bit: gemv_4bit only when A.numel() == A.shape[-1], else
// dequantize_4bit + linear). Each weight then costs its packed bytes plus a
// 16-bit write and a 16-bit read. optimum tests/benchmark/README.md
// (A100, Llama-2-13B, transformers) shows the same of the exllama GPTQ
// kernels: 33.7 ms per step at batch 1 (faster than fp16's 37.0) but 54.1 ms
// at batch 4 against fp16's 37.9; bitsandbytes 4-bit 114 ms at batch 16
// against fp16's 70 (huggingface/blog overview-quantization-transformers).
constexpr double kDequantCopyBytesPerWeight = 2.0 + 2.0;
// transformers' default KV cache grows by concatenation: each step every
// layer's K and V are copied whole into new tensors (cache_utils.py
// DynamicCache.update: torch.cat([key_cache[layer], key_states])), a read and
// a write of the cache on top of attention's read.
constexpr double kConcatKvCopies = 2.0;

struct StageTimes {
    double memoryS = 0;
    double computeS = 0;
    double unpackS = 0;
    double fixedS = 0;
    double commS = 0;
    double hostS = 0;  // eager engines: the host's time, run ahead of the GPU
    double gpuS() const { return std::max({memoryS, computeS, unpackS}) + fixedS; }
    double totalS() const { return std::max(gpuS(), hostS) + commS; }
};

// What one pipeline stage's step costs apart from the context: achieved
// rates, the weights read, and the context-free times. Worked out once per
// estimate; the context samples then add only the KV read and attention.
struct StageRates {
    double shards = 1;             // tp x pp: each GPU's share of the work
    double stages = 1;             // pp: a stage's share of the layers (and so of a rank's KV)
    KvRankShare kvShare;           // each kind of layer's KV one tensor-parallel rank reads
    double sequences = 1;          // sequences per micro-batch
    double bandwidthBytesPerS = 0; // achieved
    double flopsPerS = 0;          // achieved matmul rate
    double weightBytes = 0;        // read per step, whole model
    double dequantCopyS = 0;       // eager 4-bit kernels over several rows: the 16-bit copy, whole model
    double kvCopyBytesPerS = 0;    // transformers: rate of the KV cache's copy by concatenation (0: none)
    StageTimes fixed;              // unpackS, fixedS, commS (context-free)
};

StageRates stageRates(const Scenario& scenario, const EngineRates& engine, const ServingLayout& layout,
                      const Workload& work, double sequences) {
    const GpuSpec& gpu = scenario.gpu;
    StageRates r;
    r.shards = double(layout.tp) * layout.pp;
    r.stages = layout.pp;
    r.kvShare = kvRankShare(scenario.model, layout.tp);
    r.sequences = sequences;
    r.bandwidthBytesPerS = engine.bandwidthFraction * gpu.bandwidthGBps * kBytesPerGB;
    r.flopsPerS = engine.decodeComputeFraction() * engine.peak.tflops * kFlopsPerTflop;
    r.weightBytes = weightBytesPerStep(work, sequences);
    const WeightFormatInfo format = weightFormatInfo(scenario.weights);
    // The engine's 16-bit streaming rate: the copies below move 16-bit tensors.
    auto rate16 = [&] { return decodeBandwidthFraction(scenario.engine, WeightFormat::Bf16, gpu) * gpu.bandwidthGBps * kBytesPerGB; };
    if (runtimeOf(scenario.engine) == Engine::Transformers) r.kvCopyBytesPerS = rate16();
    if (eagerEngine(scenario.engine) && format.fourBit && !format.gguf && sequences > 1.0) {
        // The block linears' weights this step reads (touched experts
        // included; lm_head stays 16-bit), each copied out and read back in
        // 16 bits at the 16-bit streaming rate.
        const double firstRow = weightBytesPerStep(work, 1.0);
        const double weights = firstRow > 0 ? work.blockMatmulParams * r.weightBytes / firstRow : 0;
        const double copyRate = rate16();
        if (copyRate > 0) r.dequantCopyS = weights * kDequantCopyBytesPerWeight / copyRate;
    }
    const double ops = dequantOpsPerWeight(scenario.weights, gpu);
    if (ops > 0 && gpu.fp32Tflops && *gpu.fp32Tflops > 0) {
        r.fixed.unpackS = work.weightCount * ops / r.shards / (*gpu.fp32Tflops * kFlopsPerTflop);
    }
    const double stageLayers = double(work.layers) / layout.pp;
    r.fixed.fixedS = stageLayers * engine.layerOverheadS;
    r.fixed.hostS = stageLayers * engine.hostLayerS;
    if (layout.tp > 1) {
        // Two all-reduces per layer (after attention and after the MLP).
        const double message = sequences * work.hidden * kActivationBytes;
        r.fixed.commS = stageLayers * 2.0 * allReduceS(message, layout.tp, layout.tpLink);
    }
    return r;
}

// One pipeline stage (1/pp of the layers, 1/tp of each) at `context` tokens.
StageTimes stageTimes(const StageRates& r, const Workload& work, double context) {
    StageTimes t = r.fixed;
    // A rank reads its share of the KV heads (replicated once tp exceeds
    // them, MLA's latent whole) on its stage's layers.
    const double kvBytes = r.sequences * kvBytesReadOnRank(work, r.kvShare, context) / r.stages;
    const double bytes = r.weightBytes / r.shards + kvBytes;
    t.memoryS = (r.bandwidthBytesPerS > 0 ? bytes / r.bandwidthBytesPerS : 0) + r.dequantCopyS / r.shards;
    if (r.kvCopyBytesPerS > 0) t.memoryS += kConcatKvCopies * kvBytes / r.kvCopyBytesPerS;
    const double flops =
        r.sequences * (2.0 * (work.blockMatmulParams + work.lmHeadParams) + attentionFlopsPerToken(work, context)) /
        r.shards;
    t.computeS = r.flopsPerS > 0 ? flops / r.flopsPerS : 0;
    return t;
}

// Which of memory, compute, weight unpacking and the host bounds a step.
int boundBy(const StageTimes& t) {
    if (t.hostS > t.gpuS()) return 3;
    if (t.memoryS >= t.computeS && t.memoryS >= t.unpackS) return 0;
    return t.computeS >= t.unpackS ? 1 : 2;
}

// Each term of a step is linear in the context unless a sliding window's
// edge lies in between; and the largest of linear terms that is largest at
// both ends is largest all the way. Then the step time is linear too.
bool linearBetween(const StageRates& rates, const Workload& work, double from, double to) {
    if (work.slidingLayerShare > 0 && from < work.slidingWindow && to > work.slidingWindow) return false;
    // DeepSeek-V4: the window's edge and the CSA layers' top-k edge.
    if (work.compressedWindow > 0 && from < work.compressedWindow && to > work.compressedWindow) return false;
    const double topkEdge = work.csaRatio * work.indexTopk;
    if (work.compressedWindow > 0 && topkEdge > 0 && from < topkEdge && to > topkEdge) return false;
    return boundBy(stageTimes(rates, work, from)) == boundBy(stageTimes(rates, work, to));
}

double stepFromStage(const ServingLayout& layout, const Workload& work, double stageS) {
    const double microSequences = layout.sequences / layout.microbatches;
    const double hopS = layout.pp > 1 ? (layout.pp - 1) * sendS(microSequences * work.hidden * kActivationBytes,
                                                               layout.stageLink)
                                      : 0;
    return layout.pp * stageS + hopS;
}

void explainStep(const Scenario& scenario, const EngineRates& engine, const ServingLayout& layout, const Workload& work,
                 double context, SpeedEstimate& out) {
    const double microSequences = layout.sequences / layout.microbatches;
    const StageRates rates = stageRates(scenario, engine, layout, work, microSequences);
    const StageTimes t = stageTimes(rates, work, context);
    const double fraction = engine.bandwidthFraction;
    out.explain.push_back({"decode_weight_read_gb",
                           "weights read per step: dense + lm_head + touched experts E(1-(1-k/E)^B), in the format's "
                           "bytes, whole model",
                           weightBytesPerStep(work, microSequences) / kBytesPerGB});
    out.explain.push_back({"decode_kv_read_gb", "KV bytes per token x average context x sequences",
                           microSequences * kvBytesRead(work, context) / kBytesPerGB});
    out.explain.push_back({"decode_bandwidth_fraction",
                           std::string("achieved / peak bandwidth for ") + toString(scenario.engine) + " on " +
                               toString(gpuFamily(scenario.gpu)),
                           fraction});
    out.explain.push_back({"decode_memory_ms", "bytes per GPU / (fraction x bandwidth_gbps), per stage", t.memoryS * 1e3});
    if (rates.dequantCopyS > 0) {
        out.explain.push_back({"decode_dequant_copy_ms",
                               "eager 4-bit kernels over several rows: block weights copied out and read back in 16 bits "
                               "(in decode_memory_ms), per stage",
                               rates.dequantCopyS / rates.shards * 1e3});
    }
    out.explain.push_back({"decode_compute_ms", "(2 x active params + attention) x batch / achieved tensor rate, per stage",
                           t.computeS * 1e3});
    out.explain.push_back({"decode_fixed_ms", "layers per stage x per-layer overhead (launches, sync)", t.fixedS * 1e3});
    if (t.hostS > 0) {
        out.explain.push_back({"decode_host_ms",
                               "layers per stage x host time per layer (Python, launches); the step takes the longer "
                               "of host and GPU",
                               t.hostS * 1e3});
    }
    if (t.commS > 0) out.explain.push_back({"decode_tp_comm_ms", "2 all-reduces per layer x (latency + size / busbw)", t.commS * 1e3});
}

}  // namespace

double decodeStepS(const Scenario& scenario, const EngineRates& engine, const ServingLayout& layout, const Workload& work,
                   double context) {
    const StageRates rates = stageRates(scenario, engine, layout, work, layout.sequences / layout.microbatches);
    return stepFromStage(layout, work, stageTimes(rates, work, context).totalS());
}

void estimateDecode(const Scenario& scenario, const EngineRates& engine, const ServingLayout& layout,
                    const Workload& work, bool withExplain, SpeedEstimate& out) {
    const double prompt = double(std::max<std::int64_t>(0, scenario.promptTokens));
    const double output = double(std::max<std::int64_t>(1, scenario.outputTokens));
    const int samples = int(std::min<double>(kContextSamples, output));
    const StageRates rates = stageRates(scenario, engine, layout, work, layout.sequences / layout.microbatches);
    const double first = prompt + 0.5 * output / samples;
    const double last = prompt + (samples - 0.5) * output / samples;
    double meanStepS = 0;
    if (linearBetween(rates, work, first, last)) {
        // Midpoint samples of a linear function average to its middle value.
        meanStepS = stepFromStage(layout, work, stageTimes(rates, work, (first + last) / 2).totalS());
    } else {
        for (int i = 0; i < samples; ++i) {
            const double context = prompt + (i + 0.5) * output / samples;
            meanStepS += stepFromStage(layout, work, stageTimes(rates, work, context).totalS());
        }
        meanStepS /= samples;
    }
    if (!(meanStepS > 0) || !std::isfinite(meanStepS)) return;
    out.decodeTokensPerS = layout.replicas * layout.sequences / meanStepS;
    if (!withExplain) return;
    explainStep(scenario, engine, layout, work, prompt + output / 2.0, out);
    out.explain.push_back({"decode_step_ms",
                           "average over the generation (context prompt..prompt+output) of pp x stage time + hops",
                           meanStepS * 1e3});
    out.explain.push_back({"decode_tokens_per_s", "replicas x sequences / step time", *out.decodeTokensPerS});
}

}  // namespace caliper
