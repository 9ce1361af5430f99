#include "cross_validation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace caliper::calibrate {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double logError(const CalibrationRow& r) {
    if (!r.hasError || !(r.measured > 0)) return kNaN;
    const auto p = predictFigure(r);
    return p && *p > 0 ? std::log(*p / r.measured) : kNaN;
}

std::vector<double> logErrors(const std::vector<CalibrationRow>& rows, const CalibrationTable& table) {
    const ScopedCalibration use(&table);
    std::vector<double> out;
    for (const CalibrationRow& r : rows) out.push_back(logError(r));
    return out;
}

double pct(double logValue) { return std::fabs(std::exp(logValue) - 1.0) * 100.0; }

// A serving row's id without its figure's suffix ("-ttft" / "-tpot"): the
// two figures of one measured run share it.
std::string runStem(const CalibrationRow& r) {
    const std::string& id = r.id;
    return id.size() > 5 ? id.substr(0, id.size() - 5) : id;
}

// ln(predicted / measured) of the run's output throughput per GPU from its
// TTFT and TPOT rows' log errors: Little's law keeps the concurrency and the
// GPUs, so throughput goes as 1 / (TTFT + (O-1) TPOT).
double throughputLog(const CalibrationRow& ttft, const CalibrationRow& tpot, double ttftLog, double tpotLog) {
    const double steps = double(std::max<std::int64_t>(0, ttft.scenario.outputTokens - 1));
    const double measuredS = ttft.measured / 1e3 + steps * tpot.measured / 1e3;
    const double predictedS = ttft.measured * std::exp(ttftLog) / 1e3 + steps * tpot.measured * std::exp(tpotLog) / 1e3;
    return measuredS > 0 && predictedS > 0 ? std::log(measuredS / predictedS) : kNaN;
}

void servingThroughput(const std::vector<CalibrationRow>& rows, CrossReport& report) {
    std::map<std::string, std::size_t> tpotOf;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].figure == Figure::ServingTpot) tpotOf[runStem(rows[i])] = i;
    }
    std::vector<double> in, out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].figure != Figure::ServingTtft) continue;
        const auto j = tpotOf.find(runStem(rows[i]));
        if (j == tpotOf.end()) continue;
        const CalibrationRow& tpot = rows[j->second];
        const double inLog = throughputLog(rows[i], tpot, report.inSampleLog[i], report.inSampleLog[j->second]);
        const double outLog = throughputLog(rows[i], tpot, report.systemLog[i], report.systemLog[j->second]);
        if (std::isnan(inLog) || std::isnan(outLog)) continue;
        in.push_back(pct(inLog));
        out.push_back(pct(outLog));
    }
    report.throughputRows = int(in.size());
    report.throughputInMedianPct = quantileOf(in, 0.5);
    report.throughputInP90Pct = quantileOf(in, 0.9);
    report.throughputSystemMedianPct = quantileOf(out, 0.5);
    report.throughputSystemP90Pct = quantileOf(out, 0.9);
}

// Leave-one-(engine x GPU generation)-out, for engines measured on two
// generations or more (on one, it leaves the priors). A generation of one
// system is that system's fold, already scored.
void leaveGenerationsOut(const std::vector<CalibrationRow>& rows, CrossReport& report) {
    report.generationLog.assign(rows.size(), kNaN);
    std::map<int, std::set<int>> generationsOf;                       // engine -> generations
    std::map<std::pair<int, int>, std::set<std::string>> systemsOf;  // engine x generation -> systems
    for (const CalibrationRow& r : rows) {
        if (!servingFigure(r) || r.system.empty()) continue;
        const int engine = servingEngineIndex(r.scenario.engine), generation = int(gpuGeneration(r.scenario.gpu));
        generationsOf[engine].insert(generation);
        systemsOf[{engine, generation}].insert(r.system);
    }
    for (const auto& entry : systemsOf) {
        // Named copies, not structured bindings: C++17 lambdas cannot capture those.
        const auto& key = entry.first;
        const auto& systems = entry.second;
        if (generationsOf[key.first].size() < 2) continue;
        auto inFold = [&](const CalibrationRow& r) {
            return servingFigure(r) && systems.count(r.system) > 0;
        };
        if (systems.size() == 1) {
            for (std::size_t i = 0; i < rows.size(); ++i) {
                if (inFold(rows[i])) report.generationLog[i] = report.systemLog[i];
            }
            continue;
        }
        std::vector<int> use;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (!inFold(rows[i])) use.push_back(int(i));
        }
        ++report.generationRefits;
        const FitResult fold = fitServingConstants(rows, use, report.full.table);
        const ScopedCalibration useFold(&fold.table);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (inFold(rows[i])) report.generationLog[i] = logError(rows[i]);
        }
    }
}

}  // namespace

