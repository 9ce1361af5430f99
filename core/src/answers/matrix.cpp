#include "caliper/answers/matrix.hpp"

#include <algorithm>
#include <utility>

#include "caliper/cost/cost.hpp"
#include "flash_attention_default.hpp"
#include "caliper/plan/estimate.hpp"
#include "calibration/ranges.hpp"
#include "caliper/memory/memory.hpp"
#include "caliper/speed/speed.hpp"
#include "plan/prepared.hpp"
#include "caliper/workloads/workloads.hpp"
#include "plan/planner.hpp"
#include "memory/sizing.hpp"
#include "caliper/serving/estimate_serving.hpp"
#include "caliper/serving/serve.hpp"
#include "serving/capacity.hpp"
#include "serving/serving_formats.hpp"
#include "serving/step_model.hpp"
#include "speed/efficiency.hpp"

namespace caliper {

namespace {

// The figures of one cell for a scenario whose model and GPU are set: the
// figures estimate() gives at the fewest GPUs that fit, without its text
// (names, warnings, explanations), and with the scenario prepared once.
// `costs` (may be null) is the GPU column's cost basis.
MatrixCell pipelineCellOf(const Scenario& s, int maxGpus, const CostBasis* costs) {
    const EstimateResult r = estimatePipeline(s, EstimateDetail{false, false, false, false}, costs);
    MatrixCell cell;
    cell.gpusNeeded = r.gpusNeeded;
    cell.fitsOne = r.gpusNeeded && *r.gpusNeeded == 1;
    cell.totalGiB = r.memory.totalGiB;
    cell.strategy = r.plan.strategy;
    cell.nodes = r.plan.nodes;
    if (!cell.gpusNeeded || *cell.gpusNeeded > maxGpus) return cell;
    cell.status = cell.fitsOne ? CellStatus::Fits : CellStatus::FitsMulti;
    cell.gpuCount = r.plan.gpuCount;
    cell.usdPerHour = r.usdPerHour;
    cell.workloadFigure = workloadCellFigure(s.model, r.workloadFigures).value;
    return cell;
}

// A scenario the planner resolved from the column's holds the column's GPU,
// copied: it reads the column's held rates and step constants.
struct SameGpu {
    SameGpu(const GpuSpec& original, const GpuSpec& copy) : rates(original, copy), steps(original, copy) {}
    HeldGpuRates::Copy rates;
    serving::HeldStepConstants::Copy steps;
};

// The users one replica of the cell's plan serves within the SLO: the
// serve search's own bisection (serving/capacity.cpp) on the same plan and
// memory. Cells whose engine does not batch continuously carry none.
// Where the request left a 16-bit format open on a GPU with FP8, the same
// GPU count is tried with every open format in FP8 too (the last of the
// serve search's formats: the most users of them, FP8 weights halving the
// bytes per step and FP8 KV doubling the pool), and the cell keeps the
// larger figure, marked `fp8`.
// `low` receives the users within the SLO at the slow end of the bands
// (lowAtSlowEnd below).
std::optional<double> usersAtSlo(const Scenario& request, const planner::Choice& choice, const Slo& slo,
                                 const sizing::ModelFigures* held, bool& fp8, CellFigure& low) {
    fp8 = false;
    low = std::nullopt;
    if (!continuousBatching(request)) return std::nullopt;
    Scenario s = planner::resolved(request, choice);
    const SameGpu resolvedGpu(request.gpu, s.gpu);
    if (!servingFiguresKnown(s)) return std::nullopt;  // no bandwidth or tensor rate: no serving figures
    s.batch = 1;
    s.serving.requestRatePerS.reset();
    const serving::Evaluator e(s, choice.plan, choice.memory);
    const double own = e.runs() ? serving::usersWithin(e, slo, serving::kMaxUsersPerReplica).perReplica : 0.0;
    // The same replica's users with the SLO held against the slow end of the
    // serving bands (serve's slo_margin): searched up to `users` only.
    const auto lowAtSlowEnd = [&](const serving::Evaluator& ev, const Scenario& at, double users) {
        if (users < 1) return;
        const std::optional<Slo> slow = sloAtSlowEnd(at, at.gpu, slo);
        if (slow) low = serving::usersWithin(ev, *slow, users).perReplica;
    };
    const std::vector<serving::Formats> tried = serving::formatsTried(s);
    if (tried.size() < 2 || own >= serving::kMaxUsersPerReplica) {
        lowAtSlowEnd(e, s, own);
        return own;
    }
    Scenario v = s;
    const SameGpu variantGpu(request.gpu, v.gpu);
    v.weights = tried.back().weights;
    v.kvCache = tried.back().kv;
    if (v.weights != s.weights) v.weightsWhy = "weights_fp8_serving";
    v.gpuCountAuto = false;
    v.gpuCount = choice.plan.gpuCount;
    // `held` keeps the row's counts and shape; its weights and KV terms are
    // read only where their format matches (memory/layout.cpp).
    const planner::Choice c = planner::choose(v, choice.plan.gpuCount, held);
    // One replica over the same GPUs, as serve's candidates (not FP8 replicas
    // side by side where FP8 fits fewer GPUs).
    if (!c.fits || c.plan.gpuCount != choice.plan.gpuCount || c.plan.tp * c.plan.pp != c.plan.gpuCount) {
        lowAtSlowEnd(e, s, own);
        return own;
    }
    const Scenario resolvedVariant = planner::resolved(v, c);
    const SameGpu resolvedVariantGpu(request.gpu, resolvedVariant.gpu);
    const serving::Evaluator ev(resolvedVariant, c.plan, c.memory);
    if (!ev.runs()) {
        lowAtSlowEnd(e, s, own);
        return own;
    }
    // Only more users than the request's formats serve count: the search
    // starts above them and stops at once where FP8 serves no more.
    const double users = own >= 1 ? serving::usersAbove(ev, slo, own, serving::kMaxUsersPerReplica)
                                   : serving::usersWithin(ev, slo, serving::kMaxUsersPerReplica).perReplica;
    if (users <= own) {
        lowAtSlowEnd(e, s, own);
        return own;
    }
    fp8 = true;
    lowAtSlowEnd(ev, resolvedVariant, users);
    return users;
}

// A cell's figures from the planner's choice: `request` as the matrix
// asked it, `s` the same with the knobs the choice resolved where speed
// reads them (Ollama's context). Where the planner worked out no speed,
// the choice takes it here. `held`, `costs` and `bandTop` as in cellOf.
MatrixCell figuresOf(const Scenario& request, const Scenario& s, planner::Choice& choice, int maxGpus, const Slo* slo,
                     const sizing::ModelFigures* held, const CostBasis* costs, const std::optional<double>* bandTop) {
    const Plan& plan = choice.plan;
    MatrixCell cell;
    cell.gpusNeeded = choice.gpusNeeded;
    cell.fitsOne = choice.fits && plan.gpuCount == 1;
    cell.totalGiB = choice.memory.totalGiB;
    cell.strategy = plan.strategy;
    cell.nodes = plan.nodes;
    cell.needsNvlink = plan.tp > 1;
    if (!choice.fits || !cell.gpusNeeded || plan.gpuCount > maxGpus) {
        cell.status = CellStatus::No;
        return cell;
    }
    cell.status = cell.fitsOne ? CellStatus::Fits : plan.nodes > 1 ? CellStatus::MultiNode : CellStatus::FitsMulti;
    cell.gpuCount = plan.gpuCount;
    cell.tight = tightFit(choice.memory.totalGiB, choice.memory.kvPoolGib.has_value(), usableMemoryGiB(request),
                          bandTop ? *bandTop : memoryBandTopFactor(request));
    if (slo) cell.usersAtSlo = usersAtSlo(request, choice, *slo, held, cell.usersAtSloFp8, cell.usersAtSloLow);
    if (!choice.speed) choice.speed = speedFigures(s, plan);
    const SpeedEstimate& speed = *choice.speed;
    cell.decodeTokensPerS = speed.decodeTokensPerS;
    cell.prefillTokensPerS = speed.prefillTokensPerS;
    cell.trainTokensPerS = speed.trainTokensPerS;
    const CostEstimate cost = costs ? costFigures(s, *costs, plan, speed) : costFigures(s, plan, speed);
    cell.trainHours = cost.trainHours;
    cell.usdPerHour = cost.usdPerHour;
    cell.usdPerMillionTokens = cost.usdPerMillionTokens;
    cell.costUsd = cost.costUsd;
    return cell;
}

// `held` (may be null) is the model row's figures, worked out once per row;
// `costs` (may be null) the GPU column's cost basis, once per column.
// `bandTop` (may be null) is the column's memoryBandTopFactor, looked up once per column.
MatrixCell cellOf(const Scenario& request, int maxGpus, const Slo* slo, const sizing::ModelFigures* held,
                  const CostBasis* costs, const std::optional<double>* bandTop) {
    // A cell the single estimate rejects (an engine on a platform it does not
    // run on, a format the GPU lacks: scenarioError) runs nothing, as a
    // recommendation excludes that GPU: no count, no figures.
    if (scenarioError(request)) return MatrixCell{};
    if (runsPipeline(request)) return pipelineCellOf(request, maxGpus, costs);  // no serving figures
    // The planner's choice within the limit: the same plan estimate() shows
    // for this scenario with max_gpus set to the matrix's limit.
    planner::Choice choice = planner::choose(request, maxGpus, held);
    // Cost reads prices and the plan, not the resolved knobs; speed reads
    // Ollama's context, which the chosen count sets. (Two calls rather than
    // an optional scenario: an empty std::optional<Scenario> is zero-filled,
    // two kilobytes per cell.)
    // A plan the planner moved to ZeRO-Offload is timed with its offload.
    if (planner::contextFollowsCount(request) || choice.plan.statesOnHost) {
        return figuresOf(request, planner::resolved(request, choice), choice, maxGpus, slo, held, costs, bandTop);
    }
    return figuresOf(request, request, choice, maxGpus, slo, held, costs, bandTop);
}

// A row's held figures (sizing::ModelFigures) for the few weight formats,
// engines and KV cache formats its columns take: FP8 weights where the GPU
// has FP8, 16-bit elsewhere, fp16 where it lacks bf16, llama.cpp on
// unified-memory machines. The columns go by memory, not by these, so one
// held set was worked out again at most column changes (a third of the
// row's cells); each set is kept and picked by what it was worked out for.
// Whether sizing::holdWeights(s, f) would change nothing.
bool holdsAll(const sizing::ModelFigures& f, const Scenario& s) {
    return f.weightsKnown && f.weightsFormat == s.weights && f.weightsEngineKind == sizing::weightsEngineKind(s.engine) &&
           f.holdsWork(s) && (s.engine == Engine::Ollama || f.holdsKv(s));
}

struct RowFigures {
    static constexpr std::size_t kVariants = 4;
    sizing::ModelFigures variants[kVariants];  // [0] set by the matrix from the row's model
    std::size_t used = 1;
    std::size_t next = 1;  // the set reworked next once all are used
    std::size_t last = 0;  // the set the row's last cell read, tried first

