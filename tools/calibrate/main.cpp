// caliper_calibrate: fits the engine's calibrated constants from measured
// rows and prints data/calibration.json.
//   caliper_calibrate [--rows-out FILE] [--check FILE] [--check-rows FILE] [--leave-out SOURCE]
//                     [--residuals-out FILE] ROWS.jsonl...
// --residuals-out writes a tab-separated line per row (id, kind, measured,
// ln(predicted / measured) in sample, with its source left out and with its
// engine x GPU left out, the left-out band it was checked against and that
// band's keys: source, engine class, GPU family, mechanism group, known;
// serving rows add the in-sample model's parts) for reading residual
// patterns by concurrency, lengths, model, GPU and engine.
// --check compares the output with a committed file byte for byte (exit 1
// when they differ): the test that keeps the calibration reproducible.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "caliper/api.hpp"
#include "calibration_file.hpp"
#include "embedded_catalog.hpp"

namespace {

bool readFile(const std::string& path, std::string& text) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
    return true;
}

bool sameAs(const std::string& path, const std::string& text, const char* what) {
    std::string committed;
    if (!readFile(path, committed)) {
        std::fprintf(stderr, "caliper_calibrate: cannot read %s\n", path.c_str());
        return false;
    }
    if (committed == text) return true;
    std::size_t at = 0;
    while (at < committed.size() && at < text.size() && committed[at] == text[at]) ++at;
    std::fprintf(stderr, "caliper_calibrate: %s differs from a fresh fit at byte %zu (re-run caliper_calibrate and commit)\n",
                 what, at);
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    std::string rowsOut, check, checkRows, leaveOut, residualsOut;
    std::vector<std::pair<std::string, std::string>> files;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&](std::string& into) {
            if (i + 1 >= argc) { std::fprintf(stderr, "caliper_calibrate: %s needs a value\n", arg.c_str()); std::exit(2); }
            into = argv[++i];
        };
        if (arg == "--rows-out") next(rowsOut);
        else if (arg == "--check") next(check);
        else if (arg == "--check-rows") next(checkRows);
        else if (arg == "--leave-out") next(leaveOut);  // diagnosis: the fit without one source
        else if (arg == "--residuals-out") next(residualsOut);  // diagnosis: each row's errors
        else {
            std::string text;
            if (!readFile(arg, text)) { std::fprintf(stderr, "caliper_calibrate: cannot read %s\n", arg.c_str()); return 2; }
            // Files are named by their path inside the repository.
            const std::size_t at = arg.rfind("validation/");
            files.push_back({at == std::string::npos ? arg : arg.substr(at), text});
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: caliper_calibrate [--rows-out FILE] [--check FILE] [--check-rows FILE] [--leave-out SOURCE] "
                             "[--residuals-out FILE] ROWS.jsonl...\n");
        return 2;
    }
    const caliper::Catalog catalog = caliper::parseCatalog(caliper::embeddedGpusJson(), caliper::embeddedModelsJson());
    // Fit from the code's priors, never from the committed calibration.
    const caliper::CalibrationTable priors;
    const caliper::ScopedCalibration usePriors(&priors);
    caliper::calibrate::RowSet set = caliper::calibrate::readCalibrationRows(catalog, files);
    if (!leaveOut.empty()) {
        auto& rows = set.rows;
        rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const auto& r) { return r.source == leaveOut; }), rows.end());
    }
    const caliper::calibrate::CrossReport report = caliper::calibrate::crossValidate(set);
    const std::string json = caliper::calibrate::calibrationJson(set, report);
    const std::string rowsJson = caliper::calibrate::calibrationRowsJson(report);
    std::fputs(caliper::calibrate::crossValidationTable(set, report).c_str(), stderr);
    if (!residualsOut.empty()) {
        std::ofstream out(residualsOut, std::ios::binary);
        // Serving rows add the in-sample model's parts: requests running,
        // TTFT's own prefill and wait, the decode step, its host part.
        out << "id\tkind\tmeasured\tin_log\tsource_out_log\tsystem_out_log\tband_low_log\tband_high_log\tsource\tengine_class\tgpu_family\tband_group\tknown\trunning\town_prefill_s\twait_s\t"
               "decode_step_s\thost_step_s\n";
        const caliper::ScopedCalibration useFull(&report.full.table);
        for (std::size_t i = 0; i < set.rows.size(); ++i) {
            const auto& r = set.rows[i];
            out << r.id << '\t' << r.kind << '\t' << r.measured << '\t' << report.inSampleLog[i] << '\t'
                << report.crossLog[i] << '\t' << report.systemLog[i] << '\t' << report.bandLowLog[i] << '\t'
                << report.bandHighLog[i];
            // The band's keys: the row's source, engine class, GPU family (-1: not stated), mechanism group and
            // whether it makes and tests bands (a setup the engine knows).
            const std::string tail = "\t" + r.source + "\t" + std::to_string(int(r.engine)) + "\t" +
                                     std::to_string(r.gpuStated ? caliper::gpuFamilyIndex(r.gpu) : -1) + "\t" +
                                     (r.bandGroup.empty() ? "-" : r.bandGroup) + "\t" + (r.fitUse ? "1" : "0");
            out << tail;
            if (caliper::calibrate::servingFigure(r) && r.serving) {
                auto& evaluator = *r.serving->evaluator;
                evaluator.recalibrate();
                const double users = double(std::max<std::int64_t>(1, r.serving->scenario.batch));
                const auto f = evaluator.runs() ? evaluator.at(users, std::nullopt) : std::nullopt;
                if (f) {
                    const auto& m = evaluator.model();
                    const double context = double(r.serving->scenario.promptTokens) +
                                           double(r.serving->scenario.outputTokens) / 2.0;
                    const double running = f->runningPerReplica;
                    out << '\t' << running << '\t' << f->prefillOwnS << '\t' << f->prefillWaitS << '\t'
                        << m.stepS(running, context, 0, 0) << '\t'
                        << m.engine.stepOverheadS + m.engine.perSequenceOverheadS * running;
                }
            }
            out << '\n';
        }
    }
    if (!check.empty() || !checkRows.empty()) {
        bool same = check.empty() || sameAs(check, json, "calibration.json");
        same = (checkRows.empty() || sameAs(checkRows, rowsJson, "calibration-rows.json")) && same;
        return same ? 0 : 1;
    }
    std::fputs(json.c_str(), stdout);
    if (!rowsOut.empty()) {
        std::ofstream out(rowsOut, std::ios::binary);
        out << rowsJson;
    }
    return 0;
}