std::vector<int> rowsOutside(const std::vector<CalibrationRow>& rows, const std::string& system) {
    std::vector<int> use;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].system != system) use.push_back(int(i));
    }
    return use;
}

std::vector<BandWidening> servingBandWidening(const std::vector<CalibrationRow>& rows,
                                              const std::vector<double>& inSampleLog,
                                              const std::vector<double>& systemLog) {
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> pools;  // kind -> in, out
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!servingFigure(rows[i]) || !rows[i].fitUse || std::isnan(inSampleLog[i]) || std::isnan(systemLog[i]))
            continue;
        auto& pool = pools[bandKind(rows[i].kind)];
        pool.first.push_back(inSampleLog[i]);
        pool.second.push_back(systemLog[i]);
    }
    std::vector<BandWidening> out;
    for (const auto& [kind, pool] : pools) {
        if (int(pool.first.size()) < kMinBandRows) continue;
        const double in = predictionQuantileOf(pool.first, 0.9) - predictionQuantileOf(pool.first, 0.1);
        const double left = predictionQuantileOf(pool.second, 0.9) - predictionQuantileOf(pool.second, 0.1);
        if (!(in > 0)) continue;
        // Rounded to 3 digits: the file is compared byte for byte.
        out.push_back({kind, std::max(1.0, std::round(left / in * 1000.0) / 1000.0), int(pool.first.size())});
    }
    return out;
}

double quantileOf(std::vector<double> values, double fraction) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const double pos = fraction * double(values.size() - 1);
    const std::size_t i = std::size_t(pos);
    if (i + 1 >= values.size()) return values.back();
    return values[i] + (pos - double(i)) * (values[i + 1] - values[i]);
}

double predictionQuantileOf(std::vector<double> values, double fraction) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    // Hyndman & Fan type 6: the i-th smallest of n sits at i / (n + 1).
    const double position = fraction * double(values.size() + 1);
    if (position <= 1) return values.front();
    if (position >= double(values.size())) return values.back();
    const std::size_t i = std::size_t(position);  // 1-based order statistic below
    return values[i - 1] + (position - double(i)) * (values[i] - values[i - 1]);
}

std::string bandKind(const std::string& k) {
    if (k == "decode_tps") return "decode";
    if (k == "prefill_tps") return "prefill";
    if (k == "inference_memory") return "inference_memory";
    if (k == "finetune_memory") return "finetune_memory";
    if (k == "train_throughput" || k == "train_tflops_per_gpu" || k == "train_tokens_per_s_per_gpu" || k == "train_mfu")
        return "training_speed";
    if (k == "serving_tpot_ms") return "serving_tpot";
    if (k == "serving_ttft_ms") return "serving_ttft";
    return "";
}

