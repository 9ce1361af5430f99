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
// on the GPU: they are fitted by engine and by engine x format only, and
// never from one source (one framework's allocator settings and data lengths
// are not another's); without two, the sourced priors stay.
const std::vector<Mechanism>& mechanisms() {
    static const std::vector<Mechanism> list = {
        {{CalibratedConstant::DecodeBandwidthFraction, CalibratedConstant::DecodeLayerOverheadS},
         {Figure::Decode, Figure::DecodeWithPrefill}},
        {{CalibratedConstant::PrefillComputeFraction}, {Figure::Prefill, Figure::FirstToken}},
        {{CalibratedConstant::TrainingAllocatorReserve, CalibratedConstant::VaryingLengthLossCopies},
         {Figure::Memory},
         Level::Format,
         2},
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

// Coordinate descent, a golden-section search on each log scale in turn.
void fitGroup(const std::vector<const CalibrationRow*>& rows, const Mechanism& mech, const GroupKey& key,
              CalibrationTable& table, std::vector<double>& scales) {
    const double phi = 0.6180339887498949;
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
        for (std::size_t i = 0; i < mech.constants.size(); ++i) {
            const CalibratedConstant c = mech.constants[i];
            const double centre = std::log(scales[i]);
            double lo = -kLogScaleBound, hi = kLogScaleBound;
            auto at = [&](double logScale) {
                scales[i] = std::exp(logScale);
                setScale(table, c, key, scales[i]);
                return loss(rows, table);
            };
            double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
            double f1 = at(x1), f2 = at(x2);
            for (int step = 0; step < kGoldenSteps; ++step) {
                if (f1 <= f2) { hi = x2; x2 = x1; f2 = f1; x1 = hi - phi * (hi - lo); f1 = at(x1); }
                else { lo = x1; x1 = x2; f1 = f2; x2 = lo + phi * (hi - lo); f2 = at(x2); }
            }
            double best = 0.5 * (lo + hi);
            // Keep the starting scale unless the search found a lower loss.
            if (at(best) > at(centre)) best = centre;
            // Round to 4 significant digits: the file stays readable and a
            // re-run on another compiler gives the same text.
            char text[32];
            std::snprintf(text, sizeof text, "%.4g", std::exp(best));
            scales[i] = std::atof(text);
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

}  // namespace

const char* toString(Level level) {
    switch (level) {
        case Level::Engine: return "engine";
        case Level::Format: return "engine x format";
        case Level::Family: return "engine x format x GPU family";
        case Level::Group: return "engine x format x GPU group";
    }
    return "";
}

FitResult fitConstants(const std::vector<CalibrationRow>& rows, const std::vector<int>& use) {
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
                for (CalibratedConstant c : mech.constants) scales.push_back(scaleAt(out.table, c, *members.front()));
                const double before = medianAbsLog(members, out.table);
                fitGroup(members, mech, key, out.table, scales);
                const double after = medianAbsLog(members, out.table);
                std::set<std::string> ids, sources;
                for (const CalibrationRow* r : members) { ids.insert(r->id); sources.insert(r->source); }
                for (std::size_t i = 0; i < mech.constants.size(); ++i) {
                    FittedConstant f{mech.constants[i], level, EngineClass(key.engine), key.format, key.family,
                                     key.group, scales[i], {ids.begin(), ids.end()}, {sources.begin(), sources.end()},
                                     before, after};
                    out.constants.push_back(std::move(f));
                }
            }
        }
    }
    return out;
}

}  // namespace caliper::calibrate
