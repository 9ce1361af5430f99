// Reading the rows once: mapping each row to its request goes through the
// same code as `caliper validate` (io::mapValidationRow); the figure the fit
// varies is then recomputed from the typed scenario, which is checked to
// agree with validateRows on every row.
#include "calibration_rows.hpp"
#include "cross_validation.hpp"

#include <algorithm>
#include <cmath>

#include "caliper/memory/memory.hpp"
#include "caliper/plan/estimate.hpp"
#include "validate/validation.hpp"
#include "plan/planner.hpp"
#include "json/json_read.hpp"
#include "json/request/scenario_json.hpp"
#include "validate/mapping.hpp"
#include "validate/row.hpp"

namespace caliper::calibrate {

namespace {

using io::Compared;
using io::Json;

Figure figureOf(Compared compared) {
    switch (compared) {
        case Compared::Decode: return Figure::Decode;
        case Compared::DecodeWithPrefill: return Figure::DecodeWithPrefill;
        case Compared::Prefill: return Figure::Prefill;
        case Compared::FirstToken: return Figure::FirstToken;
        case Compared::ServingTpotMs: return Figure::ServingTpot;
        case Compared::ServingTtftMs: return Figure::ServingTtft;
        default: return Figure::Other;
    }
}

// A memory row that counts the allocator's reserves (training's, or
// transformers generate()'s): the GiB each reserve's calibrated constant
// gives under the priors.
void readMemoryTerms(Compared compared, CalibrationRow& r) {
    if (compared != Compared::TotalMemory && compared != Compared::ReservedMemory) return;
    if (!r.fixedPrediction) return;
    const EstimateResult e = estimate(r.scenario, EstimateDetail{false, false, true});
    // At the usable memory the reserves are cut to what is left free
    // (memory/overhead.cpp): the figure no longer moves with the constants.
    if (e.memory.totalGiB >= usableMemoryGiB(r.scenario) - 1e-6) return;
    double any = 0;
    for (const ExplainTerm& t : e.explain) {
        if (t.term == "allocator_reserve_gib") r.memoryTermGib[int(CalibratedConstant::TrainingAllocatorReserve)] = t.value;
        if (t.term == "varying_length_reserve_gib" || t.term == "loss_block_reserve_gib")
            r.memoryTermGib[int(CalibratedConstant::VaryingLengthLossCopies)] += t.value;
        if (t.term == "generate_transient_reserve_gib")
            r.memoryTermGib[int(CalibratedConstant::GenerateTransientReserve)] = t.value;
    }
    for (double v : r.memoryTermGib) any += v;
    if (any > 0) r.figure = r.scenario.task == Task::Inference ? Figure::GenerateMemory : Figure::Memory;
}

// The engine's training tokens/s per GPU for a row's scenario under the
// active calibration (0: none).
double trainRatePerGpu(const Scenario& s) {
    const EstimateResult e = estimate(s, EstimateDetail{false, false, false});
    if (!e.trainTokensPerS || !(*e.trainTokensPerS > 0)) return 0;
    return *e.trainTokensPerS / std::max(1, e.plan.gpuCount);
}

// A training speed row: its rate under the priors, and which training
// constants move it (its rate differs between the constant's two bounds).
void readTrainingTerms(Compared compared, CalibrationRow& r) {
    if (compared != Compared::TrainTflops && compared != Compared::TrainMfu && compared != Compared::TrainTokens) return;
    if (r.scenario.task == Task::Inference || !r.fixedPrediction || !(*r.fixedPrediction > 0)) return;
    r.trainRateAtPriors = trainRatePerGpu(r.scenario);
    if (!(r.trainRateAtPriors > 0)) return;
    bool any = false;
    for (int c = 0; c < kTrainingConstants; ++c) {
        const TrainingBounds b = trainingConstantBounds(TrainingConstant(c));
        CalibrationTable low = activeCalibration(), high = activeCalibration();
        low.training[std::size_t(c)] = b.low;
        high.training[std::size_t(c)] = b.high;
        double atLow = 0, atHigh = 0;
        {
            const ScopedCalibration use(&low);
            atLow = trainRatePerGpu(r.scenario);
        }
        {
            const ScopedCalibration use(&high);
            atHigh = trainRatePerGpu(r.scenario);
        }
        r.readsTraining[std::size_t(c)] = std::fabs(atHigh - atLow) > 1e-9 * r.trainRateAtPriors;
        any = any || r.readsTraining[std::size_t(c)];
    }
    if (any) r.figure = Figure::Training;
}

void readLine(const Catalog& catalog, const std::string& line, RowSet& set) {
    const Json row = Json::parse(line, nullptr, false);
    if (!row.is_object()) return set.unscored.push_back({"?", "not a JSON object"});
    const std::string id = io::rowText(row, "id");
    if (row.value("measured", true) == false) { ++set.notMeasured; return; }
    if (io::rowText(row, "trust") == "low") { ++set.lowTrust; return; }
    const io::MappingOutcome outcome = io::mapValidationRow(catalog, row);
    if (!outcome.mapping) return set.unscored.push_back({id, outcome.reason});
    const io::RowMapping& m = *outcome.mapping;
    // The row's own score through the public path.
    const ValidationReport report = validateRows(catalog, line);
    if (report.scores.empty()) {
        return set.unscored.push_back({id, report.unscored.empty() ? "no score" : report.unscored.front().reason});
    }
    const ValidationRowScore& score = report.scores.front();
    CalibrationRow r;
    r.id = id;
    r.kind = io::rowText(row, "kind");
    r.source = sourceKey(io::rowText(row, "source"));
    r.measured = m.measured;
    r.perGpu = m.perGpu;
    r.gpuStated = m.gpuStated;
    const std::string rowEngine = io::lowerCase(io::rowText(row, "engine"));
    r.fitUse = io::rowText(row, "gpu").find("not stated") == std::string::npos &&
               (rowEngine.empty() || !io::contractEngine(rowEngine).empty()) && m.request["model"].is_string();
    r.fitCorrect = score.fitCorrect;
    r.hasError = score.hasError && score.hasPrediction;
    if (score.hasPrediction) r.fixedPrediction = score.predicted;
    try {
        std::vector<Warning> warnings;
        r.scenario = io::scenarioFromJson(catalog, m.request, warnings);
    } catch (const std::exception& e) {
        return set.unscored.push_back({id, std::string("request not readable: ") + e.what()});
    }
    r.engine = engineClass(r.scenario.engine);
    r.format = formatClass(r.scenario.engine, r.scenario.weights);
    r.gpu = gpuGroup(r.scenario.gpu);
    r.bandGroup = bandGroup(bandKind(r.kind), r.scenario);
    r.figure = r.hasError ? figureOf(m.compared) : Figure::Other;
    // Disaggregated rows are scored at the public path's figure and not
    // fitted on: the serving constants rest on aggregated serving, and the
    // fast path (one replica's evaluator) does not run the split. Their
    // kind is reported apart and makes no band: the split's errors are its
    // own, and would otherwise widen the bands aggregated serving shows.
    if (r.scenario.serving.disaggregated) {
        r.figure = Figure::Other;
        r.kind = "disaggregated_" + r.kind;
    }
    if (servingFigure(r)) {
        const EstimateResult full = estimate(r.scenario, EstimateDetail{false, false, false});
        const planner::Choice choice = planner::choose(r.scenario, r.scenario.maxGpus);
        auto probe = std::make_shared<ServingProbe>(ServingProbe{planner::resolved(r.scenario, choice), full.plan, full.memory, nullptr});
        probe->evaluator = std::make_shared<serving::Evaluator>(probe->scenario, probe->plan, probe->memory);
        r.serving = probe;
        r.system = std::string(toString(r.scenario.engine)) + " x " + r.scenario.gpu.id;
    }
    if (r.hasError && r.figure == Figure::Other) readMemoryTerms(m.compared, r);
    if (r.hasError && r.figure == Figure::Other) readTrainingTerms(m.compared, r);
    if (r.figure != Figure::Other) {
        // The fast path must give the public path's figure, or the row is
        // scored by its fixed prediction only.
        const auto fast = predictFigure(r);
        if (!fast || std::fabs(*fast - score.predicted) > 1e-3 * std::fabs(score.predicted)) {
            r.figure = Figure::Other;
            set.notRefitted.push_back(id);
        }
    }
    set.rows.push_back(std::move(r));
}

}  // namespace

std::string sourceKey(std::string_view source) {
    for (const char* scheme : {"https://", "http://"}) {
        if (source.substr(0, std::string_view(scheme).size()) == scheme) source.remove_prefix(std::string_view(scheme).size());
    }
    return std::string(source.substr(0, source.find(' ')));
}

bool fitted(const CalibrationRow& row) { return row.figure != Figure::Other; }

bool servingFigure(const CalibrationRow& row) {
    return row.figure == Figure::ServingTpot || row.figure == Figure::ServingTtft;
}

std::optional<double> predictFigure(const CalibrationRow& row) {
    if (row.figure == Figure::Other) return row.fixedPrediction;
    if (servingFigure(row)) {
        if (!row.serving) return std::nullopt;
        serving::Evaluator& evaluator = *row.serving->evaluator;
        evaluator.recalibrate();
        if (!evaluator.runs()) return std::nullopt;
        const auto f = evaluator.at(double(std::max<std::int64_t>(1, row.serving->scenario.batch)), std::nullopt);
        if (!f) return std::nullopt;
        return row.figure == Figure::ServingTpot ? f->tpotMs : f->ttftS * 1e3;
    }
    if (row.figure == Figure::Memory || row.figure == Figure::GenerateMemory) {
        const CalibrationTable& table = activeCalibration();
        double gib = *row.fixedPrediction;
        for (int c = 0; c < kCalibratedConstants; ++c) {
            if (row.memoryTermGib[std::size_t(c)] == 0) continue;
            const double scale =
                table.scale[std::size_t(CalibrationTable::index(CalibratedConstant(c), row.engine, row.format, row.gpu))];
            gib += (scale - 1) * row.memoryTermGib[std::size_t(c)];
        }
        return gib;
    }
    if (row.figure == Figure::Training) {
        const double rate = trainRatePerGpu(row.scenario);
        if (!(rate > 0) || !(row.trainRateAtPriors > 0)) return std::nullopt;
        return *row.fixedPrediction * rate / row.trainRateAtPriors;
    }
    const EstimateResult r = estimate(row.scenario, EstimateDetail{false, false, false});
    const double perGpu = row.perGpu ? std::max(1, r.plan.gpuCount) : 1.0;
    const double batch = double(row.scenario.batch);
    const double prompt = double(row.scenario.promptTokens), output = double(row.scenario.outputTokens);
    switch (row.figure) {
        case Figure::Decode:
            if (!r.decodeTokensPerS) return std::nullopt;
            return *r.decodeTokensPerS / perGpu;
        case Figure::Prefill:
            if (!r.prefillTokensPerS) return std::nullopt;
            return *r.prefillTokensPerS / perGpu;
        case Figure::FirstToken:
            if (!r.timeToFirstTokenS || *r.timeToFirstTokenS <= 0) return std::nullopt;
            return prompt * std::max(1.0, batch) / *r.timeToFirstTokenS / perGpu;
        case Figure::DecodeWithPrefill: {
            if (!r.decodeTokensPerS || *r.decodeTokensPerS <= 0) return std::nullopt;
            if (prompt > 0 && (!r.prefillTokensPerS || *r.prefillTokensPerS <= 0)) return std::nullopt;
            const double seconds = batch * output / *r.decodeTokensPerS + (prompt > 0 ? batch * prompt / *r.prefillTokensPerS : 0.0);
            if (!(seconds > 0)) return std::nullopt;
            return batch * output / seconds / perGpu;
        }
        case Figure::Memory: case Figure::GenerateMemory: case Figure::Training:
        case Figure::ServingTpot: case Figure::ServingTtft: case Figure::Other: break;
    }
    return row.fixedPrediction;
}

RowSet readCalibrationRows(const Catalog& catalog, const std::vector<std::pair<std::string, std::string>>& files) {
    RowSet set;
    for (const auto& [name, text] : files) {
        set.files.push_back(name);
        std::size_t start = 0;
        while (start < text.size()) {
            std::size_t end = text.find('\n', start);
            if (end == std::string::npos) end = text.size();
            const std::string line = text.substr(start, end - start);
            start = end + 1;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            ++set.rowsRead;
            try {
                readLine(catalog, line, set);
            } catch (const std::exception& e) {
                set.unscored.push_back({"?", std::string("unexpected: ") + e.what()});
            }
        }
    }
    return set;
}

}  // namespace caliper::calibrate