std::vector<CalibrationBand> makeBands(const std::vector<CalibrationRow>& rows, const std::vector<double>& logs,
                                       const std::vector<char>& use) {
    // kind, engine, family -> residuals; every row also counts toward its
    // engine's and its kind's wider bands.
    // kind, engine, family, group -> residuals; a row of a mechanism group
    // also counts toward its group's band.
    std::map<std::tuple<std::string, int, int, std::string>, std::vector<double>> pools;
    std::map<std::tuple<std::string, int, int, std::string>, std::set<std::string>> sources;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        // Rows whose GPU variant is not stated describe no GPU a user picks.
        if (!use[i] || std::isnan(logs[i]) || !rows[i].fitUse) continue;
        const std::string kind = bandKind(rows[i].kind);
        if (kind.empty()) continue;
        const int engine = int(rows[i].engine), family = rows[i].gpuStated ? gpuFamilyIndex(rows[i].gpu) : -1;
        pools[{kind, engine, family, ""}].push_back(logs[i]);
        sources[{kind, engine, family, ""}].insert(rows[i].source);
        if (family >= 0) pools[{kind, engine, -1, ""}].push_back(logs[i]);
        pools[{kind, -1, -1, ""}].push_back(logs[i]);
        if (!rows[i].bandGroup.empty()) {
            pools[{kind, -1, -1, rows[i].bandGroup}].push_back(logs[i]);
            sources[{kind, -1, -1, rows[i].bandGroup}].insert(rows[i].source);
        }
        if (kind.size() > 7 && kind.compare(kind.size() - 7, 7, "_memory") == 0) {
            pools[{"memory", engine, -1, ""}].push_back(logs[i]);
            pools[{"memory", -1, -1, ""}].push_back(logs[i]);
        }
    }
    std::vector<CalibrationBand> bands;
    for (const auto& [key, values] : pools) {
        if (int(values.size()) < kMinBandRows) continue;
        CalibrationBand b;
        // A family's or a mechanism group's band counts its sources: one
        // source's spread says nothing of how far another source's setups sit
        // from it, so a band of one source is that source's band widened one
        // fallback level (lookupBand), the same measured factor a group takes
        // when it falls back to a wider band, not the wider band itself (made
        // of other mechanisms' rows).
        if (std::get<2>(key) >= 0 || !std::get<3>(key).empty()) b.sources = int(sources[key].size());
        b.kind = std::get<0>(key);
        b.engine = std::get<1>(key);
        b.family = std::get<2>(key);
        b.group = std::get<3>(key);
        b.lowLog = predictionQuantileOf(values, 0.10);
        b.highLog = predictionQuantileOf(values, 0.90);
        b.rows = int(values.size());
        bands.push_back(b);
    }
    return bands;
}

std::vector<BandWidening> groupOutWidening(const std::vector<CalibrationRow>& rows, const std::vector<double>& logs,
                                           const std::vector<char>& use) {
    const std::vector<CalibrationBand> bands = makeBands(rows, logs, use);
    // Each row's own band: the most specific one lookupBand starts from.
    std::map<int, std::vector<std::size_t>> members;  // band index -> rows
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const CalibrationRow& r = rows[i];
        if (!use[i] || !r.fitUse || std::isnan(logs[i]) || servingFigure(r)) continue;
        const std::string kind = bandKind(r.kind);
        if (kind.empty() || kind.rfind("serving_", 0) == 0) continue;
        int rank = -1;
        const int own = bestBandIndex(bands, kind, int(r.engine), r.gpuStated ? gpuFamilyIndex(r.gpu) : -1, r.bandGroup, &rank);
        if (own < 0 || rank <= 0) continue;  // the kind-wide band has none wider to fall back to
        members[own].push_back(i);
    }
    std::map<std::string, std::vector<double>> perLevel;  // kind -> scale per level fallen
    for (const auto& [own, group] : members) {
        std::vector<char> others = use;
        for (std::size_t i : group) others[i] = 0;
        const std::vector<CalibrationBand> without = makeBands(rows, logs, others);
        for (std::size_t i : group) {
            const CalibrationRow& r = rows[i];
            double lo = 0, hi = 0;
            int fell = 0;
            if (!lookupBand(without, bandKind(r.kind), int(r.engine), r.gpuStated ? gpuFamilyIndex(r.gpu) : -1, lo, hi,
                            1.0, r.bandGroup, &fell) ||
                fell < 1 || !(hi > lo))
                continue;
            const double centre = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
            const double scale = std::fabs(logs[i] - centre) / half;
            perLevel[bandKind(r.kind)].push_back(std::pow(scale, 1.0 / fell));
        }
    }
    std::vector<BandWidening> out;
    for (const auto& [kind, scales] : perLevel) {
        if (int(scales.size()) < kMinBandRows) continue;
        // Rounded to 3 digits: the file is compared byte for byte.
        const double factor = std::round(predictionQuantileOf(scales, 0.8) * 1000.0) / 1000.0;
        out.push_back({kind, std::max(1.0, factor), int(scales.size())});
    }
    return out;
}

namespace {

double wideningIn(const std::vector<BandWidening>& widening, const std::string& kind) {
    for (const BandWidening& w : widening) {
        if (w.kind == kind) return w.factor;
    }
    return kBandFallbackWidening;
}

}  // namespace

