#include "calibration_file.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace caliper::calibrate {

namespace {

using Json = nlohmann::ordered_json;

// Four significant digits: readable, and the same text from any compiler.
double r4(double x) {
    if (!std::isfinite(x)) return 0;
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", x);
    return std::atof(text);
}

// One top-level key per line and one array entry per line: the file is
// built into the engine and the page, so it stays small, and a re-fit still
// shows as a line-by-line diff.
std::string compactLines(const Json& doc) {
    std::string out = "{\n";
    bool firstKey = true;
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        out += firstKey ? "" : ",\n";
        firstKey = false;
        out += Json(it.key()).dump() + ": ";
        if (it.value().is_array() && !it.value().empty() && it.value().front().is_object()) {
            out += "[\n";
            bool first = true;
            for (const Json& entry : it.value()) {
                out += (first ? "  " : ",\n  ") + entry.dump();
                first = false;
            }
            out += "\n]";
        } else {
            out += it.value().dump();
        }
    }
    return out + "\n}\n";
}

std::string gpuName(const FittedConstant& f) {
    if (f.group >= 0) return toString(GpuGroup(f.group));
    if (f.family >= 0) return std::string("family:") + gpuFamilyName(f.family);
    return "*";
}

// Band coverage per band kind and mechanism group: each group's left-out
// rows against bands made without their source, and how many sources its
// rows come from. A group whose rows all come from one source is tested,
// when that source is left out, against the other groups' spread only.
std::string bandGroupCoverage(const RowSet& set, const CrossReport& report) {
    struct Tally {
        int covered = 0, banded = 0;
        std::map<std::string, std::pair<int, int>> bySource;  // source -> covered, banded
    };
    std::map<std::pair<std::string, std::string>, Tally> groups;  // band kind, group -> tally
    for (std::size_t i = 0; i < set.rows.size(); ++i) {
        const CalibrationRow& r = set.rows[i];
        if (std::isnan(report.bandLowLog[i])) continue;
        const bool inside = report.crossLog[i] >= report.bandLowLog[i] && report.crossLog[i] <= report.bandHighLog[i];
        Tally& t = groups[{bandKind(r.kind), r.bandGroup}];
        t.covered += inside;
        ++t.banded;
        auto& s = t.bySource[r.source];
        s.first += inside;
        ++s.second;
    }
    std::string out = "80% band coverage per band group (left-out rows against bands made without their source):\n";
    char line[320];
    for (const auto& [key, t] : groups) {
        std::snprintf(line, sizeof line, "  %-16s %-16s %4d/%-4d (%3.0f%%) from %d source%s", key.first.c_str(),
                      key.second.empty() ? "-" : key.second.c_str(), t.covered, t.banded, 100.0 * t.covered / t.banded,
                      int(t.bySource.size()), t.bySource.size() == 1 ? "" : "s");
        out += line;
        const char* sep = ": ";
        for (const auto& [source, s] : t.bySource) {
            std::snprintf(line, sizeof line, "%s%.48s %d/%d", sep, source.c_str(), s.first, s.second);
            out += line;
            sep = "; ";
        }
        out += "\n";
    }
    return out;
}

}  // namespace

