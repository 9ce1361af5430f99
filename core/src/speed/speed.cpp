// estimateSpeed: picks the models that apply to the task. Inference gives
// decode, prefill and time to first token; fine-tuning and pre-training give
// training throughput.
#include "caliper/speed/speed.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "memory/sizing.hpp"
#include "serving/step_model.hpp"
#include "speed/efficiency.hpp"
#include "speed/speed_parts.hpp"

namespace caliper {

namespace {

bool usable(const Scenario& scenario) {
    const ModelSpec& model = scenario.model;
    return model.layers > 0 && model.hiddenSize > 0 && scenario.gpu.bandwidthGBps > 0;
}

void warnLinks(const ServingLayout& layout, const Scenario& scenario, SpeedEstimate& out) {
    if (layout.tp > 1 && std::string_view(layout.tpLink.name).substr(0, 4) == "PCIe") {
        out.warnings.push_back({"tp_over_pcie", std::string("tensor parallelism over ") + layout.tpLink.name +
                                                    ": two all-reduces per layer per token slow decoding"});
    }
    if (layout.tp > std::max(1, scenario.gpu.gpusPerNode)) {
        out.warnings.push_back({"tp_across_nodes", "tensor-parallel group spans servers; keep it within one node"});
    }
    if (layout.pp > 1 && layout.microbatches == 1) {
        out.warnings.push_back({"layer_split_no_speedup",
                                "layer split runs the devices one after another: it adds memory, not decode speed"});
    }
}

}  // namespace

ServingLayout servingLayout(const Scenario& scenario, const Plan& plan) {
    ServingLayout layout;
    layout.tp = std::max(1, plan.tp);
    layout.pp = std::max(1, plan.pp);
    layout.replicas = std::max(1, plan.dp);
    const int covered = layout.tp * layout.pp * layout.replicas;
    if (covered < plan.gpuCount) {
        // A plan that names only its strategy: spread the rest the way it says.
        const int rest = plan.gpuCount / covered;
        if (plan.strategy == Strategy::Tensor) layout.tp *= rest;
        else if (plan.strategy == Strategy::Pipeline || plan.strategy == Strategy::LayerSplit) layout.pp *= rest;
        else if (plan.strategy == Strategy::Ddp) layout.replicas *= rest;
    }
    layout.sequences = std::max(1.0, double(std::max<std::int64_t>(1, scenario.batch)) / layout.replicas);
    layout.microbatches = plan.strategy == Strategy::Pipeline ? int(std::min<double>(layout.pp, layout.sequences)) : 1;
    // The links are read only where a group talks over them.
    const int perNode = std::max(1, scenario.gpu.gpusPerNode);
    if (layout.tp > 1) layout.tpLink = groupLink(scenario, layout.tp, layout.tp > perNode);
    if (layout.pp > 1) layout.stageLink = groupLink(scenario, 2, layout.tp * layout.pp > perNode);
    return layout;
}

namespace {

// llama.cpp offload: weights kept in host RAM are read by the CPU at host
// bandwidth every token. llama.cpp reaches about 3/4 of the peak there
// (llama.cpp PR #1642: M1 CPU 53.3 of 68.2 GB/s; issue #11744: dual EPYC
// Turin, Llama-3.1-70B f16 at 4.31 t/s = 608 of 819 GB/s).
constexpr double kHostBandwidthFraction = 0.75;
// ggml-cuda's offload_op: a matmul of a host-resident weight over at least
// 32 tokens (min_batch_size = 32; ne[1] of MUL_MAT, ne[2] of MUL_MAT_ID)
// runs on the GPU after the weight is copied over PCIe; smaller ones run
// on the CPU. The copy happens once per micro-batch (llama.cpp n_ubatch
// default 512).
constexpr double kGpuOffloadMinTokens = 32;
constexpr double kUbatchTokens = 512;

// What the host-resident part costs for a step of `tokens` tokens.
struct HostStep {
    double seconds = 0;
    double gpuShare = 1;  // share of the GPU's own step time still spent (the rest is on the CPU)
    bool copied = false;  // weights copied to the GPU over PCIe (batches of 32+ tokens)
    double copies = 0, readBytes = 0, readS = 0, flops = 0, computeS = 0;
};

struct HostPart {
    const Scenario& s;
    const sizing::Inputs in;
    const sizing::Layout layout;
    double hostBytes = 0;