CrossReport crossValidate(const RowSet& set) {
    const std::vector<CalibrationRow>& rows = set.rows;
    CrossReport report;
    report.full = fitConstants(rows, {});
    report.inSampleLog = logErrors(rows, report.full.table);
    report.crossLog = report.inSampleLog;

    std::map<std::string, int> sourceRows;
    for (const CalibrationRow& r : rows) ++sourceRows[r.source];
    report.sources.assign(sourceRows.begin(), sourceRows.end());

    // Leave each source out of the fit; only sources with fitted rows change it.
    for (const auto& [source, count] : report.sources) {
        (void)count;
        bool hasFitted = false, hasServing = false;
        std::vector<int> use;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (rows[i].source == source) {
                hasFitted = hasFitted || fitted(rows[i]);
                hasServing = hasServing || servingFigure(rows[i]);
            } else {
                use.push_back(int(i));
            }
        }
        if (!hasFitted) continue;
        ++report.refits;
        const FitResult fold = fitConstants(rows, use, hasServing);
        report.trainingFolds.push_back({source, fold.training});
        const ScopedCalibration useFold(&fold.table);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (rows[i].source == source) report.crossLog[i] = logError(rows[i]);
        }
        }

    // Serving: every row so far comes from one source, so leaving the source
    // out leaves the priors; leaving out one engine x GPU system at a time
    // (the serving constants refitted on the others) is the honest figure.
    report.systemLog.assign(rows.size(), kNaN);
    std::set<std::string> systems;
    for (const CalibrationRow& r : rows) {
        if (servingFigure(r) && !r.system.empty()) systems.insert(r.system);
    }
    for (const std::string& system : systems) {
        const std::vector<int> use = rowsOutside(rows, system);
        ++report.systemRefits;
        const FitResult fold = fitServingConstants(rows, use, report.full.table);
        const ScopedCalibration useFold(&fold.table);
        std::vector<double> tpot, ttft;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (rows[i].system != system || !servingFigure(rows[i])) continue;
            report.systemLog[i] = logError(rows[i]);
            if (std::isnan(report.systemLog[i])) continue;
            (rows[i].figure == Figure::ServingTpot ? tpot : ttft).push_back(pct(report.systemLog[i]));
        }
        report.systemMedians.push_back({system, {quantileOf(tpot, 0.5), quantileOf(ttft, 0.5)}});
    }

    servingThroughput(rows, report);
    leaveGenerationsOut(rows, report);
    report.widening = servingBandWidening(rows, report.inSampleLog, report.systemLog);

    // Bands from the honest residuals: leave-one-source-out, and for the
    // serving rows leave-one-system-out.
    std::vector<double> bandLog = report.crossLog;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!std::isnan(report.systemLog[i])) bandLog[i] = report.systemLog[i];
    }
    std::vector<char> all(rows.size(), 1);
    report.bands = makeBands(rows, bandLog, all);
    // The other kinds' widening per fallback level, from leaving each group
    // out of the bands in turn.
    for (const BandWidening& w : groupOutWidening(rows, report.crossLog, all)) report.widening.push_back(w);

    // Per kind, first-seen order.
    std::vector<std::string> kinds;
    for (const CalibrationRow& r : rows) {
        if (std::find(kinds.begin(), kinds.end(), r.kind) == kinds.end()) kinds.push_back(r.kind);
    }
    for (const std::string& kind : kinds) {
        KindAccuracy k;
        k.kind = kind;
        std::vector<double> in, cross, known, system, generation;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const CalibrationRow& r = rows[i];
            if (r.kind != kind) continue;
            k.refitted = k.refitted || fitted(r);
            if (r.fitCorrect) { ++k.fitChecks; k.fitCorrect += *r.fitCorrect ? 1 : 0; }
            if (std::isnan(report.inSampleLog[i]) || std::isnan(report.crossLog[i])) continue;
            in.push_back(pct(report.inSampleLog[i]));
            cross.push_back(pct(report.crossLog[i]));
            if (r.fitUse) known.push_back(pct(report.crossLog[i]));
            if (!std::isnan(report.systemLog[i])) system.push_back(pct(report.systemLog[i]));
            if (!std::isnan(report.generationLog[i])) generation.push_back(pct(report.generationLog[i]));
        }
        k.systemRows = int(system.size());
        k.systemMedianPct = quantileOf(system, 0.5);
        k.systemP90Pct = quantileOf(system, 0.9);
        k.generationRows = int(generation.size());
        k.generationMedianPct = quantileOf(generation, 0.5);
        k.generationP90Pct = quantileOf(generation, 0.9);
        k.knownRows = int(known.size());
        k.knownCrossMedianPct = quantileOf(known, 0.5);
        k.rows = int(in.size());
        k.inMedianPct = quantileOf(in, 0.5);
        k.inP90Pct = quantileOf(in, 0.9);
        k.crossMedianPct = quantileOf(cross, 0.5);
        k.crossP90Pct = quantileOf(cross, 0.9);
        report.kinds.push_back(k);
    }
    // Band coverage: each source's rows against bands made without them.
    report.bandLowLog.assign(rows.size(), kNaN);
    report.bandHighLog.assign(rows.size(), kNaN);
    for (const auto& [source, count] : report.sources) {
        (void)count;
        std::vector<char> others(rows.size(), 0);
        for (std::size_t i = 0; i < rows.size(); ++i) others[i] = rows[i].source != source;
        const std::vector<CalibrationBand> bands = makeBands(rows, report.crossLog, others);
        // The widening per level measured without the source too.
        const std::vector<BandWidening> widening = groupOutWidening(rows, report.crossLog, others);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const CalibrationRow& r = rows[i];
            // Bands are for setups the engine knows (catalog model, stated GPU
            // variant, a contract engine): rows of assumed shapes are scored
            // but neither make nor test them.
            if (r.source != source || std::isnan(report.crossLog[i]) || bandKind(r.kind).empty() || !r.fitUse) continue;
            double lo = 0, hi = 0;
            if (!lookupBand(bands, bandKind(r.kind), int(r.engine), r.gpuStated ? gpuFamilyIndex(r.gpu) : -1, lo, hi,
                            wideningIn(widening, bandKind(r.kind)), r.bandGroup))
                continue;
            report.bandLowLog[i] = lo;
            report.bandHighLog[i] = hi;
            for (KindAccuracy& k : report.kinds) {
                if (k.kind != r.kind) continue;
                ++k.bandRows;
                const bool inside = report.crossLog[i] >= lo && report.crossLog[i] <= hi;
                if (inside) ++k.bandCovered;
                auto& tally = k.bandBySource[source];
                ++tally.second;
                if (inside) ++tally.first;
            }
        }
    }
    // Band coverage with only the row itself left out of its band.
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const CalibrationRow& r = rows[i];
        if (std::isnan(report.bandLowLog[i]) || servingFigure(r)) continue;
        std::vector<char> others(rows.size(), 1);
        others[i] = 0;
        const std::vector<CalibrationBand> bands = makeBands(rows, report.crossLog, others);
        double lo = 0, hi = 0;
        if (!lookupBand(bands, bandKind(r.kind), int(r.engine), r.gpuStated ? gpuFamilyIndex(r.gpu) : -1, lo, hi,
                        wideningIn(report.widening, bandKind(r.kind)), r.bandGroup))
            continue;
        for (KindAccuracy& k : report.kinds) {
            if (k.kind != r.kind) continue;
            ++k.rowBandRows;
            if (report.crossLog[i] >= lo && report.crossLog[i] <= hi) ++k.rowBandCovered;
        }
    }
    for (KindAccuracy& k : report.kinds) {
        double sum = 0;
        for (const auto& entry : k.bandBySource) sum += double(entry.second.first) / entry.second.second;
        if (!k.bandBySource.empty()) k.bandSourceMeanPct = 100.0 * sum / double(k.bandBySource.size());
    }
    return report;
}

std::pair<int, int> fitVerdicts(const CrossReport& report) {
    int correct = 0, checked = 0;
    for (const KindAccuracy& k : report.kinds) {
        if (k.kind != "fits" && k.kind.find("_memory") == std::string::npos) continue;
        correct += k.fitCorrect;
        checked += k.fitChecks;
    }
    return {correct, checked};
}

}  // namespace caliper::calibrate
