#include "json/calibration_json.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "speed/efficiency.hpp"
#include "json/json_read.hpp"

namespace caliper {

std::string_view embeddedCalibrationJson();  // generated from data/calibration.json by CMake

namespace io {

namespace {

template <typename Enum>
int indexOf(const std::string& name, int count, const char* what) {
    if (name == "*") return -1;
    for (int i = 0; i < count; ++i) {
        if (name == toString(Enum(i))) return i;
    }
    throw std::runtime_error(std::string("calibration: unknown ") + what + " '" + name + "'");
}

int familyIndex(const std::string& name) {
    if (name == "*") return -1;
    for (int i = 0; i < kGpuFamilies; ++i) {
        if (name == gpuFamilyName(i)) return i;
    }
    throw std::runtime_error("calibration: unknown GPU family '" + name + "'");
}

struct Entry {
    int constant = 0;
    int engine = -1, format = -1, family = -1, group = -1;
    double scale = 1;
    int specificity() const {
        return (engine >= 0 ? 1 : 0) + (format >= 0 ? 2 : 0) + (family >= 0 ? 4 : 0) + (group >= 0 ? 8 : 0);
    }
};

Entry readEntry(const Json& j) {
    Entry e;
    e.constant = indexOf<CalibratedConstant>(j.at("constant").get<std::string>(), kCalibratedConstants, "constant");
    e.engine = indexOf<EngineClass>(j.at("engine").get<std::string>(), kEngineClasses, "engine class");
    e.format = indexOf<FormatClass>(j.at("format").get<std::string>(), kFormatClasses, "format class");
    // "gpu": "*", a family ("family:apple") or a group ("apple-ultra").
    const std::string gpu = j.at("gpu").get<std::string>();
    if (gpu.rfind("family:", 0) == 0) {
        e.family = familyIndex(gpu.substr(7));
    } else {
        e.group = indexOf<GpuGroup>(gpu, kGpuGroups, "GPU group");
    }
    e.scale = j.at("scale").get<double>();
    if (!(e.scale > 0) || e.scale > 100) throw std::runtime_error("calibration: scale out of range");
    return e;
}

bool matches(const Entry& e, int engine, int format, int group) {
    return (e.engine < 0 || e.engine == engine) && (e.format < 0 || e.format == format) &&
           (e.group < 0 || e.group == group) &&
           (e.family < 0 || e.family == gpuFamilyIndex(GpuGroup(group)));
}

// A serving constant's entry: engine x GPU generation x format ("*": any).
struct ServingEntry {
    int constant = 0, engine = 0, generation = -1, format = -1;
    double scale = 1;
    int specificity() const { return (generation >= 0 ? 1 : 0) + (format >= 0 ? 2 : 0); }
};

ServingEntry readServingEntry(const Json& j) {
    ServingEntry e;
    e.constant = indexOf<ServingConstant>(j.at("constant").get<std::string>(), kServingConstants, "serving constant");
    e.engine = indexOf<ServingEngine>(j.at("engine").get<std::string>(), kServingEngines, "serving engine");
    if (e.engine < 0) throw std::runtime_error("calibration: a serving constant names its engine");
    e.generation = indexOf<GpuGeneration>(j.at("gpu_generation").get<std::string>(), kGpuGenerations, "GPU generation");
    e.format = indexOf<FormatClass>(j.at("format").get<std::string>(), kFormatClasses, "format class");
    e.scale = j.at("scale").get<double>();
    if (!(e.scale > 0) || e.scale > 100) throw std::runtime_error("calibration: scale out of range");
    return e;
}

}  // namespace

CalibrationTable parseCalibrationTable(std::string_view text) {
    const Json doc = Json::parse(text.begin(), text.end());
    CalibrationTable table;
    std::vector<Entry> entries;
    for (const Json& j : doc.at("constants")) entries.push_back(readEntry(j));
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.specificity() < b.specificity(); });
    for (const Entry& e : entries) {
        for (int engine = 0; engine < kEngineClasses; ++engine)
            for (int format = 0; format < kFormatClasses; ++format)
                for (int group = 0; group < kGpuGroups; ++group) {
                    if (!matches(e, engine, format, group)) continue;
                    table.scale[std::size_t(CalibrationTable::index(CalibratedConstant(e.constant), EngineClass(engine),
                                                                     FormatClass(format), GpuGroup(group)))] = e.scale;
                }
    }
    std::vector<ServingEntry> serving;
    if (doc.contains("serving_constants")) {
        for (const Json& j : doc.at("serving_constants")) serving.push_back(readServingEntry(j));
    }
    std::stable_sort(serving.begin(), serving.end(),
                     [](const ServingEntry& a, const ServingEntry& b) { return a.specificity() < b.specificity(); });
    for (const ServingEntry& e : serving) {
        for (int g = 0; g < kGpuGenerations; ++g)
            for (int f = 0; f < kFormatClasses; ++f) {
                if ((e.generation >= 0 && e.generation != g) || (e.format >= 0 && e.format != f)) continue;
                table.servingScale[std::size_t(CalibrationTable::servingIndex(ServingConstant(e.constant), e.engine,
                                                                              GpuGeneration(g), FormatClass(f)))] = e.scale;
            }
    }
    for (const Json& j : doc.at("bands")) {
        CalibrationBand b;
        b.kind = j.at("kind").get<std::string>();
        b.engine = indexOf<EngineClass>(j.at("engine").get<std::string>(), kEngineClasses, "engine class");
        b.family = familyIndex(j.at("gpu_family").get<std::string>());
        b.lowLog = j.at("p10_log").get<double>();
        b.highLog = j.at("p90_log").get<double>();
        b.rows = j.at("rows").get<int>();
        if (j.contains("group")) b.group = j.at("group").get<std::string>();
        if (j.contains("sources")) b.sources = j.at("sources").get<int>();
        if (b.sources < 0) throw std::runtime_error("calibration: band of " + b.kind + " has negative sources");
        if (!(b.lowLog <= b.highLog)) throw std::runtime_error("calibration: band of " + b.kind + " has p10 > p90");
        table.bands.push_back(b);
    }
    if (doc.contains("training_constants")) {
        for (const Json& j : doc.at("training_constants")) {
            const int c = indexOf<TrainingConstant>(j.at("constant").get<std::string>(), kTrainingConstants,
                                                    "training constant");
            if (c < 0) throw std::runtime_error("calibration: a training constant names itself");
            const double value = j.at("value").get<double>();
            const TrainingBounds b = trainingConstantBounds(TrainingConstant(c));
            if (!(value >= b.low && value <= b.high))
                throw std::runtime_error("calibration: training constant outside its physical bounds");
            table.training[std::size_t(c)] = value;
        }
    }
    if (doc.contains("band_widening")) {
        for (const Json& j : doc.at("band_widening")) {
            const double factor = j.at("factor").get<double>();
            if (!(factor >= 1)) throw std::runtime_error("calibration: band widening below 1");
            table.bandWidening.push_back({j.at("kind").get<std::string>(), factor});
        }
    }
    return table;
}

}  // namespace io

// The built-in table, read once. A file that does not parse leaves the
// priors in force (the calibration test fails on it first).
const CalibrationTable& embeddedCalibrationTable() {
    static const CalibrationTable table = [] {
        try {
            return io::parseCalibrationTable(embeddedCalibrationJson());
        } catch (const std::exception&) {
            return CalibrationTable();
        }
    }();
    return table;
}

}  // namespace caliper
