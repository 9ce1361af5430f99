#include "json/request/workload_request_json.hpp"

#include "caliper/workloads/workloads.hpp"

namespace caliper::io {

namespace {

// Bounds: a day of audio per stream; image sides from 64 px (one 16-px
// latent patch x 4) to 8,192 px; up to 1,000 sampling steps and frames.
constexpr double kMinAudioSeconds = 0.1;
constexpr double kMaxAudioSeconds = 86400;
constexpr std::int64_t kMinSide = 64;
constexpr std::int64_t kMaxSide = 8192;
constexpr std::int64_t kMaxSteps = 1000;
constexpr std::int64_t kMaxFrames = 1000;

std::optional<int> side(ObjectReader& r, const char* key) {
    const std::optional<std::int64_t> v = r.optionalInteger(key, kMinSide, kMaxSide);
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

}  // namespace

void readWorkloadKeys(Scenario& s, ObjectReader& r) {
    WorkloadRequest& q = s.workloadRequest;
    q.audioSeconds = r.numberOr("audio_seconds", q.audioSeconds, kMinAudioSeconds, kMaxAudioSeconds);
    q.imageWidth = side(r, "image_width");
    q.imageHeight = side(r, "image_height");
    if (const auto steps = r.optionalInteger("steps", 1, kMaxSteps)) q.steps = static_cast<int>(*steps);
    if (const auto frames = r.optionalInteger("video_frames", 1, kMaxFrames)) q.videoFrames = static_cast<int>(*frames);
    // An embedding model reads its input and writes nothing: no output tokens.
    if (s.model.workload == WorkloadKind::Embedding && !r.has("output_tokens")) s.outputTokens = 0;
}

void writeWorkloadKeys(const Scenario& s, Json& echo) {
    const WorkloadInputs in = workloadInputs(s);
    switch (s.model.workload) {
        case WorkloadKind::Asr: echo["audio_seconds"] = in.audioSeconds; break;
        case WorkloadKind::DiffusionVideo: echo["video_frames"] = in.frames; [[fallthrough]];
        case WorkloadKind::DiffusionImage:
            echo["image_width"] = in.width;
            echo["image_height"] = in.height;
            echo["steps"] = in.steps;
            break;
        case WorkloadKind::Embedding:
        case WorkloadKind::Llm: break;
    }
}

}  // namespace caliper::io
