#include "fitter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

namespace caliper::calibrate {

namespace {

struct Mechanism {
    std::vector<CalibratedConstant> constants;
    std::vector<Figure> figures;
    Level finest = Level::Group;  // the most specific level it is fitted at
    int minSources = 1;           // sources a group needs at the engine level
};

// Decode first: prefill reuses the decode bandwidth (weights read per chunk)
// and per-layer time, so its compute fraction is fitted on top of them. The
// allocator's reserves depend on the framework and the weights' tensors, not
// on the GPU: they are fitted by engine and by engine x format only. The
// training reserves never from one source (one framework's allocator
// settings and data lengths are not another's); without two, the sourced
// priors stay.
const std::vector<Mechanism>& mechanisms() {
    static const std::vector<Mechanism> list = {
        {{CalibratedConstant::DecodeBandwidthFraction, CalibratedConstant::DecodeLayerOverheadS},
         {Figure::Decode, Figure::DecodeWithPrefill}},
        {{CalibratedConstant::PrefillComputeFraction}, {Figure::Prefill, Figure::FirstToken}},
        {{CalibratedConstant::TrainingAllocatorReserve, CalibratedConstant::VaryingLengthLossCopies},
         {Figure::Memory},
         Level::Format,
         2},
        // generate()'s reserve: the same allocator with its defaults under
        // one loop (transformers' generate()), so a group may rest on one
        // source at the engine level (below it, two as everywhere): a
        // leave-one-source-out fold then fits it on the other session's
        // models and scores the left-out one's.
        {{CalibratedConstant::GenerateTransientReserve}, {Figure::GenerateMemory}, Level::Format, 1},
    };
    return list;
}

// Scales searched in [1/4, 4] of the prior (the prior carries the source's
// physics; a fit further away than that means a missing mechanism, which a
// scale must not absorb). The constants' physical bounds apply on top.
constexpr double kLogScaleBound = 1.3862943611198906;  // ln 4
constexpr int kSweeps = 3;
constexpr int kGoldenSteps = 28;

struct GroupKey {
    int engine, format, family, group;
    bool operator<(const GroupKey& o) const {
        return std::tie(engine, format, family, group) < std::tie(o.engine, o.format, o.family, o.group);
    }
};

GroupKey keyAt(const CalibrationRow& r, Level level) {
    GroupKey k{int(r.engine), -1, -1, -1};
    if (level >= Level::Format) k.format = int(r.format);
    if (level == Level::Family) k.family = gpuFamilyIndex(r.gpu);
    if (level == Level::Group) k.group = int(r.gpu);
    return k;
}

bool inKey(const GroupKey& k, int engine, int format, int group) {
    return k.engine == engine && (k.format < 0 || k.format == format) && (k.group < 0 || k.group == group) &&
           (k.family < 0 || k.family == gpuFamilyIndex(GpuGroup(group)));
}

// Sets one constant's scale on every cell of the group.
void setScale(CalibrationTable& table, CalibratedConstant c, const GroupKey& k, double scale) {
    for (int format = 0; format < kFormatClasses; ++format)
        for (int group = 0; group < kGpuGroups; ++group) {
            if (!inKey(k, k.engine, format, group)) continue;
            table.scale[std::size_t(CalibrationTable::index(c, EngineClass(k.engine), FormatClass(format), GpuGroup(group)))] =
                scale;
        }
}

double scaleAt(const CalibrationTable& table, CalibratedConstant c, const CalibrationRow& r) {
    return table.scale[std::size_t(CalibrationTable::index(c, r.engine, r.format, r.gpu))];
}

// Sum of |ln(predicted / measured)| over the group's rows: the loss whose
// minimum is the median error, robust to the odd row (the goals are medians).
double loss(const std::vector<const CalibrationRow*>& rows, const CalibrationTable& table) {
    const ScopedCalibration use(&table);
    double sum = 0;
    for (const CalibrationRow* r : rows) {
        const auto p = predictFigure(*r);
        sum += p && *p > 0 ? std::fabs(std::log(*p / r->measured)) : 10.0;
    }
    return sum;
}

double medianAbsLog(const std::vector<const CalibrationRow*>& rows, const CalibrationTable& table) {
    const ScopedCalibration use(&table);
    std::vector<double> v;
    for (const CalibrationRow* r : rows) {
        const auto p = predictFigure(*r);
        v.push_back(p && *p > 0 ? std::fabs(std::log(*p / r->measured)) : 10.0);
    }
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Golden-section search of a loss over one log scale within the bounds;
// the starting scale (centre) stays unless the search found a lower loss.
template <class Loss>
double bestLogScale(Loss at, double centre, int steps) {
    const double phi = 0.6180339887498949;
    double lo = -kLogScaleBound, hi = kLogScaleBound;
    double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
    double f1 = at(x1), f2 = at(x2);
    for (int step = 0; step < steps; ++step) {
        if (f1 <= f2) { hi = x2; x2 = x1; f2 = f1; x1 = hi - phi * (hi - lo); f1 = at(x1); }
        else { lo = x1; x1 = x2; f1 = f2; x2 = lo + phi * (hi - lo); f2 = at(x2); }
    }
    const double best = 0.5 * (lo + hi);
    return at(best) > at(centre) ? centre : best;
}

// Rounded to 4 significant digits: the file stays readable and a re-run on
// another compiler gives the same text.
double roundedScale(double logScale) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", std::exp(logScale));
    return std::atof(text);
}

// Coordinate descent, a golden-section search on each log scale in turn.
void fitGroup(const std::vector<const CalibrationRow*>& rows, const Mechanism& mech, const GroupKey& key,
              const std::vector<bool>& fitted, CalibrationTable& table, std::vector<double>& scales) {
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
        for (std::size_t i = 0; i < mech.constants.size(); ++i) {
            if (!fitted[i]) continue;
            const CalibratedConstant c = mech.constants[i];
            auto at = [&](double logScale) {
                setScale(table, c, key, std::exp(logScale));
                return loss(rows, table);
            };
            scales[i] = roundedScale(bestLogScale(at, std::log(scales[i]), kGoldenSteps));
            setScale(table, c, key, scales[i]);
        }
    }
}

int distinctSetups(const std::vector<const CalibrationRow*>& rows) {
    std::set<std::tuple<std::string, int, std::int64_t, std::int64_t>> setups;
    for (const CalibrationRow* r : rows)
        setups.insert({r->scenario.model.id, int(r->scenario.weights), r->scenario.batch, r->scenario.promptTokens});
    return int(setups.size());
}

int distinctSources(const std::vector<const CalibrationRow*>& rows) {
    std::set<std::string> sources;
    for (const CalibrationRow* r : rows) sources.insert(r->source);
    return int(sources.size());
}

// A memory reserve is fitted only where the sources it needs ran it: rows
// whose estimate has no such term (packed or fixed-length runs have no
// varying-length reserve) count for the group but not for that constant's
// sources.
bool constantHasSources(const std::vector<const CalibrationRow*>& rows, const Mechanism& mech, CalibratedConstant c) {
    if (std::find(mech.figures.begin(), mech.figures.end(), Figure::Memory) == mech.figures.end() &&
        std::find(mech.figures.begin(), mech.figures.end(), Figure::GenerateMemory) == mech.figures.end())
        return true;
    std::set<std::string> sources;
    for (const CalibrationRow* r : rows) {
        if (r->memoryTermGib[std::size_t(c)] > 0) sources.insert(r->source);
    }
    return int(sources.size()) >= mech.minSources;
}

// Serving constants fitted together on a group's TPOT and TTFT rows (the
// time to the first token rides on the decode step and the decode on the
// prefill, so they are one mechanism), over fewer golden steps: the scale is
// rounded to 4 digits and 14 steps narrow [1/4, 4] to 0.3% of it.
const std::vector<ServingConstant>& servingConstants() {
    static const std::vector<ServingConstant> list = {
        ServingConstant::LayerTimeS,       ServingConstant::KvReadFraction,    ServingConstant::AllReduceLatencyS,
        ServingConstant::StepOverheadS,    ServingConstant::RequestOverheadS,  ServingConstant::PrefillTimeFactor,
        ServingConstant::SynchronizedShare, ServingConstant::PerSequenceOverheadS, ServingConstant::ExpertTimeS,
        ServingConstant::AdpBalanceWaitSteps};
    return list;
}
constexpr int kServingSweeps = 2;
constexpr int kServingGoldenSteps = 14;

struct ServingKey {
    int engine, generation, format;
    bool operator<(const ServingKey& o) const {
        return std::tie(engine, generation, format) < std::tie(o.engine, o.generation, o.format);
    }
};

ServingKey servingKeyAt(const CalibrationRow& r, ServingLevel level) {
    ServingKey k{servingEngineIndex(r.scenario.engine), -1, -1};
    if (level >= ServingLevel::Generation) k.generation = int(gpuGeneration(r.scenario.gpu));
    if (level == ServingLevel::Format) k.format = int(r.format);
    return k;
}

void setServingScale(CalibrationTable& table, ServingConstant c, const ServingKey& k, double scale) {
    for (int g = 0; g < kGpuGenerations; ++g)
        for (int f = 0; f < kFormatClasses; ++f) {
            if ((k.generation >= 0 && k.generation != g) || (k.format >= 0 && k.format != f)) continue;
            table.servingScale[std::size_t(CalibrationTable::servingIndex(c, k.engine, GpuGeneration(g), FormatClass(f)))] =
                scale;
        }
}

double servingScaleAt(const CalibrationTable& table, ServingConstant c, const CalibrationRow& r) {
    return table.servingScale[std::size_t(CalibrationTable::servingIndex(
        c, servingEngineIndex(r.scenario.engine), gpuGeneration(r.scenario.gpu), r.format))];
}

// Returns which constants some row of the group reads (the others keep the
// scale of the group above and are not written as the group's own).
std::vector<bool> fitServingGroup(const std::vector<const CalibrationRow*>& rows, const ServingKey& key,
                                  CalibrationTable& table, std::vector<double>& scales, const std::vector<bool>& fitted) {
    std::vector<bool> read(scales.size(), false);
    const std::vector<ServingConstant>& list = servingConstants();
    for (int sweep = 0; sweep < kServingSweeps; ++sweep) {
        for (std::size_t i = 0; i < list.size(); ++i) {
            const ServingConstant c = list[i];
            if (!fitted[i]) continue;
            auto at = [&](double logScale) {
                setServingScale(table, c, key, std::exp(logScale));
                return loss(rows, table);
            };
            // A constant none of the group's rows reads (the attention-DP
            // balance wait where no row runs attention DP, an expert time
            // where no model has experts) keeps the scale of the group above:
            // a flat loss says nothing, and the search would leave it at a bound.
            const double centre = std::log(scales[i]);
            const double here = at(centre);
            if (at(centre - kLogScaleBound) == here && at(centre + kLogScaleBound) == here) {
                setServingScale(table, c, key, scales[i]);
                continue;
            }
            read[i] = true;
            scales[i] = roundedScale(bestLogScale(at, centre, kServingGoldenSteps));
            setServingScale(table, c, key, scales[i]);
        }
    }
    return read;
}

// The serving fit, level by level, on the serving rows of `pool`; each group
// starts from the scales of the group above it. All serving rows so far come
// from one source, so the two-sources rule of the speed constants cannot
// apply: a group below the engine rests on two GPU systems and two models
// instead, the engine's family level on its rows from any GPU (fitter.hpp),
// and leave-one-(engine x system)-out scores them (cross_validation.cpp).
void fitServing(const std::vector<const CalibrationRow*>& pool, FitResult& out) {
    std::vector<const CalibrationRow*> rows;
    for (const CalibrationRow* r : pool) {
        if (servingFigure(*r) && r->serving && servingEngineIndex(r->scenario.engine) >= 0) rows.push_back(r);
    }
    const std::vector<ServingConstant>& list = servingConstants();
    std::set<std::vector<const CalibrationRow*>> seen;
    for (ServingLevel level : {ServingLevel::Engine, ServingLevel::Generation, ServingLevel::Format}) {
        std::map<ServingKey, std::vector<const CalibrationRow*>> groups;
        for (const CalibrationRow* r : rows) groups[servingKeyAt(*r, level)].push_back(r);
        for (auto& [key, members] : groups) {
            if (int(members.size()) < kRowsPerParameter * int(list.size()) || distinctSetups(members) < kMinDistinctSetups)
                continue;
            std::set<std::string> systems, models;
            for (const CalibrationRow* r : members) { systems.insert(r->system); models.insert(r->scenario.model.id); }
            const int minSystems = level == ServingLevel::Engine ? kMinServingFamilySystems : kMinServingSystems;
            if (int(systems.size()) < minSystems || int(models.size()) < kMinServingModels) continue;
            if (!seen.insert(members).second) continue;
            std::vector<double> scales;
            for (ServingConstant c : list) scales.push_back(servingScaleAt(out.table, c, *members.front()));
            // A family level on one GPU system fits only the constants that do
            // not depend on the GPU (host times and the request latency's
            // factors); the GPU's own (kernel times, the KV read rate) keep the
            // prior, since one GPU cannot tell them from its own quirks.
            std::vector<bool> fitted(list.size(), true);
            if (int(systems.size()) < kMinServingSystems) {
                for (std::size_t i = 0; i < list.size(); ++i) fitted[i] = gpuIndependent(list[i]);
            }
            const double before = medianAbsLog(members, out.table);
            const std::vector<bool> read = fitServingGroup(members, key, out.table, scales, fitted);
            const double after = medianAbsLog(members, out.table);
            std::set<std::string> ids, sources;
            for (const CalibrationRow* r : members) { ids.insert(r->id); sources.insert(r->source); }
            for (std::size_t i = 0; i < list.size(); ++i) {
                if (!fitted[i] || !read[i]) continue;
                out.serving.push_back({list[i], level, key.engine, key.generation, key.format, scales[i],
                                       {ids.begin(), ids.end()}, {sources.begin(), sources.end()}, before, after});
            }
        }
    }
}

// The training constants, each by value inside its physical bounds (a
// golden-section search over the whole interval: the priors are the bounds'
// physics, not a centre to scale about), on the training rows that read it.
// The FP8 speed-up first, on the rows that read it alone (dense FP8 runs:
// the MoE FP8 runs also read the expert time), then the expert time on every
// row that reads it, over the speed-up just fitted.
void fitTraining(const std::vector<const CalibrationRow*>& pool, FitResult& out) {
    for (int c = 0; c < kTrainingConstants; ++c) {
        const TrainingConstant constant = TrainingConstant(c);
        std::vector<const CalibrationRow*> rows;
        for (const CalibrationRow* r : pool) {
            if (r->figure != Figure::Training || !r->readsTraining[std::size_t(c)]) continue;
            bool alone = true;
            for (int d = c + 1; d < kTrainingConstants; ++d) alone = alone && !r->readsTraining[std::size_t(d)];
            if (alone) rows.push_back(r);
        }
        if (int(rows.size()) < kRowsPerParameter || distinctSetups(rows) < kMinDistinctSetups) continue;
        const TrainingBounds b = trainingConstantBounds(constant);
        auto at = [&](double value) {
            out.table.training[std::size_t(c)] = value;
            return loss(rows, out.table);
        };
        const double before = medianAbsLog(rows, out.table);
        const double phi = 0.6180339887498949;
        double lo = b.low, hi = b.high;
        double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
        double f1 = at(x1), f2 = at(x2);
        for (int step = 0; step < kGoldenSteps; ++step) {
            if (f1 <= f2) { hi = x2; x2 = x1; f2 = f1; x1 = hi - phi * (hi - lo); f1 = at(x1); }
            else { lo = x1; x1 = x2; f1 = f2; x2 = lo + phi * (hi - lo); f2 = at(x2); }
        }
        // Rounded to 4 significant digits, like the scales.
        char text[32];
        std::snprintf(text, sizeof text, "%.4g", 0.5 * (lo + hi));
        const double value = std::clamp(std::atof(text), b.low, b.high);
        out.table.training[std::size_t(c)] = value;
        const double after = medianAbsLog(rows, out.table);
        std::set<std::string> ids, sources;
        for (const CalibrationRow* r : rows) { ids.insert(r->id); sources.insert(r->source); }
        out.training.push_back({constant, value, b.low, b.high, {ids.begin(), ids.end()}, {sources.begin(), sources.end()},
                                before, after});
    }
}

}  // namespace