std::string calibrationJson(const RowSet& set, const CrossReport& report) {
    Json doc;
    doc["calibration_version"] = 1;
    doc["about"] =
        "Written by build/bin/caliper_calibrate (tools/calibrate) from the measured rows of the files below; do not "
        "edit by hand. Each constant is a scale on the engine's sourced prior (core/src/speed/efficiency*.cpp; the "
        "training allocator's reserves in core/src/memory/overhead.cpp), "
        "fitted by mechanism and group from the most general group (engine) to the most specific (engine x format x "
        "GPU group); a group without enough rows of its own keeps the scale of the group above it. Rows with "
        "measured false or trust low are never used. Bands are the 10th-90th percentiles of ln(predicted / measured) "
        "over leave-one-source-out residuals (serving kinds: leave-one-(engine x GPU)-out), by engine x GPU family or "
        "by mechanism group; a band that falls back to a wider group is widened per level by band_widening's factor "
        "(serving: left-out over in-sample 10-90% width; others: leave-one-group-out), else 1.25x. Serving constants: engine "
        "(the family level: every GPU without a fitted group of its own takes it, from one GPU system or more), then "
        "engine x GPU generation, then x format (two GPU systems each). Training constants are values, not scales, "
        "fitted inside their physical bounds on the training speed rows that read them (training_constants; "
        "calibration-rows.json lists the rows). A mechanism group's or a family's band states its sources: where they are "
        "one, it is that source's band widened one fallback level by the same factor (one source's spread says nothing "
        "of another source's).";
    doc["files"] = set.files;
    doc["rows"] = {{"read", set.rowsRead},
                   {"not_measured_skipped", set.notMeasured},
                   {"low_trust_skipped", set.lowTrust},
                   {"scored", int(set.rows.size())},
                   {"unscored", int(set.unscored.size())}};
    int fittedRows = 0;
    for (const CalibrationRow& r : set.rows) fittedRows += fitted(r) ? 1 : 0;
    doc["rows"]["fitted_figures"] = fittedRows;
    Json constants = Json::array();
    for (const FittedConstant& f : report.full.constants) {
        Json c;
        c["constant"] = toString(f.constant);
        c["level"] = toString(f.level);
        c["engine"] = toString(f.engine);
        c["format"] = f.format >= 0 ? toString(FormatClass(f.format)) : "*";
        c["gpu"] = gpuName(f);
        c["scale"] = f.scale;
        c["rows"] = int(f.rowIds.size());
        c["sources"] = f.sources;
        c["median_abs_error_pct_before"] = r4(std::fabs(std::exp(f.medianAbsLogBefore) - 1) * 100);
        c["median_abs_error_pct_after"] = r4(std::fabs(std::exp(f.medianAbsLogAfter) - 1) * 100);
        constants.push_back(c);
    }
    doc["constants"] = constants;
    Json serving = Json::array();
    for (const FittedServingConstant& f : report.full.serving) {
        Json c;
        c["constant"] = toString(f.constant);
        c["level"] = toString(f.level);
        c["engine"] = toString(ServingEngine(f.engine));
        c["gpu_generation"] = f.generation >= 0 ? toString(GpuGeneration(f.generation)) : "*";
        c["format"] = f.format >= 0 ? toString(FormatClass(f.format)) : "*";
        c["scale"] = f.scale;
        c["rows"] = int(f.rowIds.size());
        c["sources"] = f.sources;
        c["median_abs_error_pct_before"] = r4(std::fabs(std::exp(f.medianAbsLogBefore) - 1) * 100);
        c["median_abs_error_pct_after"] = r4(std::fabs(std::exp(f.medianAbsLogAfter) - 1) * 100);
        serving.push_back(c);
    }
    doc["serving_constants"] = serving;
    // Training constants: values (not scales) inside their physical bounds,
    // each on its mechanism group of training speed rows (fitter.hpp); the
    // engine's prior stays where none is listed.
    Json training = Json::array();
    for (const FittedTrainingConstant& f : report.full.training) {
        Json c;
        c["constant"] = toString(f.constant);
        c["value"] = f.value;
        c["bounds"] = {f.low, f.high};
        c["rows"] = int(f.rowIds.size());
        c["sources"] = f.sources;
        c["median_abs_error_pct_at_prior"] = r4(std::fabs(std::exp(f.medianAbsLogBefore) - 1) * 100);
        c["median_abs_error_pct_after"] = r4(std::fabs(std::exp(f.medianAbsLogAfter) - 1) * 100);
        training.push_back(c);
    }
    doc["training_constants"] = training;
    Json bands = Json::array();
    for (const CalibrationBand& b : report.bands) {
        Json band = {{"kind", b.kind},
                     {"engine", b.engine >= 0 ? toString(EngineClass(b.engine)) : "*"},
                     {"gpu_family", b.family >= 0 ? gpuFamilyName(b.family) : "*"}};
        if (!b.group.empty()) band["group"] = b.group;
        if (b.sources > 0) band["sources"] = b.sources;
        band["p10_log"] = r4(b.lowLog);
        band["p90_log"] = r4(b.highLog);
        band["rows"] = b.rows;
        bands.push_back(band);
    }
    doc["bands"] = bands;
    // Per serving kind: the widening of a band for each level it falls back
    // (an unseen GPU's group takes its engine's family level), measured as the
    // leave-one-(engine x GPU)-out residuals' 10-90% width over the in-sample
    // ones (cross_validation.hpp).
    Json widening = Json::array();
    for (const BandWidening& w : report.widening) {
        widening.push_back({{"kind", w.kind}, {"factor", w.factor}, {"rows", w.rows}});
    }
    doc["band_widening"] = widening;
    return compactLines(doc);
}