    HostPart(const Scenario& scenario, const Plan& plan)
        : s(scenario), in(sizing::prepare(scenario)), layout(sizing::layoutOf(plan)) {
        hostBytes = sizing::offloadedWeightBytes(in, layout);
    }
    int cpuLayers() const { return layout.gpuLayers >= 0 ? std::max(0, in.shape().stackLayers - layout.gpuLayers) : 0; }
    // Host-resident bytes a step touches where a share `active` of each MoE
    // layer's experts is used, and the same over the whole model.
    std::pair<double, double> touched(double active) const {
        const sizing::ModelShape& sh = in.shape();
        const double expertBytes = sizing::expertLayerBytes(in);
        const int moeLayers = s.model.moe.experts > 0 ? std::max(0, (s.model.layers - std::max(0, s.model.moe.denseLayers)) /
                                                                          std::max(1, s.model.moe.layerInterval))
                                                      : 0;
        const double untouchedPerLayer = expertBytes * moeLayers / std::max(1, sh.stackLayers) * (1 - active);
        const double perLayer = std::max(0.0, in.weights().layerBytes - untouchedPerLayer);
        const double head = in.weights().headBytes + in.weights().tiedHeadBytes;
        const int cpu = cpuLayers();
        const double host = cpu * perLayer + (cpu > 0 ? head : 0) + layout.cpuMoeLayers * expertBytes * active;
        return {host, sh.stackLayers * perLayer + head};
    }
    // tokens: tokens in the step; context: mean attended positions per token.
    HostStep step(double tokens, double context) const {
        HostStep h;
        const sizing::ModelShape& sh = in.shape();
        if (tokens >= kGpuOffloadMinTokens && s.host.pcieGBps > 0) {
            h.copied = true;
            h.copies = std::ceil(tokens / kUbatchTokens);
            h.seconds = h.copies * hostBytes / (s.host.pcieGBps * 1e9);
            return h;
        }
        const double perToken = sh.experts > 0 ? std::min(1.0, double(sh.topK) / sh.experts) : 1.0;
        const auto [read, total] = touched(sh.experts > 0 ? std::min(1.0, tokens * perToken) : 1.0);
        h.readBytes = read;
        h.gpuShare = total > 0 ? std::clamp(1 - read / total, 0.0, 1.0) : 1.0;
        h.readS = read / (kHostBandwidthFraction * s.host.memoryBandwidthGBps * 1e9);
        // 2 FLOPs per active host-resident weight per token (bytes back to
        // weights at the linear layers' bits), plus attention QK^T and PV
        // (2 x 2 x context x q width) in the layers on the CPU.
        const double activeParams = touched(perToken).first * 8 / std::max(1.0, in.weights().linearBits);
        h.flops = tokens * (2 * activeParams + cpuLayers() * 4 * context * sh.qDim);
        h.computeS = s.host.cpuTflops > 0 ? h.flops / (s.host.cpuTflops * 1e12) : 0;
        h.seconds = std::max(h.readS, h.computeS);
        return h;
    }
    std::string describe(const HostStep& h) const {
        if (h.copied) {
            return sizing::fmt("%.0f micro-batch(es) of up to 512 tokens copy %.3f GB of host-resident weights over PCIe at "
                               "%.1f GB/s (ggml runs matmuls of 32+ tokens on the GPU)",
                               h.copies, hostBytes / 1e9, s.host.pcieGBps);
        }
        std::string cpu = s.host.cpuTflops > 0
                              ? sizing::fmt("; CPU compute %.1f GFLOP at %.3f TFLOPS peak FP32 (%s) takes %.3f ms", h.flops / 1e9,
                                            s.host.cpuTflops, s.host.cpuBasis, h.computeS * 1e3)
                              : std::string("; CPU compute rate unknown (") + s.host.cpuBasis + "): not counted";
        return sizing::fmt("%.3f GB of host-resident weights read per step at 0.75 x %.1f GB/s host bandwidth "
                           "(%.3f ms)",
                           h.readBytes / 1e9, s.host.memoryBandwidthGBps, h.readS * 1e3) +
               cpu + sizing::fmt("; the slower counts; the GPUs do the other %.0f%%", h.gpuShare * 100);
    }
};

void addHostWork(const Scenario& s, const Plan& plan, bool withExplain, bool withWarnings, SpeedEstimate& out) {
    const HostPart host(s, plan);
    if (host.hostBytes <= 0) return;
    const double batch = double(std::max<std::int64_t>(1, s.batch));
    bool computeBound = false;
    // Which link bounds the host-resident part: the decode step's where
    // there is one, else the prompt's (HostPart::step: a step of 32+ tokens
    // copies the weights over PCIe, a smaller one reads them on the CPU).
    std::optional<bool> copied;
    if (out.decodeTokensPerS && *out.decodeTokensPerS > 0 && s.host.memoryBandwidthGBps > 0) {
        const double stepS = batch / *out.decodeTokensPerS;
        const double context = double(s.promptTokens) + double(s.outputTokens) / 2;
        const HostStep h = host.step(batch, context);
        computeBound = computeBound || h.computeS > h.readS;
        copied = h.copied;
        out.decodeTokensPerS = batch / (stepS * h.gpuShare + h.seconds);
        if (withExplain) out.explain.push_back({"decode_host_ms", host.describe(h), h.seconds * 1e3});
    }
    const double prompt = double(s.promptTokens) * batch;
    if (out.prefillTokensPerS && *out.prefillTokensPerS > 0 && prompt > 0 && s.host.memoryBandwidthGBps > 0) {
        const double gpuS = prompt / *out.prefillTokensPerS;
        const HostStep h = host.step(prompt, double(s.promptTokens) / 2);
        computeBound = computeBound || h.computeS > h.readS;
        if (!copied) copied = h.copied;
        const double prefillS = gpuS * h.gpuShare + h.seconds;
        out.prefillTokensPerS = prompt / prefillS;
        if (out.timeToFirstTokenS) *out.timeToFirstTokenS += prefillS - gpuS;
        if (withExplain) out.explain.push_back({h.copied ? "prefill_host_copy_s" : "prefill_host_cpu_s", host.describe(h), h.seconds});
    }
    if (!withWarnings) return;
    const double hostGiB = host.hostBytes / (1024.0 * 1024 * 1024);
    if (copied.value_or(false)) {
        out.warnings.push_back({"cpu_offload_pcie_bound",
                                sizing::fmt("%.1f GiB of weights stay in host RAM: at %.0f or more tokens a step llama.cpp "
                                            "copies them to the GPU over PCIe (%.1f GB/s) once per 512-token micro-batch, "
                                            "and that copy bounds the step",
                                            hostGiB, kGpuOffloadMinTokens, s.host.pcieGBps)});
    } else {
        out.warnings.push_back({"cpu_offload_slow", sizing::fmt("%.1f GiB of weights stay in host RAM and run on the CPU: "
                                                                "decode is bounded by host memory bandwidth",
                                                                hostGiB)});
    }
    if (computeBound) {
        out.warnings.push_back({"cpu_offload_compute_bound",
                                sizing::fmt("the CPU's compute bounds the host-resident layers at this batch: assumed "
                                            "%.3f TFLOPS peak FP32 (%s; host.cpu_tflops sets it)",
                                            s.host.cpuTflops, s.host.cpuBasis)});
    }
}

// vLLM and SGLang decode with the serving step model. The public decode
// rows hold no vLLM or SGLang measurement (llama.cpp and TensorRT-LLM only),
// while the serving rows (public-v2.jsonl, aiconfigurator) measure both
// engines' decode steps at concurrency 1-512: the same step, CUDA graphs,
// per-layer kernel time and the host's scheduling and sampling between steps
// (vLLM's V1 engine core runs them the same way offline as behind its HTTP
// server; the server's request latency is in TTFT only). So both figures
// come from one step model and agree at one user; TensorRT-LLM keeps the
// decode path its own decode rows calibrate (within 2% of its serving step).
// `engine`: engineRates of the scenario (its peak is matmulPeak's).
bool decodesWithStepModel(const Scenario& s, const Plan& plan, const EngineRates& engine) {
    const Engine e = runtimeOf(s.engine);
    if (e != Engine::Vllm && e != Engine::Sglang) return false;
    if (plan.gpuLayers >= 0 || plan.cpuMoeLayers > 0) return false;
    return s.model.layers > 0 && s.gpu.bandwidthGBps > 0 && engine.peak.tflops > 0;
}

void decodeWithStepModel(const Scenario& s, const Plan& plan, const Workload& work, bool withExplain,
                         SpeedEstimate& out) {
    const serving::StepModel m = serving::decodeStepModel(s, plan, work);
    const double batch = double(std::max<std::int64_t>(1, s.batch));
    const double replicas = std::max(1, m.layout.replicas);
    const double decodes = std::max(1.0, batch / replicas);
    const double context = double(std::max<std::int64_t>(0, s.promptTokens)) +
                           double(std::max<std::int64_t>(1, s.outputTokens)) / 2.0;
    // Speculative decoding verifies `accepted` tokens per request in one
    // pass and pays the draft per drafted token (steady_state.cpp decodeStepS).
    const double accepted = s.serving.speculative ? std::max(1.0, s.serving.speculative->acceptedTokensPerStep) : 1.0;
    const double stepS = accepted > 1.0 ? m.stepS(decodes * accepted, context, 0, 0) * (1.0 + m.draftCostShare * accepted)
                                        : m.stepS(decodes, context, 0, 0);
    if (!(stepS > 0) || !std::isfinite(stepS)) return;
    out.decodeTokensPerS = replicas * decodes * accepted / stepS;
    if (!withExplain) return;
    auto& ex = out.explain;
    const auto replaced = [](const ExplainTerm& t) {
        return t.term == "decode_step_ms" || t.term == "decode_fixed_ms" || t.term == "decode_tokens_per_s";
    };
    ex.erase(std::remove_if(ex.begin(), ex.end(), replaced), ex.end());
    ex.push_back({"decode_fixed_ms", "layers per stage x per-layer kernel time of the CUDA-graph step (serving step model)",
                  double(work.layers) / m.layout.pp * m.layerOverheadS * 1e3});
    ex.push_back({"decode_host_step_ms",
                  "engine host work per step: scheduling, input preparation, sampling (+ per running request); the "
                  "serving step model's, fitted on the serving rows",
                  (m.engine.stepOverheadS + m.engine.perSequenceOverheadS * decodes) * 1e3});
    ex.push_back({"decode_step_ms",
                  "the serving step model's decode step at the batch per replica and the mean context (the figure "
                  "serving's TPOT takes at one user)",
                  stepS * 1e3});
    ex.push_back({"decode_tokens_per_s", "replicas x sequences / step time", *out.decodeTokensPerS});
}

// The figures with the scenario's workload worked out (speedOf below).
SpeedEstimate speedWith(const Scenario& scenario, const Plan& plan, bool withExplain, bool withWarnings,
                        const Workload& work) {
    SpeedEstimate out;
    if (scenario.task == Task::Inference) {
        const ServingLayout layout = servingLayout(scenario, plan);
        const EngineRates engine = engineRates(scenario.engine, scenario.weights, scenario.gpu);
        // The step model replaces the decode figure; the decode path still
        // writes its terms (bytes read, achieved rates) where explained.
        const bool stepModelDecode = decodesWithStepModel(scenario, plan, engine);
        if (!stepModelDecode || withExplain) estimateDecode(scenario, engine, layout, work, withExplain, out);
        if (stepModelDecode) decodeWithStepModel(scenario, plan, work, withExplain, out);
        estimatePrefill(scenario, engine, layout, work, withExplain, out);
        if (withWarnings) warnLinks(layout, scenario, out);
        if (plan.gpuLayers >= 0 || plan.cpuMoeLayers > 0) addHostWork(scenario, plan, withExplain, withWarnings, out);
    } else {
        estimateTraining(scenario, plan, work, withExplain, out, withWarnings);
    }
    if (withWarnings && matmulPeak(scenario.engine, scenario.weights, scenario.gpu).tflops <= 0) {
        out.warnings.push_back({"no_tensor_rate", "the GPU has no listed compute rate: compute-bound figures are missing"});
    }
    return out;
}

// A matrix row holds its workload (`held`); otherwise it is worked out here.
// (Not an empty std::optional<Workload> for the held case: the compiler
// zero-fills its 144 bytes on every call, a tenth of a cell's speed time.)
SpeedEstimate speedOf(const Scenario& scenario, const Plan& plan, bool withExplain, bool withWarnings,
                      const ParamCounts* counts, const Workload* held = nullptr) {
    if (!usable(scenario)) {
        SpeedEstimate out;
        if (withWarnings) {
            out.warnings.push_back({"speed_unknown", "the model or GPU lacks the figures a speed estimate needs"});
        }
        return out;
    }
    if (held) return speedWith(scenario, plan, withExplain, withWarnings, *held);
    return speedWith(scenario, plan, withExplain, withWarnings, makeWorkload(scenario, counts));
}

}  // namespace

SpeedEstimate estimateSpeed(const Scenario& scenario, const Plan& plan, bool withExplain, const ParamCounts* counts) {
    return speedOf(scenario, plan, withExplain, true, counts);
}

SpeedEstimate speedFigures(const Scenario& scenario, const Plan& plan, const ParamCounts* counts) {
    return speedOf(scenario, plan, false, false, counts);
}

SpeedEstimate speedFigures(const Scenario& scenario, const Plan& plan, const Workload& work) {
    return speedOf(scenario, plan, false, false, nullptr, &work);
}

}  // namespace caliper