bool gpuIndependent(ServingConstant c) {
    switch (c) {
        case ServingConstant::StepOverheadS:
        case ServingConstant::RequestOverheadS:
        case ServingConstant::PrefillTimeFactor:
        case ServingConstant::SynchronizedShare:
        case ServingConstant::PerSequenceOverheadS:
        case ServingConstant::AdpBalanceWaitSteps: return true;
        case ServingConstant::LayerTimeS:
        case ServingConstant::ExpertTimeS:
        case ServingConstant::KvReadFraction:
        case ServingConstant::AllReduceLatencyS: return false;
    }
    return false;
}

const char* toString(ServingLevel level) {
    switch (level) {
        case ServingLevel::Engine: return "engine";
        case ServingLevel::Generation: return "engine x GPU generation";
        case ServingLevel::Format: return "engine x GPU generation x format";
    }
    return "";
}

FitResult fitServingConstants(const std::vector<CalibrationRow>& rows, const std::vector<int>& use,
                              const CalibrationTable& base) {
    FitResult out;
    out.table = base;
    out.table.servingScale.fill(1.0);
    std::vector<const CalibrationRow*> pool;
    for (int i : use) {
        if (rows[std::size_t(i)].fitUse) pool.push_back(&rows[std::size_t(i)]);
    }
    fitServing(pool, out);
    return out;
}

