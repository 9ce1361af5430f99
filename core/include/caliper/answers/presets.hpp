#pragma once
// The source articles' scenario table as presets: each sets a workload
// (task, method, model size band, context, batch) and an objective. The GPUs
// it gets come from the recommendation engine; the table's own picks are
// kept to compare with: recommend lists them beside its ranking
// (tests/unit/answers/test_presets.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caliper/catalog.hpp"
#include "caliper/answers/recommend.hpp"
#include "caliper/scenario.hpp"
#include "caliper/serving/serve.hpp"

namespace caliper {

// The article the scenario table comes from (its title, as published).
inline constexpr const char* kPresetSource = "分布式训练中的加速卡选择 (GPU choice for distributed training), table 不同任务场景的推荐选型";

struct Preset {
    std::string id;  // the page's preset ids: speech, lora, sft, pretrain, serving, multimodal
    std::string labelEn;
    std::string labelZh;
    Task task = Task::Inference;
    Method method = Method::Full;
    // Model size band in billions of parameters (0 = open end) and the size
    // the preset sizes for (the band's demanding end, see presets.cpp).
    double minParamsB = 0;
    double maxParamsB = 0;
    double referenceParamsB = 0;
    std::string modality;  // "" = any
    std::string modelId;   // the model sized for when the catalog has it; else the band rule below
    std::int64_t batch = 1;
    std::int64_t promptTokens = 0;  // inference
    std::int64_t outputTokens = 0;  // inference
    std::int64_t seqLen = 0;        // training
    std::optional<double> audioSeconds;  // speech: length of each audio stream
    std::optional<double> trainTokens;
    bool gradientCheckpointing = false;
    Objective objective = Objective::Cheapest;
    int maxGpus = 64;
    // Serving: the latency target every user gets; recommend then ranks with
    // serve's search (users = batch), as a service is sized.
    std::optional<Slo> slo;
    std::optional<double> maxTrainDays;  // training: the run length the preset plans for
    // The GPU classes the preset ranks (empty: every class), as
    // gpu_filter.classes reads them; a request that names its GPUs or its own
    // gpu_filter is not narrowed.
    std::vector<std::string> gpuClasses;
    std::string documentPicks;   // the article's "推荐GPU" cell
    std::string documentReason;  // the article's "理由" cell, in English
    // The catalog entries the cell's names cover, every form factor of a
    // name ("A100 40G": SXM4 and PCIe), so the answer can rank them beside
    // the engine's own picks.
    std::vector<std::string> documentPickGpus;
};

const std::vector<Preset>& presets();
const Preset* findPreset(std::string_view id);

// The catalog model a preset sizes for: its modelId when the catalog has it,
// else the model of the band (and modality) whose total parameters are
// closest to referenceParamsB; nullptr when the catalog has none.
const ModelSpec* presetModel(const Catalog& catalog, const Preset& preset);

}  // namespace caliper
