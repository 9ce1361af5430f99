// Speech recognition: an audio encoder over fixed windows (Whisper: 30 s,
// 1,500 positions) or the whole audio (SenseVoice, Paraformer), then either
// an autoregressive decoder writing the transcript token by token, or a
// single non-autoregressive / CTC pass. `batch` streams run together.
#include <algorithm>
#include <cmath>
#include <string>

#include "workloads/asr.hpp"
#include "workloads/diffusion.hpp"
#include "workloads/pipeline_rates.hpp"

namespace caliper::workloads {

namespace {

// Transcript tokens per second of speech. Conversational English runs at
// about 150 words per minute (2.5 words/s; National Center for Voice and
// Speech); OpenAI's tokenizer guide gives ~0.75 words per token, so 3.3
// tokens/s; Whisper adds 4 task tokens per 30-s window and 2 timestamp
// tokens per segment (segments of ~5 s): +0.5/s.
constexpr double kTokensPerAudioSecond = 3.8;
// Whisper's decoder writes at most max_target_positions = 448 tokens per
// window (config.json); its self-attention KV cache is sized for them.
constexpr double kMaxDecoderPositions = 448;
// Live activations of an encoder layer in units of positions x hidden x
// 2 bytes: input, norm, q/k/v (3), attention output, MLP 4x (4) and its
// GELU (4), output: 14, rounded up to 16.
constexpr double kEncoderActivationWidths = 16;

// Fixed time per decoder layer per token in eager transformers generate():
// fitted to Whisper large-v3 at 53x real time on an RTX 5090 (fp16, batch
// 1, LibriSpeech utterances of 7.4 s on average; Hugging Face dataset
// witcheer/sovereign-asr-bench, board.csv), with the bandwidth and encoder
// terms of this file. large-v3-turbo on the same board (117x) checks it.
// Engines with CUDA graphs keep pipeline_rates.cpp's figure.
constexpr double kEagerDecoderLayerOverheadS = 64e-6;

double paramsOf(const ModelSpec& m, ComponentRole role) { return componentParamsOf(m, role); }

double decoderLayerOverheadS(const Scenario& s, const PipelineRates& r) {
    const bool graphs = runtimeOf(s.engine) == Engine::Vllm || runtimeOf(s.engine) == Engine::Sglang || runtimeOf(s.engine) == Engine::TensorrtLlm;
    return graphs ? r.layerOverheadS : kEagerDecoderLayerOverheadS;
}

}  // namespace

PipelineMemory asrMemory(const Scenario& s, const WorkloadInputs& in, double bytesPerWeight) {
    const ModelSpec& m = s.model;
    const WorkloadShape& w = m.workloadShape;
    double params = 0;
    for (const PipelineComponent& c : w.components) params += static_cast<double>(c.params);
    const double streams = static_cast<double>(s.batch);
    const double positions = w.windowSeconds > 0 ? w.windowSeconds * w.framesPerAudioSecond
                                                  : in.audioSeconds * w.framesPerAudioSecond;
    PipelineMemory mem;
    mem.weightsGiB = params * bytesPerWeight / kBytesPerGiBWorkload;
    mem.activationsGiB = streams * positions * w.encoderHidden * kEncoderActivationWidths * 2.0 / kBytesPerGiBWorkload;
    if (w.decoder == AsrDecoder::Autoregressive) {
        // Cross-attention K/V of the encoder output (cached once per window)
        // and the self-attention cache, 16-bit, per stream.
        const double perLayer = 2.0 * (positions + kMaxDecoderPositions) * w.decoderHidden * 2.0;
        mem.kvCacheGiB = streams * w.decoderLayers * perLayer / kBytesPerGiBWorkload;
    }
    return mem;
}

PipelineTime asrTime(const Scenario& s, const WorkloadInputs& in, bool withExplain) {
    const ModelSpec& m = s.model;
    const WorkloadShape& w = m.workloadShape;
    const PipelineRates r = pipelineRates(s);
    const double streams = static_cast<double>(s.batch);
    const double audio = in.audioSeconds;
    const bool windowed = w.windowSeconds > 0;
    // Whisper pads every window to 30 s: the encoder cost is per window.
    const double windows = windowed ? std::ceil(audio / w.windowSeconds) : 1;
    const double positions = (windowed ? w.windowSeconds : audio) * w.framesPerAudioSecond;
    const double encoderParams = paramsOf(m, ComponentRole::Encoder);
    const double encoderFlops = streams * 2.0 * encoderParams * positions;
    const double encoderAttention = streams * 4.0 * w.encoderLayers * positions * positions * w.encoderHidden;
    const double encoderBytes =
        streams * elementwisePasses(s) * positions * w.encoderLayers * w.encoderHidden * 2.0;
    const double encoderS = windows * (encoderFlops / r.matmulFlopsPerS + encoderAttention / r.attentionFlopsPerS +
                                       encoderBytes / r.bandwidthBytesPerS + w.encoderLayers * r.layerOverheadS);

    const double decoderParams = paramsOf(m, ComponentRole::Decoder);
    const double tokens = audio * kTokensPerAudioSecond;  // per stream
    double decoderS = 0;
    if (w.decoder == AsrDecoder::Autoregressive) {
        // One step per token for all streams at once: the decoder's weights
        // are read once, each stream's cross-attention K/V once, or the
        // matmuls bind at large batch (pipeline_rates.cpp fractions).
        const double bandwidth = r.weightStreamBytesPerS;
        const double weightBytes = decoderParams * bytesPerWeightOf(s);
        const double crossKvBytes = streams * w.decoderLayers * 2.0 * positions * w.decoderHidden * 2.0;
        const double readS = bandwidth > 0 ? (weightBytes + crossKvBytes) / bandwidth : 0;
        const double computeS = streams * 2.0 * decoderParams / r.matmulFlopsPerS;
        const double stepS = std::max(readS, computeS) + w.decoderLayers * decoderLayerOverheadS(s, r);
        decoderS = tokens * stepS;
    } else if (decoderParams > 0) {
        // Non-autoregressive decoder (Paraformer): one pass over the tokens.
        decoderS = streams * 2.0 * decoderParams * tokens / r.matmulFlopsPerS + w.decoderLayers * r.layerOverheadS;
    }
    PipelineTime t;
    t.seconds = encoderS + decoderS;
    if (withExplain) {
        t.explain.push_back({"encoder_s",
                             std::to_string(static_cast<long long>(windows)) + " window(s) x (2 x encoder weights x " +
                                 std::to_string(static_cast<long long>(positions)) +
                                 " positions + attention + elementwise passes) for " +
                                 std::to_string(s.batch) + " stream(s)",
                             encoderS});
        t.explain.push_back({"decoder_s",
                             w.decoder == AsrDecoder::Autoregressive
                                 ? "audio seconds x 3.8 transcript tokens/s steps, each reading the decoder's weights "
                                   "and every stream's cross-attention K/V (or compute-bound at large batch) plus a "
                                   "fixed time per layer"
                                 : "one non-autoregressive pass: 2 x decoder weights x tokens",
                             decoderS});
    }
    return t;
}

}  // namespace caliper::workloads