const char* toString(Level level) {
    switch (level) {
        case Level::Engine: return "engine";
        case Level::Format: return "engine x format";
        case Level::Family: return "engine x format x GPU family";
        case Level::Group: return "engine x format x GPU group";
    }
    return "";
}

FitResult fitConstants(const std::vector<CalibrationRow>& rows, const std::vector<int>& use, bool withServing) {
    FitResult out;
    std::vector<const CalibrationRow*> pool;
    if (use.empty()) {
        for (const CalibrationRow& r : rows) pool.push_back(&r);
    } else {
        for (int i : use) pool.push_back(&rows[std::size_t(i)]);
    }
    pool.erase(std::remove_if(pool.begin(), pool.end(), [](const CalibrationRow* r) { return !r->fitUse; }), pool.end());
    for (const Mechanism& mech : mechanisms()) {
        std::vector<const CalibrationRow*> mechRows;
        for (const CalibrationRow* r : pool) {
            if (std::find(mech.figures.begin(), mech.figures.end(), r->figure) != mech.figures.end()) mechRows.push_back(r);
        }
        std::set<std::vector<const CalibrationRow*>> seen;  // a level with the same rows as its parent adds nothing
        for (Level level : {Level::Engine, Level::Format, Level::Family, Level::Group}) {
            if (level > mech.finest) break;
            std::map<GroupKey, std::vector<const CalibrationRow*>> groups;
            for (const CalibrationRow* r : mechRows) groups[keyAt(*r, level)].push_back(r);
            for (auto& [key, members] : groups) {
                // llama.cpp's priors are per GPU family, each from its own
                // rows (efficiency_llamacpp.cpp): a scale fitted on other
                // families does not carry to a family, so its fits start there.
                if (key.engine == int(EngineClass::LlamaCpp) && level < Level::Family) continue;
                const int needed = kRowsPerParameter * int(mech.constants.size());
                if (int(members.size()) < needed || distinctSetups(members) < kMinDistinctSetups) continue;
                // Below the engine, a group rests on two sources at least: one
                // source's build, settings and transcription are not its GPUs'.
                if (level > Level::Engine && distinctSources(members) < kMinSourcesBelowEngine) continue;
                if (distinctSources(members) < mech.minSources) continue;
                if (!seen.insert(members).second) continue;
                std::vector<double> scales;
                std::vector<bool> fitted;
                for (CalibratedConstant c : mech.constants) {
                    scales.push_back(scaleAt(out.table, c, *members.front()));
                    fitted.push_back(constantHasSources(members, mech, c));
                }
                const double before = medianAbsLog(members, out.table);
                fitGroup(members, mech, key, fitted, out.table, scales);
                const double after = medianAbsLog(members, out.table);
                std::set<std::string> ids, sources;
                for (const CalibrationRow* r : members) { ids.insert(r->id); sources.insert(r->source); }
                for (std::size_t i = 0; i < mech.constants.size(); ++i) {
                    if (!fitted[i]) continue;
                    FittedConstant f{mech.constants[i], level, EngineClass(key.engine), key.format, key.family,
                                     key.group, scales[i], {ids.begin(), ids.end()}, {sources.begin(), sources.end()},
                                     before, after};
                    out.constants.push_back(std::move(f));
                }
            }
        }
    }
    fitTraining(pool, out);
    // Serving last: its step model reads the decode and prefill constants.
    if (withServing) fitServing(pool, out);
    return out;
}

}  // namespace caliper::calibrate
