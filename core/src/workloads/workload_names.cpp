// The names of the workload kinds and pipeline roles, as docs/CONTRACT.md and
// data/README.md spell them.
#include "caliper/workload_shape.hpp"

namespace caliper {

const char* toString(WorkloadKind kind) {
    switch (kind) {
        case WorkloadKind::Asr: return "asr";
        case WorkloadKind::Embedding: return "embedding";
        case WorkloadKind::DiffusionImage: return "diffusion-image";
        case WorkloadKind::DiffusionVideo: return "diffusion-video";
        case WorkloadKind::Llm: break;
    }
    return "llm";
}

const char* toString(ComponentRole role) {
    switch (role) {
        case ComponentRole::Encoder: return "encoder";
        case ComponentRole::Decoder: return "decoder";
        case ComponentRole::TextEncoder: return "text_encoder";
        case ComponentRole::Vae: return "vae";
        case ComponentRole::Denoiser: break;
    }
    return "denoiser";
}

}  // namespace caliper