std::string calibrationRowsJson(const CrossReport& report) {
    Json doc;
    doc["about"] = "The rows each constant of data/calibration.json rests on (written by caliper_calibrate).";
    Json list = Json::array();
    for (const FittedConstant& f : report.full.constants) {
        list.push_back({{"constant", toString(f.constant)},
                        {"engine", toString(f.engine)},
                        {"format", f.format >= 0 ? toString(FormatClass(f.format)) : "*"},
                        {"gpu", gpuName(f)},
                        {"row_ids", f.rowIds}});
    }
    doc["constants"] = list;
    Json trainingList = Json::array();
    for (const FittedTrainingConstant& f : report.full.training) {
        trainingList.push_back({{"constant", toString(f.constant)}, {"row_ids", f.rowIds}});
    }
    doc["training_constants"] = trainingList;
    // Serving groups fit their seven constants together on the same rows;
    // each row is listed once, under the most specific group it rests on
    // (a wider group rests on its own rows and those of the groups below it).
    std::map<std::string, std::size_t> deepest;  // row id -> index in report.full.serving
    for (std::size_t i = 0; i < report.full.serving.size(); ++i) {
        for (const std::string& id : report.full.serving[i].rowIds) deepest[id] = i;
    }
    Json groups = Json::array();
    for (std::size_t i = 0; i < report.full.serving.size(); ++i) {
        const FittedServingConstant& f = report.full.serving[i];
        if (f.constant != ServingConstant::LayerTimeS) continue;  // one entry per group
        std::vector<std::string> own;
        for (const std::string& id : f.rowIds) {
            const auto it = deepest.find(id);
            if (it != deepest.end() && report.full.serving[it->second].level == f.level &&
                report.full.serving[it->second].engine == f.engine &&
                report.full.serving[it->second].generation == f.generation &&
                report.full.serving[it->second].format == f.format)
                own.push_back(id);
        }
        groups.push_back({{"engine", toString(ServingEngine(f.engine))},
                          {"level", toString(f.level)},
                          {"gpu_generation", f.generation >= 0 ? toString(GpuGeneration(f.generation)) : "*"},
                          {"format", f.format >= 0 ? toString(FormatClass(f.format)) : "*"},
                          {"rows", int(f.rowIds.size())},
                          {"own_row_ids", own}});
    }
    doc["serving_groups"] = groups;
    // The accuracy the constants give, per kind, and the rows per source: for
    // readers, not for the engine, so kept out of the file built into it.
    Json accuracy = Json::array();
    for (const KindAccuracy& k : report.kinds) {
        Json a;
        a["kind"] = k.kind;
        a["rows_with_error"] = k.rows;
        a["refitted"] = k.refitted;
        a["in_sample_median_pct"] = r4(k.inMedianPct);
        a["in_sample_p90_pct"] = r4(k.inP90Pct);
        a["cross_validated_median_pct"] = r4(k.crossMedianPct);
        a["cross_validated_p90_pct"] = r4(k.crossP90Pct);
        a["known_setup_rows"] = k.knownRows;
        a["known_setup_cross_validated_median_pct"] = r4(k.knownCrossMedianPct);
        a["fit_checks"] = k.fitChecks;
        a["fit_correct"] = k.fitCorrect;
        a["band_rows"] = k.bandRows;
        a["band_covered"] = k.bandCovered;
        if (k.bandRows > 0) {
            a["band_sources"] = int(k.bandBySource.size());
            a["band_covered_source_mean_pct"] = r4(k.bandSourceMeanPct);
            a["row_band_rows"] = k.rowBandRows;
            a["row_band_covered"] = k.rowBandCovered;
        }
        if (k.systemRows > 0) {
            a["leave_one_engine_system_out_median_pct"] = r4(k.systemMedianPct);
            a["leave_one_engine_system_out_p90_pct"] = r4(k.systemP90Pct);
        }
        accuracy.push_back(a);
    }
    doc["accuracy"] = accuracy;
    Json sources = Json::array();
    for (const auto& [source, count] : report.sources) sources.push_back({{"source", source}, {"rows", count}});
    doc["sources"] = sources;
    return doc.dump(1) + "\n";
}

