// Weight memory: the stored bytes of every tensor group in the scenario's
// format (methodology §1), and where a split places them.
#include <algorithm>

#include "caliper/model/formats.hpp"
#include "caliper/units.hpp"
#include "model/gguf_mix.hpp"
#include "memory/sizing.hpp"

namespace caliper::sizing {

namespace {

// Bits of the token table, the output matrix and the rest (norms, biases,
// routers, towers) next to the block linear layers.
struct SideBits {
    double embed = 16, head = 16, other = 16, extra = 16;
};

double linearBytes(const Scenario& s, const ModelShape& shape, SideBits& side, double& linearBits) {
    const LinearGroups& g = shape.groups;
    const WeightFormatInfo info = weightFormatInfo(s.weights);
    if (info.gguf) {
        const GgufBits b = ggufBits(s.weights, s.model, shape);
        side.embed = b.tokenEmbd;
        side.head = b.output;
        side.other = 32;  // GGUF keeps norms and biases in F32
        const double bits = g.q * b.q + g.k * b.k + g.v * b.v + g.o * b.o + g.gate * b.gate + g.up * b.up +
                            g.down * b.down + g.other * b.other;
        linearBits = g.total() > 0 ? bits / g.total() : b.q;
        return bits / 8;
    }
    if (s.weights == WeightFormat::Fp32) side = SideBits{32, 32, 32, 32};
    if (s.weights == WeightFormat::Mxfp4) {
        // gpt-oss stores only the routed experts in MXFP4; attention and the
        // rest stay bf16 (openai/gpt-oss model card). DeepSeek-V4's checkpoints
        // keep attention and shared experts in FP8 with 128x128 block scales
        // (config.json quantization_config beside expert_dtype fp4).
        const double denseBits = hasCompressedAttention(s.model) ? weightFormatInfo(WeightFormat::Fp8Block).linearBits : 16.0;
        const double dense = g.total() - g.expert;
        linearBits = g.total() > 0 ? (g.expert * info.linearBits + dense * denseBits) / g.total() : info.linearBits;
        return (g.expert * info.linearBits + dense * denseBits) / 8;
    }
    if (bnbSkipsFusedExperts(s)) {
        // The routed experts stay 16-bit; the other linear layers are quantized.
        const double bits = g.expert * 16 + (g.total() - g.expert) * info.linearBits;
        linearBits = g.total() > 0 ? bits / g.total() : info.linearBits;
        return bits / 8;
    }
    linearBits = info.linearBits;
    return g.total() * info.linearBits / 8;
}

}  // namespace

WeightParts weightParts(const Scenario& s, const ModelShape& shape, const ParamCounts& counts) {
    WeightParts w;
    SideBits side;
    const double linear = linearBytes(s, shape, side, w.linearBits);
    // prepare_model_for_kbit_training: `param.data = param.data.to(torch.float32)`
    // for every fp16/bf16 parameter that is not a Params4bit (int8 weights are
    // int8 already), so what the base keeps in 16 bits takes 32.
    if (upcastUnquantized(s)) side = SideBits{32, 32, 32, 32};
    const double table = shape.vocab * shape.hidden;
    const double positions = std::max(0.0, counts.embedding - table * (s.model.tiedEmbeddings ? 1 : 2));
    const double extraParams = double(std::max<std::int64_t>(0, s.model.extraParams));
    const double blockOther = std::max(0.0, shape.otherParams - extraParams);

    w.layerBytes = (linear + blockOther * side.other / 8) / shape.stackLayers;
    w.extraBytes = extraParams * side.extra / 8;
    if (s.engine == Engine::LlamaCpp && s.model.modality == "vision") {
        // A VLM's GGUF holds the language model only: convert_hf_to_gguf.py
        // writes the vision tower and projector to a separate mmproj file,
        // which llama-server and llama-mtmd-cli load only when given --mmproj
        // (tools/mtmd). Ollama loads its projector with the model
        // (llm/memory.go EstimateGPULayers adds projectorWeights) and keeps it.
        w.mmprojBytes = w.extraBytes;
        w.extraBytes = 0;
    }
    const double positionBytes = positions * side.extra / 8;  // learned positions are not quantized
    if (runtimeOf(s.engine) == Engine::LlamaCpp) {
        // llama.cpp keeps token_embd in host memory (the input layer always
        // runs on the CPU) and loads output.weight, or a copy of a tied table,
        // on the GPU that holds the last layers (llama-model.cpp).
        w.hostBytes = table * side.embed / 8;
        w.embedBytes = positionBytes;
        w.headBytes = table * side.head / 8;
        return w;
    }
    if (quantizedHead(s)) side.head = w.linearBits;
    w.embedBytes = table * side.embed / 8 + positionBytes;
    if (headSharesTable(s)) w.tiedHeadBytes = table * side.embed / 8;
    else w.headBytes = table * side.head / 8;
    return w;
}

double expertWeightBytes(const Inputs& in) {
    if (in.scenario->model.moe.experts <= 0) return 0;
    // gpt-oss MXFP4 stores exactly the experts at 4.25 bits; other formats
    // at the block average.
    const double bits = in.scenario->weights == WeightFormat::Mxfp4 ? weightFormatInfo(WeightFormat::Mxfp4).linearBits
                        : bnbSkipsFusedExperts(*in.scenario) ? 16.0
                                                             : in.weights().linearBits;
    return in.shape().groups.expert * bits / 8;
}

double expertLayerBytes(const Inputs& in) {
    const ModelSpec& m = in.scenario->model;
    if (m.moe.experts <= 0) return 0;
    const int moeLayers = std::max(0, (m.layers - std::max(0, m.moe.denseLayers)) / std::max(1, m.moe.layerInterval));
    if (moeLayers <= 0) return 0;
    return expertWeightBytes(in) / moeLayers;
}

double offloadedWeightBytes(const Inputs& in, const Layout& layout) {
    double bytes = layout.cpuMoeLayers > 0 ? layout.cpuMoeLayers * expertLayerBytes(in) : 0.0;
    const int layers = in.shape().stackLayers;
    if (layout.gpuLayers >= 0 && layout.gpuLayers < layers) {
        bytes += (layers - layout.gpuLayers) * in.weights().layerBytes + in.weights().headBytes + in.weights().tiedHeadBytes;
    }
    return bytes;
}

double stageWeightBytes(const Inputs& in, const Stage& stage) {
    const WeightParts& w = in.weights();
    double bytes = stage.layers * w.layerBytes;
    if (stage.first) bytes += w.embedBytes + w.extraBytes;
    if (stage.last) bytes += w.headBytes + (stage.first ? 0 : w.tiedHeadBytes);
    return bytes;
}

double weightBytes(const Inputs& in, const Layout& layout, const Stage& stage, const Explain& ex) {
    double bytes = stageWeightBytes(in, stage) / layout.tp;
    // --n-cpu-moe: those layers' routed experts stay in host RAM.
    if (layout.cpuMoeLayers > 0) bytes = std::max(0.0, bytes - layout.cpuMoeLayers * expertLayerBytes(in) / layout.pp);
    const bool sharded = layout.shardedStates && layout.dp > 1;
    if (sharded) bytes = bytes / layout.dp + 2.0 * in.shape().layerParams * in.weights().linearBits / 8;
    if (ex.on()) {
        const Scenario& s = *in.scenario;
        ex.add("weights_gib",
               [&] { return fmt("%.0f block layers x %.3f GiB (linear layers at %.3f bits/weight in %s) + embeddings %.3f GiB + "
                   "lm_head %.3f GiB%s%s, on the fullest GPU (%.1f layers)%s",
                   double(in.shape().stackLayers), bytesToGiB(in.weights().layerBytes), in.weights().linearBits,
                   toString(s.weights), bytesToGiB(in.weights().embedBytes + in.weights().extraBytes),
                   bytesToGiB(in.weights().headBytes + in.weights().tiedHeadBytes),
                   layout.tp > 1 ? fmt(", / tensor parallel %d", layout.tp).c_str() : "",
                   sharded ? fmt(", sharded over %d GPUs + two gathered layers", layout.dp).c_str() : "",
                   stage.layers,
                   in.weights().hostBytes > 0
                       ? fmt("; token_embd %.3f GiB stays in host RAM", bytesToGiB(in.weights().hostBytes)).c_str()
                       : "") +
                   (in.weights().mmprojBytes > 0
                        ? fmt("; vision tower %.3f GiB is in the separate mmproj file, loaded only with --mmproj "
                              "(not counted)", bytesToGiB(in.weights().mmprojBytes))
                        : std::string()) +
                   (bnbSkipsFusedExperts(s) ? "; the routed experts stay 16-bit: transformers v5 keeps them as 3D parameters, "
                                              "which bitsandbytes' loading (nn.Linear only) does not quantize"
                                            : ""); },
               bytesToGiB(bytes));
    }
    return bytes;
}

}  // namespace caliper::sizing
