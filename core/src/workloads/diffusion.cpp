// Image and video diffusion: text encoders once, the denoising transformer
// once per step (twice with classifier-free guidance), the VAE decoder once.
#include <algorithm>
#include <cmath>
#include <string>

#include "workloads/diffusion.hpp"
#include "workloads/pipeline_rates.hpp"

namespace caliper::workloads {

namespace {

// Live activations of one DiT block in eager PyTorch at its peak, in units
// of tokens x hidden x 2 bytes: the FLUX single-stream block
// (diffusers FluxSingleTransformerBlock) holds the input and its norm (2),
// the fused projection (3 + 4), q/k after norm and RoPE (2), the attention
// output (1), the GELU output (4), the concatenation (5) and its
// projection (1): 22, rounded up to 24 for the residual stream copies.
constexpr double kDitActivationWidths = 24;
// VAE decoder working set per output pixel (per frame): the last up-block of
// the FLUX/SD3 decoder (block_out_channels 128..512) holds the upsampled
// 256-channel map, its 256-channel norm and the 128-channel conv output in
// 16-bit: (256 + 256 + 128) x 2 bytes = 1,280 bytes; 1.5 KiB with the
// cuDNN workspace.
constexpr double kVaeBytesPerPixel = 1536;

double componentParams(const ModelSpec& m, ComponentRole role) {
    double total = 0;
    for (const PipelineComponent& c : m.workloadShape.components) {
        if (c.role == role) total += static_cast<double>(c.params);
    }
    return total;
}

}  // namespace

DiffusionSize diffusionSize(const ModelSpec& m, const WorkloadInputs& in) {
    const WorkloadShape& w = m.workloadShape;
    DiffusionSize d;
    // Diffusers pipelines round the latent grid down to whole patches
    // (2 * (size // (vae_scale * 2)) for FLUX).
    const double cell = static_cast<double>(w.vaeScale) * w.patchSize;
    d.spatialTokens = std::floor(in.width / cell) * std::floor(in.height / cell);
    d.latentFrames = m.workload == WorkloadKind::DiffusionVideo
                         ? std::floor((in.frames - 1) / static_cast<double>(w.vaeTemporalScale)) + 1
                         : 1;
    d.imageTokens = d.spatialTokens * d.latentFrames;
    d.sequenceTokens = d.imageTokens + w.textTokens;
    d.outputFrames = m.workload == WorkloadKind::DiffusionVideo ? in.frames : 1;
    return d;
}

PipelineMemory diffusionMemory(const Scenario& s, const WorkloadInputs& in, int gpus, double bytesPerWeight) {
    const ModelSpec& m = s.model;
    const WorkloadShape& w = m.workloadShape;
    const DiffusionSize d = diffusionSize(m, in);
    const double n = std::max(1, gpus);
    // Text encoders and the VAE stay in 16-bit (pipelines quantize the
    // denoiser only); with several GPUs the denoiser and the text encoders
    // are sharded (Wan's --dit_fsdp --t5_fsdp), the VAE decodes on one.
    const double denoiserBytes = componentParams(m, ComponentRole::Denoiser) * bytesPerWeight;
    const double textBytes = componentParams(m, ComponentRole::TextEncoder) * 2.0;
    const double vaeBytes = componentParams(m, ComponentRole::Vae) * 2.0;
    PipelineMemory mem;
    mem.weightsGiB = ((denoiserBytes + textBytes) / n + vaeBytes) / kBytesPerGiBWorkload;
    const double sequences = static_cast<double>(s.batch) * w.guidanceForwards;
    const double ditBytes = sequences * d.sequenceTokens * w.denoiserHidden * kDitActivationWidths * 2.0 / n;
    // Video VAEs decode one latent frame (vae_temporal_scale frames) at a
    // time with a causal cache (Wan) or temporal tiles (HunyuanVideo).
    const double framesAtOnce = m.workload == WorkloadKind::DiffusionVideo ? w.vaeTemporalScale : 1;
    const double vaeBytesLive = static_cast<double>(s.batch) * framesAtOnce * in.width * in.height * kVaeBytesPerPixel;
    mem.activationsGiB = std::max(ditBytes, vaeBytesLive) / kBytesPerGiBWorkload;
    return mem;
}

PipelineTime diffusionTime(const Scenario& s, const WorkloadInputs& in, int gpus, bool withExplain) {
    const ModelSpec& m = s.model;
    const WorkloadShape& w = m.workloadShape;
    const DiffusionSize d = diffusionSize(m, in);
    // Diffusion pipelines run in eager PyTorch (diffusers, the official
    // FLUX/Wan/HunyuanVideo code) whatever serving engine the request names.
    const PipelineRates r = pipelineRates(s, Engine::Transformers);
    const double batch = static_cast<double>(s.batch);
    const double forwards = batch * w.guidanceForwards;
    // One forward of the denoiser over its joint sequence: matmuls on every
    // token, attention over all pairs (QK^T and AV, 2 FLOPs each per
    // multiply-add: 4 x T^2 x width per layer), elementwise passes.
    const double T = d.sequenceTokens;
    const double matmulFlops = 2.0 * w.tokenParams * T;
    const double attentionFlops = 4.0 * w.denoiserLayers * T * T * w.denoiserHidden;
    const double elementwiseBytes = elementwisePassesPerTokenLayer() * T * w.denoiserLayers * w.denoiserHidden * 2.0;
    const double forwardS = matmulFlops / r.matmulFlopsPerS + attentionFlops / r.attentionFlopsPerS +
                            elementwiseBytes / r.bandwidthBytesPerS + w.denoiserLayers * r.layerOverheadS;
    const double denoiseS = in.steps * forwards * forwardS / sequenceParallelSpeedup(gpus);
    // Text encoders run once per prompt (and once for the negative prompt
    // under guidance): 2 FLOPs per weight per text token.
    const double textS = w.textTokens > 0 ? forwards * 2.0 * componentParamsOf(m, ComponentRole::TextEncoder) *
                                                w.textTokens / r.matmulFlopsPerS
                                          : 0;
    const double megapixels = in.width * static_cast<double>(in.height) / 1e6 * d.outputFrames;
    const double vaeS = batch * w.vaeDecodeGflopsPerMegapixel * 1e9 * megapixels / r.matmulFlopsPerS;
    PipelineTime t;
    t.seconds = textS + denoiseS + vaeS;
    if (withExplain) {
        const std::string tokens = std::to_string(static_cast<long long>(d.imageTokens)) + " latent tokens + " +
                                   std::to_string(w.textTokens) + " text tokens";
        t.explain.push_back({"denoise_step_s",
                             "one denoiser forward over " + tokens + ": 2 x token_params x T matmul FLOPs at the "
                             "achieved matmul rate + 4 x layers x T^2 x width attention FLOPs at the FlashAttention "
                             "rate + elementwise passes at memory bandwidth; x " +
                                 std::to_string(w.guidanceForwards) + " forward(s) per step (guidance) x batch",
                             w.guidanceForwards * batch * forwardS});
        t.explain.push_back({"denoise_s", std::to_string(in.steps) + " steps x step time / sequence-parallel speed-up of " +
                                              std::to_string(gpus) + " GPU(s)",
                             denoiseS});
        t.explain.push_back({"text_encode_s", "2 x text-encoder weights x text tokens at the matmul rate", textS});
        t.explain.push_back({"vae_decode_s", "VAE decoder GFLOPs per megapixel x output megapixels at the matmul rate",
                             vaeS});
    }
    return t;
}

double componentParamsOf(const ModelSpec& m, ComponentRole role) { return componentParams(m, role); }

}  // namespace caliper::workloads