std::string crossValidationTable(const RowSet& set, const CrossReport& report) {
    std::string out;
    char line[320];
    std::snprintf(line, sizeof line,
                  "accuracy per kind: in-sample (constants fitted on every row) beside leave-one-source-out "
                  "(fitted without the row's source); %d sources, %d refits\n",
                  int(report.sources.size()), report.refits);
    out += line;
    std::snprintf(line, sizeof line, "%-28s %5s %8s %10s %10s %10s %10s %16s  %-15s %s\n", "kind", "rows", "refitted",
                  "in median", "in p90", "LOSO med", "LOSO p90", "known: rows med", "fit/OOM", "80% band holds");
    out += line;
    for (const KindAccuracy& k : report.kinds) {
        char fit[32] = "-", band[128] = "-";
        if (k.fitChecks) std::snprintf(fit, sizeof fit, "%d/%d (%.0f%%)", k.fitCorrect, k.fitChecks, 100.0 * k.fitCorrect / k.fitChecks);
        if (k.bandRows)
            std::snprintf(band, sizeof band, "%d/%d (%.0f%%; %d sources' mean %.0f%%; row out %d/%d)", k.bandCovered,
                          k.bandRows, 100.0 * k.bandCovered / k.bandRows, int(k.bandBySource.size()),
                          k.bandSourceMeanPct, k.rowBandCovered, k.rowBandRows);
        std::snprintf(line, sizeof line, "%-28s %5d %8s %9.1f%% %9.1f%% %9.1f%% %9.1f%% %8d %6.1f%%  %-15s %s\n",
                      k.kind.c_str(), k.rows, k.refitted ? "yes" : "no", k.inMedianPct, k.inP90Pct, k.crossMedianPct,
                      k.crossP90Pct, k.knownRows, k.knownCrossMedianPct, fit, band);
        out += line;
    }
    for (const FittedTrainingConstant& f : report.full.training) {
        std::snprintf(line, sizeof line,
                      "training constant %-20s %.4g (bounds %g-%g) on %d rows of %d sources: median %.1f%% at the prior, "
                      "%.1f%% fitted\n",
                      toString(f.constant), f.value, f.low, f.high, int(f.rowIds.size()), int(f.sources.size()),
                      std::fabs(std::exp(f.medianAbsLogBefore) - 1) * 100, std::fabs(std::exp(f.medianAbsLogAfter) - 1) * 100);
        out += line;
    }
    for (const auto& [source, fitted] : report.trainingFolds) {
        bool anyTrainingRow = false;
        for (const CalibrationRow& r : set.rows) anyTrainingRow = anyTrainingRow || (r.source == source && r.figure == Figure::Training);
        if (!anyTrainingRow) continue;
        std::snprintf(line, sizeof line, "  without %-48.48s", source.c_str());
        out += line;
        for (const FittedTrainingConstant& f : fitted) {
            std::snprintf(line, sizeof line, " %s %.4g (%d rows)", toString(f.constant), f.value, int(f.rowIds.size()));
            out += line;
        }
        out += "\n";
    }
    bool anySystem = false;
    for (const KindAccuracy& k : report.kinds) anySystem = anySystem || k.systemRows > 0;
    if (anySystem) {
        std::snprintf(line, sizeof line,
                      "serving kinds, leave-one-(engine x system)-out (serving constants refitted without each engine x "
                      "GPU in turn; %d refits):\n",
                      report.systemRefits);
        out += line;
        for (const KindAccuracy& k : report.kinds) {
            if (k.systemRows == 0) continue;
            std::snprintf(line, sizeof line, "  %-26s %5d rows  median %6.1f%%  p90 %6.1f%%\n", k.kind.c_str(), k.systemRows,
                          k.systemMedianPct, k.systemP90Pct);
            out += line;
        }
        for (const KindAccuracy& k : report.kinds) {
            if (k.generationRows == 0) continue;
            std::snprintf(line, sizeof line,
                          "  %-26s %5d rows  median %6.1f%%  p90 %6.1f%%  (leave-one-(engine x GPU generation)-out, "
                          "engines on two generations; %d refits)\n",
                          k.kind.c_str(), k.generationRows, k.generationMedianPct, k.generationP90Pct,
                          report.generationRefits);
            out += line;
        }
        for (const BandWidening& w : report.widening) {
            const bool serving = w.kind.rfind("serving_", 0) == 0;
            std::snprintf(line, sizeof line, "  %-26s band widened %.3fx per fallback level (%s, %d rows)\n", w.kind.c_str(),
                          w.factor,
                          serving ? "left-out / in-sample 10-90% width"
                                  : "leave-one-band-group-out: 80th percentile of the scale the fallback band needed",
                          w.rows);
            out += line;
        }
        if (report.throughputRows > 0) {
            std::snprintf(line, sizeof line,
                          "  output tokens/s per GPU   %5d runs  median %6.1f%%  p90 %6.1f%%  (in-sample %.1f%% / %.1f%%; "
                          "Little's law from each run's TTFT and TPOT)\n",
                          report.throughputRows, report.throughputSystemMedianPct, report.throughputSystemP90Pct,
                          report.throughputInMedianPct, report.throughputInP90Pct);
            out += line;
        }
        for (const auto& [system, median] : report.systemMedians) {
            std::snprintf(line, sizeof line, "    left out %-34s TPOT %6.1f%%  TTFT %6.1f%%\n", system.c_str(), median.first,
                          median.second);
            out += line;
        }
    }
    const auto [fitCorrect, fitChecked] = fitVerdicts(report);
    if (fitChecked > 0) {
        std::snprintf(line, sizeof line, "fit/OOM verdicts (fits rows and memory rows that ran): %d/%d (%.1f%%)\n",
                      fitCorrect, fitChecked, 100.0 * fitCorrect / fitChecked);
        out += line;
    }
    out += "known: rows of setups the engine knows (catalog model, stated GPU variant, a contract engine); only they "
           "make and test the bands\n";
    out += bandGroupCoverage(set, report);
    out += "per left-out source (rows with an error; median absolute error of the fitted kinds in and out of sample; "
           "its known rows inside the 80% bands made without it):\n";
    for (const auto& [source, count] : report.sources) {
        std::vector<double> in, cross;
        int banded = 0, covered = 0;
        // The same per band kind: a source's coverage of one figure's band
        // (decode, fine-tune memory, ...) is what the kind's total sums.
        std::map<std::string, std::pair<int, int>> byKind;  // band kind -> covered, banded
        for (std::size_t i = 0; i < set.rows.size(); ++i) {
            const CalibrationRow& r = set.rows[i];
            if (r.source != source) continue;
            if (!std::isnan(report.bandLowLog[i])) {
                const bool inside = report.crossLog[i] >= report.bandLowLog[i] && report.crossLog[i] <= report.bandHighLog[i];
                ++banded;
                covered += inside;
                auto& k = byKind[bandKind(r.kind)];
                k.first += inside;
                ++k.second;
            }
            if (!fitted(r) || std::isnan(report.crossLog[i]) || std::isnan(report.inSampleLog[i])) continue;
            in.push_back(std::fabs(std::exp(report.inSampleLog[i]) - 1) * 100);
            cross.push_back(std::fabs(std::exp(report.crossLog[i]) - 1) * 100);
        }
        if (in.empty()) continue;
        std::snprintf(line, sizeof line, "  %-60.60s %4d rows  in %6.1f%%  out %6.1f%%", source.c_str(), int(in.size()),
                      quantileOf(in, 0.5), quantileOf(cross, 0.5));
        out += line;
        if (banded > 0) {
            std::snprintf(line, sizeof line, "  band holds %d/%d (%.0f%%)", covered, banded, 100.0 * covered / banded);
            out += line;
            if (byKind.size() > 1) {
                for (const auto& [kind, k] : byKind) {
                    std::snprintf(line, sizeof line, "; %s %d/%d", kind.c_str(), k.first, k.second);
                    out += line;
                }
            } else {
                out += " (" + byKind.begin()->first + ")";
            }
        }
        out += "\n";
    }
    for (const std::string& id : set.notRefitted) out += "  not refitted (typed figure differs from validate's): " + id + "\n";
    std::snprintf(line, sizeof line, "rows: %d read, %d scored, %d not measured and %d low-trust left out, %d unscored\n",
                  set.rowsRead, int(set.rows.size()), set.notMeasured, set.lowTrust, int(set.unscored.size()));
    out += line;
    return out;
}

int runCrossValidation(const Catalog& catalog, const std::vector<std::string>& paths, std::ostream& out,
                       std::ostream& err) {
    std::vector<std::pair<std::string, std::string>> files;
    for (const std::string& path : paths) {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            err << "caliper: cannot read " << path << '\n';
            return 2;
        }
        std::ostringstream text;
        text << in.rdbuf();
        files.push_back({path, text.str()});
    }
    const CalibrationTable priors;
    const ScopedCalibration usePriors(&priors);
    const RowSet set = readCalibrationRows(catalog, files);
    const CrossReport report = crossValidate(set);
    out << crossValidationTable(set, report);
    return 0;
}

}  // namespace caliper::calibrate