    sizing::ModelFigures& heldFor(const Scenario& s) {
        if (holdsAll(variants[last], s)) return variants[last];
        for (std::size_t i = 0; i < used; ++i) {
            if (i != last && holdsAll(variants[i], s)) return variants[last = i];
        }
        std::size_t i = used;
        if (used < kVariants) {
            variants[used++] = variants[0];  // the counts and shape; holdWeights sets the rest
        } else {
            i = next;
            next = next + 1 < kVariants ? next + 1 : 0;
        }
        sizing::holdWeights(s, variants[i]);
        last = i;
        return variants[i];
    }
};

// The engine reads figures only; names, aliases, sources and notes would
// cost an allocation each on every copy.
template <class Entry>
Entry withoutText(const Entry& entry) {
    Entry lean = entry;
    lean.aliases.clear();
    lean.sources.clear();
    lean.notes.clear();
    return lean;
}

// A GPU's price list and the texts beside its prices: read by costBasis()
// alone. The planner copies the scenario for every training cell (twice
// with the micro-batch and checkpointing searched), and each listed price
// is a handful of strings to copy and free.
void withoutPriceList(GpuSpec& gpu) {
    gpu.cloudPrices.clear();
    gpu.cloudProvider.clear();
    gpu.cloudDate.clear();
    gpu.priceNote.clear();
}

// What the GPU-count search reads of a column's GPU (plan/prepared.hpp,
// CountShare) besides the server and NVLink domain sizes: columns alike in
// it are worked out one after another, each row's search shared between
// them (in full where the sizes match too, else where one GPU fits).
struct SearchClass {
    double memoryGib = 0;
    bool a100 = false;
    bool supportsFp8 = false;
    bool operator==(const SearchClass& o) const {
        return memoryGib == o.memoryGib && a100 == o.a100 && supportsFp8 == o.supportsFp8;
    }
};

SearchClass searchClassOf(const GpuSpec& gpu) {
    SearchClass c;
    c.memoryGib = gpu.memoryGib;
    c.a100 = gpu.name.find("A100") != std::string::npos;
    c.supportsFp8 = gpu.supportsFp8;
    return c;
}

// The columns in the order they are worked out, and each column's search
// class (-1 where no other column shares it). The cells' places do not
// follow the order: every cell is written at its own row and column.
void columnOrder(const Scenario& workload, const std::vector<const GpuSpec*>& gpus, std::vector<std::size_t>& order,
                 std::vector<int>& classOf) {
    std::vector<SearchClass> classes;
    std::vector<int> members;
    classOf.assign(gpus.size(), -1);
    for (std::size_t g = 0; g < gpus.size(); ++g) {
        const SearchClass c = searchClassOf(*gpus[g]);
        std::size_t i = 0;
        while (i < classes.size() && !(classes[i] == c)) ++i;
        if (i == classes.size()) {
            classes.push_back(c);
            members.push_back(0);
        }
        ++members[i];
        classOf[g] = int(i);
    }
    order.resize(gpus.size());
    for (std::size_t g = 0; g < gpus.size(); ++g) order[g] = g;
    // Within a group, columns with the same flash attention default (where
    // the memory model reads it), then server and NVLink domain sizes, next
    // to each other (adaptToGpu: the request's servers where it names them).
    auto perNode = [&](std::size_t g) {
        return workload.interconnect.gpusPerNode > 0 ? workload.interconnect.gpusPerNode : gpus[g]->gpusPerNode;
    };
    const bool flashRead = sizing::memoryReadsFlashAttention(workload);
    auto flashDefault = [&](std::size_t g) {
        return flashRead && (gpus[g]->flashAttention2 || gpus[g]->vendor != "nvidia");  // adaptFlashAttention
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (classOf[a] != classOf[b]) return classOf[a] < classOf[b];
        if (flashDefault(a) != flashDefault(b)) return flashDefault(b);
        if (perNode(a) != perNode(b)) return perNode(a) < perNode(b);
        return gpus[a]->nvlinkMaxGpus < gpus[b]->nvlinkMaxGpus;
    });
    for (int& c : classOf) {
        if (members[std::size_t(c)] < 2) c = -1;
    }
}

}  // namespace

