#include "json/catalog/workload_shape_json.hpp"

#include <array>
#include <string>

namespace caliper::io {

namespace {

constexpr std::int64_t kMaxLayers = 10000;
constexpr std::int64_t kMaxHidden = 1000000;
constexpr std::int64_t kMaxParams = 100000000000000;  // 1e14, as extra_params
constexpr std::int64_t kMaxPixels = 16384;             // a side of an image or video frame
constexpr std::int64_t kMaxSteps = 1000;
constexpr std::int64_t kMaxComponents = 16;

constexpr std::array<WorkloadKind, 5> kKinds = {WorkloadKind::Llm, WorkloadKind::Asr, WorkloadKind::Embedding,
                                                WorkloadKind::DiffusionImage, WorkloadKind::DiffusionVideo};
constexpr std::array<ComponentRole, 5> kRoles = {ComponentRole::Encoder, ComponentRole::Decoder,
                                                 ComponentRole::Denoiser, ComponentRole::TextEncoder,
                                                 ComponentRole::Vae};

template <class E, std::size_t N>
E byName(const std::string& name, const std::array<E, N>& all) {
    for (E e : all) {
        if (name == toString(e)) return e;
    }
    return all[0];
}

const char* decoderName(AsrDecoder d) {
    switch (d) {
        case AsrDecoder::Autoregressive: return "autoregressive";
        case AsrDecoder::NonAutoregressive: return "non-autoregressive";
        case AsrDecoder::Ctc: break;
    }
    return "ctc";
}

int count(ObjectReader& r, const char* key, std::int64_t min, std::int64_t max) {
    return static_cast<int>(r.requiredInteger(key, min, max));
}

void readComponents(ObjectReader& shape, WorkloadShape& w, bool diffusion) {
    const Json* list = shape.raw("components");
    const std::string path = shape.pathOf("components");
    if (!list) fail("missing_key", path, "required key 'components' is missing");
    if (!list->is_array() || list->empty() || list->size() > kMaxComponents) {
        failType("invalid_value", path, "an array of 1 to 16 components", *list);
    }
    bool hasMain = false;
    for (std::size_t i = 0; i < list->size(); ++i) {
        ObjectReader c((*list)[i], childPath(path, i));
        PipelineComponent part;
        part.name = c.requiredString("name");
        if (part.name.empty()) fail("invalid_value", c.pathOf("name"), "expected a non-empty name");
        part.role = byName(c.requiredEnum("role", {"encoder", "decoder", "denoiser", "text_encoder", "vae"}), kRoles);
        part.params = c.requiredInteger("params", 1, kMaxParams);
        c.finish();
        hasMain = hasMain || part.role == (diffusion ? ComponentRole::Denoiser : ComponentRole::Encoder);
        w.components.push_back(part);
    }
    if (!hasMain) {
        fail("invalid_value", path, diffusion ? "a diffusion pipeline needs a component with role 'denoiser'"
                                              : "a speech model needs a component with role 'encoder'");
    }
}

void readAsr(ObjectReader& s, WorkloadShape& w) {
    readComponents(s, w, false);
    w.framesPerAudioSecond = s.requiredNumber("frames_per_audio_second", 1, 10000);
    w.windowSeconds = s.optionalNumber("window_seconds", 1, 3600).value_or(0);
    if (!s.raw("window_seconds")) fail("missing_key", s.pathOf("window_seconds"), "required key 'window_seconds' is missing (null: the whole audio at once)");
    const std::string decoder = s.requiredEnum("decoder", {"autoregressive", "non-autoregressive", "ctc"});
    w.decoder = decoder == "autoregressive" ? AsrDecoder::Autoregressive
                : decoder == "ctc"          ? AsrDecoder::Ctc
                                            : AsrDecoder::NonAutoregressive;
    w.encoderLayers = count(s, "encoder_layers", 1, kMaxLayers);
    w.encoderHidden = count(s, "encoder_hidden", 1, kMaxHidden);
    w.decoderLayers = count(s, "decoder_layers", 0, kMaxLayers);
    w.decoderHidden = count(s, "decoder_hidden", 0, kMaxHidden);
    bool hasDecoder = false;
    for (const PipelineComponent& c : w.components) hasDecoder = hasDecoder || c.role == ComponentRole::Decoder;
    if (w.decoder == AsrDecoder::Autoregressive && (!hasDecoder || w.decoderLayers < 1 || w.decoderHidden < 1)) {
        fail("invalid_value", s.pathOf("decoder"),
             "an autoregressive decoder needs a 'decoder' component and decoder_layers/decoder_hidden of at least 1");
    }
}

void readDiffusion(ObjectReader& s, WorkloadShape& w, bool video) {
    readComponents(s, w, true);
    w.denoiserLayers = count(s, "denoiser_layers", 1, kMaxLayers);
    w.denoiserHidden = count(s, "denoiser_hidden", 1, kMaxHidden);
    w.tokenParams = static_cast<double>(s.requiredInteger("token_params", 1, kMaxParams));
    w.latentChannels = count(s, "latent_channels", 1, 1024);
    w.vaeScale = count(s, "vae_scale", 1, 64);
    w.patchSize = count(s, "patch_size", 1, 16);
    w.textTokens = count(s, "text_tokens", 0, 100000);
    w.guidanceForwards = count(s, "guidance_forwards", 1, 2);
    w.defaultSteps = count(s, "default_steps", 1, kMaxSteps);
    w.defaultWidth = count(s, "default_width", 64, kMaxPixels);
    w.defaultHeight = count(s, "default_height", 64, kMaxPixels);
    w.vaeDecodeGflopsPerMegapixel = s.requiredNumber("vae_decode_gflops_per_megapixel", 1, 1e7);
    if (video) {
        w.vaeTemporalScale = count(s, "vae_temporal_scale", 1, 64);
        w.defaultFrames = count(s, "default_frames", 1, 10000);
    }
}

}  // namespace

void readWorkload(ObjectReader& entry, ModelSpec& model) {
    model.workload = byName(entry.enumOr("workload", "llm", {"llm", "asr", "embedding", "diffusion-image",
                                                             "diffusion-video"}),
                            kKinds);
    const bool needsShape = model.workload == WorkloadKind::Asr || model.workload == WorkloadKind::DiffusionImage ||
                            model.workload == WorkloadKind::DiffusionVideo;
    const Json* shape = entry.raw("workload_shape");
    const std::string path = entry.pathOf("workload_shape");
    if (!needsShape) {
        if (shape && !shape->is_null()) {
            fail("invalid_value", path, std::string("workload '") + toString(model.workload) + "' takes no workload_shape");
        }
        return;
    }
    if (!shape || shape->is_null()) {
        fail("missing_key", path, std::string("workload '") + toString(model.workload) + "' needs a workload_shape");
    }
    ObjectReader s(*shape, path);
    if (model.workload == WorkloadKind::Asr) readAsr(s, model.workloadShape);
    else readDiffusion(s, model.workloadShape, model.workload == WorkloadKind::DiffusionVideo);
    s.finish();
}

void writeWorkload(const ModelSpec& m, Json& entry) {
    if (m.workload == WorkloadKind::Llm) return;  // absent = llm, as in the catalog
    entry["workload"] = toString(m.workload);
    const WorkloadShape& w = m.workloadShape;
    if (m.workload != WorkloadKind::Asr && m.workload != WorkloadKind::DiffusionImage &&
        m.workload != WorkloadKind::DiffusionVideo) {
        entry["workload_shape"] = nullptr;
        return;
    }
    Json components = Json::array();
    for (const PipelineComponent& c : w.components) {
        components.push_back({{"name", c.name}, {"role", toString(c.role)}, {"params", c.params}});
    }
    Json shape{{"components", components}};
    if (m.workload == WorkloadKind::Asr) {
        shape["frames_per_audio_second"] = w.framesPerAudioSecond;
        shape["window_seconds"] = w.windowSeconds > 0 ? Json(w.windowSeconds) : Json(nullptr);
        shape["decoder"] = decoderName(w.decoder);
        shape["encoder_layers"] = w.encoderLayers;
        shape["encoder_hidden"] = w.encoderHidden;
        shape["decoder_layers"] = w.decoderLayers;
        shape["decoder_hidden"] = w.decoderHidden;
    } else {
        shape["denoiser_layers"] = w.denoiserLayers;
        shape["denoiser_hidden"] = w.denoiserHidden;
        shape["token_params"] = static_cast<std::int64_t>(w.tokenParams);
        shape["latent_channels"] = w.latentChannels;
        shape["vae_scale"] = w.vaeScale;
        shape["patch_size"] = w.patchSize;
        shape["text_tokens"] = w.textTokens;
        shape["guidance_forwards"] = w.guidanceForwards;
        shape["default_steps"] = w.defaultSteps;
        shape["default_width"] = w.defaultWidth;
        shape["default_height"] = w.defaultHeight;
        shape["vae_decode_gflops_per_megapixel"] = w.vaeDecodeGflopsPerMegapixel;
        if (m.workload == WorkloadKind::DiffusionVideo) {
            shape["vae_temporal_scale"] = w.vaeTemporalScale;
            shape["default_frames"] = w.defaultFrames;
        }
    }
    entry["workload_shape"] = shape;
}

}  // namespace caliper::io
