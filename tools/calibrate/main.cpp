// caliper_calibrate: fits the engine's calibrated constants from measured
// rows and prints data/calibration.json.
//   caliper_calibrate [--rows-out FILE] [--check FILE] [--check-rows FILE] [--leave-out SOURCE] ROWS.jsonl...
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
    std::string rowsOut, check, checkRows, leaveOut;
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
        else {
            std::string text;
            if (!readFile(arg, text)) { std::fprintf(stderr, "caliper_calibrate: cannot read %s\n", arg.c_str()); return 2; }
            // Files are named by their path inside the repository.
            const std::size_t at = arg.rfind("validation/");
            files.push_back({at == std::string::npos ? arg : arg.substr(at), text});
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: caliper_calibrate [--rows-out FILE] [--check FILE] [--check-rows FILE] ROWS.jsonl...\n");
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