MatrixCell evaluateCell(const Scenario& workload, const ModelSpec& model, const GpuSpec& gpu, int maxGpus,
                        const Slo* slo) {
    Scenario s = workload;
    s.model = model;
    s.gpu = gpu;
    s.gpuCountAuto = true;
    adaptToGpu(s);
    return cellOf(s, maxGpus, slo, nullptr, nullptr, nullptr);
}

std::vector<std::vector<MatrixCell>> computeMatrix(const Scenario& workload,
                                                   const std::vector<const ModelSpec*>& models,
                                                   const std::vector<const GpuSpec*>& gpus, int maxGpus,
                                                   const Slo* slo) {
    std::vector<std::vector<MatrixCell>> cells;
    computeMatrix(workload, models, gpus, maxGpus, slo, cells);
    return cells;
}

void computeMatrix(const Scenario& workload, const std::vector<const ModelSpec*>& models,
                   const std::vector<const GpuSpec*>& gpus, int maxGpus, const Slo* slo,
                   std::vector<std::vector<MatrixCell>>& cells) {
    cells.resize(models.size());
    for (std::vector<MatrixCell>& row : cells) row.resize(gpus.size());  // every cell is written below
    std::vector<ModelSpec> leanModels;
    std::vector<RowFigures> figures;  // per row: counts and shape, the same in every column
    leanModels.reserve(models.size());
    figures.reserve(models.size());
    for (const ModelSpec* m : models) {
        leanModels.push_back(withoutText(*m));
        ModelSpec& lean = leanModels.back();
        lean.name.clear();  // the cell's figures never read the display texts
        lean.hfId.clear();
        lean.license.clear();
        lean.releaseDate.clear();
        lean.nativeDtype.clear();
        lean.confidence.clear();
        figures.emplace_back().variants[0] = sizing::modelFigures(lean);
    }
    // Each row's family and modality as the number of its run of equal
    // texts (neighbouring rows mostly share them): a cell compares two
    // numbers, not two texts, before it copies a text in.
    std::vector<int> familyRun(leanModels.size()), modalityRun(leanModels.size());
    for (std::size_t m = 1; m < leanModels.size(); ++m) {
        familyRun[m] = familyRun[m - 1] + (leanModels[m].family != leanModels[m - 1].family);
        modalityRun[m] = modalityRun[m - 1] + (leanModels[m].modality != leanModels[m - 1].modality);
    }
    int heldFamily = -1, heldModality = -1;  // the runs whose texts the scenario's model holds
    Scenario s = workload;
    s.gpuCountAuto = true;
    s.model = ModelSpec();  // its texts stay empty; a cell sets the figures, id and family of its row
    std::vector<std::size_t> order;
    std::vector<int> searchClass;
    columnOrder(workload, gpus, order, searchClass);
    std::vector<CountShare> shares(models.size());  // per row: the search of the column group being worked out
    for (const std::size_t g : order) {
        s.gpu = withoutText(*gpus[g]);
        s.gpu.caveats.clear();
        s.engine = workload.engine;  // adaptToGpu may swap a serving engine for llama.cpp on Apple columns
        adaptToGpu(s);  // sets the column's flash-attention default too (Ollama's is set per row below)
        const HeldGpuRates rates(s.gpu);  // the column's achieved fractions, per engine and format
        const serving::HeldStepConstants steps(s.gpu);  // and its serving step constants (vLLM, SGLang decode)
        const CostBasis costs = costBasis(s);  // and its prices
        withoutPriceList(s.gpu);  // which the cells then read from `costs` alone
        const std::optional<double> bandTop = memoryBandTopFactor(s);  // and its memory band
        for (std::size_t m = 0; m < leanModels.size(); ++m) {
            // The row's model goes into the scenario field by field: its
            // architecture as one block, the three texts the figures read (the
            // GGUF mix tells Falcon by id and family; llama.cpp leaves a vision
            // model's tower in its mmproj file), its id and its pipeline moved
            // in and back. Moving the whole spec, a dozen strings and vectors, each
            // way cost a tenth of the matrix.
            ModelSpec& lean = leanModels[m];
            static_cast<ModelArchitecture&>(s.model) = lean;
            s.model.id = std::move(lean.id);  // moved back below, as the pipeline is
            // Neighbouring rows mostly share these two: an equal text is not
            // copied again.
            if (familyRun[m] != heldFamily) {
                s.model.family = lean.family;
                heldFamily = familyRun[m];
            }
            if (modalityRun[m] != heldModality) {
                s.model.modality = lean.modality;
                heldModality = modalityRun[m];
            }
            s.model.workloadShape = std::move(lean.workloadShape);
            // Ollama's default follows the row's architecture; every other
            // engine's follows the GPU alone (set with the column).
            if (s.engine == Engine::Ollama) adaptFlashAttention(s);
            if (!s.weightsExplicit) {  // the default format is the model's own (native weights)
                const WeightsChoice choice = defaultWeights(s);
                s.weights = choice.format;
                s.weightsWhy = choice.why;
            }
            sizing::ModelFigures& held = figures[m].heldFor(s);  // the row's weight bytes for this format
            if (searchClass[g] >= 0) {
                shares[m].request = &s;
                shares[m].gpuClass = searchClass[g];
                held.countShare = &shares[m];
            } else {
                held.countShare = nullptr;
            }
            cells[m][g] = cellOf(s, maxGpus, slo, &held, &costs, &bandTop);
            lean.workloadShape = std::move(s.model.workloadShape);
            lean.id = std::move(s.model.id);
        }
    }
}

}  // namespace caliper
