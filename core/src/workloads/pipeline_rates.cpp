#include "workloads/pipeline_rates.hpp"

#include <algorithm>

#include "speed/efficiency.hpp"

namespace caliper::workloads {

namespace {

// FlashAttention-2 forward reaches 50-73% of the A100's dense rate (Dao
// 2023, "FlashAttention-2", abstract and §4.1); the middle of the band.
constexpr double kAttentionFraction = 0.60;
// On Hopper FlashAttention-2 runs Ampere-style MMA and reaches only 35% of
// the H100 SXM5's 989 TFLOPS (Shah et al. 2024, "FlashAttention-3", §1):
// an absolute ceiling of ~346 TFLOPS on Hopper. Data-center Blackwell
// (compute capability 10.x) also needs its own instructions for full rate;
// the Hopper ceiling is assumed there until a measurement says otherwise.
// GeForce Blackwell (12.x) runs the Ampere-style MMA natively.
constexpr double kHopperFa2CeilingTflops = 0.35 * 989.0;
// Matmul fraction and elementwise passes of eager PyTorch (diffusers, the
// official FLUX/HunyuanVideo/Wan code, transformers, sentence-transformers),
// fitted together (least squares of the log errors) to three measurements
// with the attention term above: FLUX.1-dev at 1024x1024, 28 steps, 6.71 s
// on one H100 (xdit-project/xDiT docs/performance/flux.md, PyTorch column)
// and 15.65 s on an A100 in bf16 (GitHub varadrane1707/BenchmarkFlux README);
// sentence-transformers fp16 serving BAAI/bge-large-en-v1.5 on an L4 at
// 0.17 requests/s of 115,000 tokens (michaelfeil/infinity
// docs/docs/benchmarking.md). Residuals +7%, -4%, +2%. HunyuanVideo on H100
// and H20 checks them (tests/unit/test_workloads.cpp).
constexpr double kMatmulFraction = 0.80;
constexpr double kElementwisePasses = 198;
// Engines with fused kernels: fitted to text-embeddings-inference on the
// same L4 and model (0.54 requests/s = 62,100 tokens/s) with the matmul and
// attention terms above.
constexpr double kFusedElementwisePasses = 42;
// Launch overhead per layer and weight streaming, as the LLM engine's priors
// (speed/efficiency.cpp) and from the same measurements, kept here so that
// refitting the LLM decode rows (data/calibration.json) does not move the
// figures fitted above: eager PyTorch ~190 us per layer (lmdeploy issue
// #210, transformers on an A10) and 0.75 of peak bandwidth; CUDA-graph
// engines ~17 us per layer and 0.80 (gpt-fast README, A100).
constexpr double kEagerLayerOverheadS = 190e-6;
constexpr double kGraphLayerOverheadS = 17e-6;
constexpr double kEagerStreamFraction = 0.75;
constexpr double kGraphStreamFraction = 0.80;

bool graphEngine(Engine engine) {
    return runtimeOf(engine) == Engine::Vllm || runtimeOf(engine) == Engine::Sglang || runtimeOf(engine) == Engine::TensorrtLlm;
}

// Elementwise kernels stream at the eager fraction of peak bandwidth above.
constexpr double kElementwiseBandwidthFraction = kEagerStreamFraction;

}  // namespace

PipelineRates pipelineRates(const Scenario& s) { return pipelineRates(s, s.engine); }

PipelineRates pipelineRates(const Scenario& s, Engine engine) {
    PipelineRates r;
    const PeakRate peak = matmulPeakDirect(Engine::Transformers, s.weights, s.gpu);
    r.peakTflops = peak.tflops;
    r.matmulFlopsPerS = kMatmulFraction * peak.tflops * 1e12;
    double attention = kAttentionFraction * peak.tflops;
    if (s.gpu.vendor == "nvidia") {  // the capability is read (parsed from its text) only where it matters
        const double cc = computeCapability(s.gpu);
        if (cc >= 9.0 && cc < 11.0) attention = std::min(attention, kHopperFa2CeilingTflops);
    }
    r.attentionFlopsPerS = attention * 1e12;
    r.bandwidthBytesPerS = kElementwiseBandwidthFraction * s.gpu.bandwidthGBps * 1e9;
    const bool graphs = graphEngine(engine);
    r.layerOverheadS = graphs ? kGraphLayerOverheadS : kEagerLayerOverheadS;
    r.weightStreamBytesPerS = (graphs ? kGraphStreamFraction : kEagerStreamFraction) * s.gpu.bandwidthGBps * 1e9;
    return r;
}

double elementwisePassesPerTokenLayer() { return kElementwisePasses; }

double elementwisePasses(const Scenario& s) {
    return graphEngine(s.engine) ? kFusedElementwisePasses : kElementwisePasses;
}

double sequenceParallelSpeedup(int gpus) {
    // HunyuanVideo 1280x720, 129 frames, 50 steps on H100 with xDiT Ulysses
    // (xDiT docs/performance/hunyuanvideo.md): 1904.08 s on 1 GPU, 925.04 on
    // 2, 514.08 on 4, 337.58 on 8: speed-ups 2.06, 3.70 and 5.64.
    // Counts between the rows take the efficiency of the row below.
    if (gpus <= 1) return 1.0;
    if (gpus < 4) return std::min(2.06 * gpus / 2.0, static_cast<double>(gpus));
    if (gpus < 8) return 3.70 * gpus / 4.0;
    return 5.64 * gpus / 8.0;
}

}  // namespace caliper::workloads
