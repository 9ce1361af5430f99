// Preparation of a scenario for the memory model and the stages of a plan.
#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "caliper/memory/memory.hpp"
#include "memory/sizing.hpp"
#include "memory/training_bytes.hpp"

namespace caliper::sizing {

std::string fmt(const char* format, ...) {
    char buffer[512];
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    if (n < 0) return {};
    if (static_cast<size_t>(n) < sizeof buffer) return std::string(buffer, static_cast<size_t>(n));
    std::string text(static_cast<size_t>(n) + 1, '\0');
    va_start(args, format);
    std::vsnprintf(text.data(), text.size(), format, args);
    va_end(args);
    text.resize(static_cast<size_t>(n));
    return text;
}

ModelFigures modelFigures(const ModelSpec& model) {
    ModelFigures f;
    f.counts = countParams(model);
    f.shape = modelShape(model, f.counts);
    return f;
}

Inputs prepare(const Scenario& s) { return prepare(s, nullptr); }

void holdWeights(const Scenario& s, ModelFigures& figures) {
    const int engineKind = weightsKind(s);
    if (!figures.weightsKnown || figures.weightsFormat != s.weights || figures.weightsEngineKind != engineKind) {
        figures.weights = weightParts(s, figures.shape, figures.counts);
        figures.weightsFormat = s.weights;
        figures.weightsEngineKind = engineKind;
        figures.weightsKnown = true;
    }
    if (!figures.holdsWork(s)) {
        figures.work = makeWorkload(s, &figures.counts);
        figures.workWeights = s.weights;
        figures.workKv = s.kvCache;
        figures.workKnown = true;
    }
    if (s.engine == Engine::Ollama || figures.holdsKv(s)) return;
    figures.kv = kvTerms(s, figures.shape);
    figures.kvFormat = s.kvCache;
    figures.kvEngine = s.engine;
    figures.kvBatch = s.batch;
    figures.kvPromptTokens = s.promptTokens;
    figures.kvOutputTokens = s.outputTokens;
    figures.kvMaxModelLen = s.maxModelLen;
    figures.kvKnown = true;
}

namespace {

// The model's and the format's parts, read from the row's held figures
// where they match the scenario, else worked out into the inputs' own.
Inputs modelParts(const Scenario& s, const ModelFigures* held) {
    if (!held) {
        auto own = std::make_shared<Inputs::Parts>();
        own->counts = countParams(s.model);
        own->shape = modelShape(s.model, own->counts);
        own->weights = weightParts(s, own->shape, own->counts);
        own->kv = kvTerms(s, own->shape);
        return Inputs(&s, std::move(own));
    }
    const bool weightsHeld =
        held->weightsKnown && held->weightsFormat == s.weights && held->weightsEngineKind == weightsKind(s);
    const bool kvHeld = held->holdsKv(s);
    if (weightsHeld && kvHeld) return Inputs(&s, held->counts, held->shape, held->weights, held->kv);  // a matrix cell
    auto own = std::make_shared<Inputs::Parts>();
    own->counts = held->counts;
    own->shape = held->shape;
    own->weights = weightsHeld ? held->weights : weightParts(s, held->shape, held->counts);
    own->kv = kvHeld ? held->kv : kvTerms(s, held->shape);
    return Inputs(&s, std::move(own));
}

// PEFT's transformers-v5 MoE conversion (peft/utils/transformers_weight_conversion.py,
// _convert_peft_config_moe) maps the v4 targets gate_proj and up_proj onto the
// fused gate_up_proj at rank 2r (rank_pattern r x 2, alpha doubled), down_proj
// onto down_proj at rank r, and the router's gate onto gate.weight; a 3D
// target's lora_A is (r E) x d_in and lora_B d_out x (r E) (lora/layer.py
// ParamWrapper.update_layer). Against r (h + f) for each of gate, up and down
// of every expert, that adds 2 f per expert (2r (h + 2f) - 2r (h + f)) and the
// router's h + E, per MoE layer, in units of r. Caliper's H200 run of
// Qwen3-30B-A3B (validation/measured/h200-finetune-set3.jsonl, PEFT 0.21,
// transformers 5.17) counts 996,507,648 trainable parameters: exactly this.
double fusedExpertExtraDims(const ModelShape& sh, const Scenario& s) {
    if (!fusedExpertAdapters(s)) return 0;
    const double gateUp = sh.gated ? 2.0 * sh.expertFfn * sh.experts : 0.0;
    return double(sh.moeLayers) * (gateUp + sh.hidden + sh.experts);
}

// LoRA on all linear layers, sum of (d_in + d_out) by how the routed experts
// are reached (expertAdaptersOf).
// Fused: _convert_peft_config_moe remaps every target whose leaf name is one
// of the v4 expert names (gate_proj, up_proj, down_proj for the Qwen2-style
// types) to target_parameters and drops it from target_modules, so the
// nn.Linear MLPs that carry those names too, the dense layers' and the
// shared experts', are left without adapters; the shared expert's gate keeps
// its own name and its adapter. Caliper's H200 run of DeepSeek-V2-Lite
// (validation/measured/h200-finetune-set5.jsonl, PEFT 0.21, transformers 5.17)
// counts 358,994,944 trainable parameters: attention, routed experts and
// router only (see test_lora_mechanisms.cpp).
// Frozen: only the nn.Linear modules: attention, dense and shared MLPs, the
// shared expert's gate.
double allLinearLoraDims(const ModelShape& sh, const Scenario& s) {
    switch (expertAdaptersOf(s)) {
        case ExpertAdapters::Fused: {
            const double gate = s.model.moe.sharedExpertGate ? (sh.hidden + 1.0) * sh.moeLayers : 0.0;
            return sh.loraDimsAttention + sh.loraDimsRoutedExperts + gate + fusedExpertExtraDims(sh, s);
        }
        case ExpertAdapters::Frozen: return sh.loraDimsAllLinear - sh.loraDimsRoutedExperts;
        default: return sh.loraDimsAllLinear;
    }
}

}  // namespace

Inputs prepare(const Scenario& s, const ModelFigures* held) {
    Inputs in = modelParts(s, held);
    if (held && held->holdsWork(s)) in.work = &held->work;
    if (held) in.countShare = held->countShare;
    in.training = s.task != Task::Inference;
    in.lora = s.task == Task::Finetune && (s.method == Method::Lora || s.method == Method::Qlora);
    in.qlora = in.lora && s.method == Method::Qlora;
    if (in.lora) {
        // LoRA adds B (d_out x r) and A (r x d_in) to each adapted matrix:
        // r (d_in + d_out) parameters (LoRA §4).
        const double dims = s.lora.allLinear()                           ? allLinearLoraDims(in.shape(), s)
                            : s.lora.targets == LoraTargets::QueryValue ? in.shape().loraDimsQueryValue
                                                                        : in.shape().loraDimsAttention;
        in.adapterParams = double(std::max(1, s.lora.rank)) * dims;
    }
    in.trainableParams = in.lora ? in.adapterParams : in.counts().total;
    in.usableGiB = usableMemoryGiB(s);
    in.vllmLargeSampler = !in.training && runtimeOf(s.engine) == Engine::Vllm && vllmLargeSampler(s);
    if (in.training || runtimeOf(s.engine) == Engine::Transformers) prepareOverhead(s, in);
    if (in.training) {
        in.adapterBytesPerParam = adapterBytesPerParam(s);
        in.layerCopyBytesPerToken = layerCopyBytesPerToken(in);
    }
    return in;
}

double stageParams(const Inputs& in, const Stage& stage) {
    const double table = in.shape().vocab * in.shape().hidden;
    const bool tied = headSharesTable(*in.scenario);
    double params = stage.layers * in.shape().layerParams;
    if (stage.first) {
        params += in.counts().embedding - (tied ? 0 : table);  // input table and learned positions
        params += double(std::max<std::int64_t>(0, in.scenario->model.extraParams));
    }
    if (stage.last && (!tied || !stage.first)) params += table;  // lm_head, or the tied copy of a split
    return params;
}

}  // namespace caliper::sizing
