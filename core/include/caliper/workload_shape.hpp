#pragma once
// Models that are not LLMs (docs/CONTRACT.md "Workloads"): what a catalog entry
// says about them, what a request asks of them, and the figures they report
// instead of tokens/s. Plain data, so model.hpp, scenario.hpp and result.hpp
// can hold it; the arithmetic lives in core/src/workloads/.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace caliper {

enum class WorkloadKind { Llm, Asr, Embedding, DiffusionImage, DiffusionVideo };
const char* toString(WorkloadKind kind);  // "llm", "asr", "embedding", "diffusion-image", "diffusion-video"

// The networks of a pipeline, each loaded on the GPU with its own weights.
enum class ComponentRole { Encoder, Decoder, Denoiser, TextEncoder, Vae };
const char* toString(ComponentRole role);  // "encoder", "decoder", "denoiser", "text_encoder", "vae"

struct PipelineComponent {
    std::string name;  // "t5-xxl"
    ComponentRole role = ComponentRole::Denoiser;
    std::int64_t params = 0;
};

// How an ASR decoder turns encoder frames into text.
enum class AsrDecoder { Autoregressive, NonAutoregressive, Ctc };

// The catalog's "workload_shape" (data/README.md). Only what the figures
// need; which keys a kind requires is in core/src/workloads/shape_json.cpp.
struct WorkloadShape {
    std::vector<PipelineComponent> components;
    // asr
    double framesPerAudioSecond = 0;  // encoder positions per second of audio
    double windowSeconds = 0;         // fixed encoder window (Whisper: 30 s); 0 = the whole audio at once
    AsrDecoder decoder = AsrDecoder::Ctc;
    int encoderLayers = 0;
    int encoderHidden = 0;
    int decoderLayers = 0;
    int decoderHidden = 0;
    // diffusion (image and video)
    int denoiserLayers = 0;   // attention layers of the denoising transformer
    int denoiserHidden = 0;   // attention width (heads x head_dim)
    double tokenParams = 0;   // weights each token passes through per forward (matmul FLOPs = 2 x this)
    int latentChannels = 0;
    int vaeScale = 0;          // pixels per latent position, each side
    int vaeTemporalScale = 1;  // frames per latent frame after the first (video)
    int patchSize = 0;         // latent positions per token, each side
    int textTokens = 0;        // text-encoder tokens the denoiser attends to
    int guidanceForwards = 1;  // 2 with classifier-free guidance, 1 when guidance is distilled
    int defaultSteps = 0;
    int defaultWidth = 0;
    int defaultHeight = 0;
    int defaultFrames = 0;                 // video
    double vaeDecodeGflopsPerMegapixel = 0;  // per output frame
};

// Request keys of the non-LLM workloads (docs/CONTRACT.md "Scenario"); an empty
// optional takes the model's default.
struct WorkloadRequest {
    double audioSeconds = 30;  // length of each audio stream (Whisper's window)
    std::optional<int> imageWidth;
    std::optional<int> imageHeight;
    std::optional<int> steps;
    std::optional<int> videoFrames;
};

// The figures a non-LLM model reports (docs/CONTRACT.md "Result", `workload`).
struct AsrFigures {
    double audioSecondsPerS = 0;  // audio transcribed per second of wall time, all streams together
    double realtimeFactor = 0;    // processing seconds per second of audio for one stream (< 1: faster than real time)
};
struct EmbeddingFigures {
    double tokensPerS = 0;
    double sequencesPerS = 0;
};
struct ImageFigures {
    double secondsPerImage = 0;
    double imagesPerS = 0;
};
struct VideoFigures {
    double secondsPerVideo = 0;
};

struct WorkloadFigures {
    std::optional<AsrFigures> asr;
    std::optional<EmbeddingFigures> embedding;
    std::optional<ImageFigures> image;
    std::optional<VideoFigures> video;
};

}  // namespace caliper
