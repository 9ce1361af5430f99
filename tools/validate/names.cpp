#include "validate/names.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

#include "validate/text.hpp"

namespace caliper::io {

namespace {

// A catalog match whose size differs from the row's by more than this is a
// different model. Wide enough for rounded sizes in row names ("mt0-xxl 12B"
// for 12.9B, "7B" for 6.74B), narrow enough to refuse a different size class.
constexpr double kParamsTolerance = 0.35;
// A GPU whose memory differs from the size the row states by more than this
// is a different variant (A100 40GB vs 80GB).
constexpr double kMemoryTolerance = 0.1;

std::string trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t,;:");
    if (first == std::string_view::npos) return "";
    const auto last = text.find_last_not_of(" \t,;:");
    return std::string(text.substr(first, last - first + 1));
}

void addUnique(std::vector<std::string>& list, const std::string& text) {
    const std::string t = trim(text);
    if (!t.empty() && std::find(list.begin(), list.end(), t) == list.end()) list.push_back(t);
}

// The name outside (...) and [...], and each bracketed note.
std::string outsideBrackets(std::string_view name, std::vector<std::string>* notes) {
    std::string outside, note;
    int depth = 0;
    for (char c : name) {
        if (c == '(' || c == '[') {
            if (depth++ > 0) note += c;
        } else if ((c == ')' || c == ']') && depth > 0) {
            if (--depth > 0) {
                note += c;
            } else {
                if (notes) addUnique(*notes, note);
                note.clear();
            }
        } else if (depth > 0) {
            note += c;
        } else {
            outside += c;
        }
    }
    return trim(outside);
}

std::vector<std::string> wordsOf(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    for (char c : text) {
        if (c == ' ' || c == ',' || c == ';' || c == '"' || c == '\'') {
            if (!word.empty()) words.push_back(word), word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty()) words.push_back(word);
    return words;
}

bool endsWith(const std::string& text, const std::string& tail) {
    return text.size() > tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// Drops words that qualify a model rather than name it, and the organisation
// of a Hugging Face id: "Qwen/Qwen-7B-Chat" -> "Qwen-7B", "Mixtral 8x7B-style MoE" -> "Mixtral 8x7B".
std::string withoutQualifiers(std::string_view name) {
    // Quantized releases name their scheme last: RedHatAI's compressed-tensors
    // repos ("Llama-3.3-70B-Instruct-fp8-dynamic", "Meta-Llama-3.1-8B-Instruct-quantized.w8a8").
    static const char* kSuffixes[] = {"-style", "-chat",    "-instruct", "-hf",    "-base",  "-class",
                                      "-like",  "-gguf",    "-gptq",     "-awq",   "-4bit",  "-8bit",
                                      "-bnb",   "-int4",    "-int8",     "-fp8",   "-dynamic", "-quantized.w8a8",
                                      "-quantized.w4a16", "-quantized.w8a16"};
    static const char* kWords[] = {"class", "style", "moe", "generic", "base", "chat", "instruct", "hf", "model",
                                   "pre-training", "pretraining", "pretrained", "like", "based"};
    std::string out;
    for (std::string word : wordsOf(name)) {
        const auto slash = word.find('/');
        if (slash != std::string::npos) word = word.substr(slash + 1);
        for (bool stripped = true; stripped;) {
            stripped = false;
            for (const char* suffix : kSuffixes) {
                if (endsWith(lowerCase(word), suffix))
                    word.resize(word.size() - std::string(suffix).size()), stripped = true;
            }
        }
        const std::string lower = lowerCase(word);
        if (std::find(std::begin(kWords), std::end(kWords), lower) != std::end(kWords)) continue;
        out += (out.empty() ? "" : " ") + word;
    }
    return out;
}

double paramsBOf(const ModelSpec& model) {
    return model.paramsExact > 0 ? model.paramsExact / 1e9 : countParams(model).total / 1e9;
}

const ModelSpec* lookUpModel(const Catalog& catalog, const std::string& candidate) {
    if (const ModelSpec* model = findModel(catalog, candidate)) return model;
    const std::string key = normalizeName(candidate);
    for (const ModelSpec& model : catalog.models) {
        if (!model.hfId.empty() && normalizeName(model.hfId) == key) return &model;
    }
    return nullptr;
}

std::optional<double> statedMemoryGb(std::string_view name) {
    static const std::regex size(R"((\d+(?:\.\d+)?)\s*(gb|gib)\b)", std::regex::icase);
    const std::string text(name);
    std::smatch m;
    if (!std::regex_search(text, m, size)) return std::nullopt;
    return std::stod(m[1].str());
}

const std::regex& countPrefix() {  // "2x ", "8 x ", "4×"
    static const std::regex prefix(R"(^\s*(\d+)\s*(?:x|\*|×)\s*)", std::regex::icase);
    return prefix;
}

std::vector<std::string> gpuNameCandidates(std::string_view fullName) {
    // "2x RTX 3090": the count belongs in gpu_count, not the name.
    const std::string name = std::regex_replace(std::string(fullName), countPrefix(), "");
    std::vector<std::string> notes;
    const std::string base = outsideBrackets(name, &notes);
    std::vector<std::string> out;
    addUnique(out, std::string(name));
    for (const std::string& note : notes) {
        static const std::regex detail(R"((\d+\s*gb|\d+[- ]core|\d+c\b))", std::regex::icase);
        for (auto it = std::sregex_iterator(note.begin(), note.end(), detail); it != std::sregex_iterator(); ++it) {
            addUnique(out, base + " " + it->str(0));
        }
        addUnique(out, base + " " + note);
    }
    addUnique(out, base);
    for (const std::string& note : notes) addUnique(out, note);
    // Trailing words that describe rather than name the card: memory type and edition.
    static const char* kQualifiers[] = {"hbm3", "hbm3e", "hbm2e", "hbm2", "gddr6", "gddr6x", "gddr7", "workstation",
                                        "edition", "generation", "gpu", "card"};
    std::vector<std::string> words = wordsOf(base);
    while (words.size() > 1 && std::find(std::begin(kQualifiers), std::end(kQualifiers), lowerCase(words.back())) !=
                                   std::end(kQualifiers)) {
        words.pop_back();
        std::string shorter;
        for (const auto& w : words) shorter += (shorter.empty() ? "" : " ") + w;
        addUnique(out, shorter);
    }
    return out;
}

}  // namespace

// The model of a weights file or a runtime tag: "Phi-3.5-mini-instruct-Q4_K_M.gguf",
// "qwen3-coder-next:Q4_K_M", "gemma4:e4b-mlx", "TinyLlama-1.1B-Chat-v1.0.i1-Q4_K_M.gguf"
// -> the name without the file type and quantization tags.
std::string withoutFileTags(std::string name) {
    static const std::regex tag(
        R"re((\.gguf|[-_.:](i1|i?q\d\w*|f16|bf16|fp16|f32|fp8|mlx|mxfp4|mxfp8|nvfp4|latest|ud|xl|k_m|k_s))$)re",
        std::regex::icase);
    for (std::smatch m; std::regex_search(name, m, tag);) name.resize(name.size() - std::size_t(m.length(0)));
    return trim(name);
}

std::string withoutOrganisations(std::string_view name) {
    static const std::regex organisation(R"((^|[\s(])[A-Za-z0-9_.-]+/)");
    return std::regex_replace(std::string(name), organisation, "$1");
}

std::vector<std::string> modelNameCandidates(std::string_view name) {
    std::vector<std::string> notes;
    const std::string base = outsideBrackets(name, &notes);
    std::vector<std::string> out;
    addUnique(out, std::string(name));
    addUnique(out, base);
    for (const std::string& word : wordsOf(name)) {  // Hugging Face ids: "org/name"
        std::string bare = word;
        bare.erase(std::remove_if(bare.begin(), bare.end(), [](char c) { return c == '(' || c == ')'; }), bare.end());
        if (bare.find('/') != std::string::npos) addUnique(out, bare);
    }
    static const std::regex quoted(R"re("([^"]+)")re");
    const std::string text(name);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), quoted); it != std::sregex_iterator(); ++it) {
        addUnique(out, (*it)[1].str());
    }
    for (const std::string& note : notes) addUnique(out, note);
    const std::string bare = withoutQualifiers(base);
    addUnique(out, bare);
    // A release suffix ("-v0.2") last: the catalog may list another release of the same shape.
    static const std::regex release(R"([-_ ]v\d+(?:\.\d+)*$)", std::regex::icase);
    addUnique(out, std::regex_replace(bare, release, ""));
    const std::string untagged = withoutFileTags(base);
    if (untagged != base) {
        addUnique(out, untagged);
        addUnique(out, withoutQualifiers(untagged));
    }
    return out;
}

const ModelSpec* findRowModel(const Catalog& catalog, std::string_view name, std::optional<double> paramsB) {
    for (const std::string& candidate : modelNameCandidates(name)) {
        const ModelSpec* model = lookUpModel(catalog, candidate);
        if (!model) continue;
        if (paramsB && *paramsB > 0 && std::fabs(paramsBOf(*model) - *paramsB) > kParamsTolerance * *paramsB) continue;
        return model;
    }
    return nullptr;
}

bool namesNoGpu(std::string_view name) {
    const std::string base = lowerCase(outsideBrackets(name, nullptr));
    return base.empty() || base == "any" || base == "n/a" || base == "none" || base == "unknown" || base == "null" ||
           base == "not stated";
}

const GpuSpec* findRowGpu(const Catalog& catalog, std::string_view name) {
    const std::optional<double> statedGb = statedMemoryGb(name);
    for (const std::string& candidate : gpuNameCandidates(name)) {
        const GpuSpec* gpu = findGpu(catalog, candidate);
        if (!gpu) continue;
        if (statedGb && std::fabs(gpu->memoryGb - *statedGb) > kMemoryTolerance * *statedGb) continue;
        return gpu;
    }
    return nullptr;
}

std::optional<int> countInGpuName(std::string_view name) {
    const std::string text(name);
    std::smatch m;
    if (!std::regex_search(text, m, countPrefix()) || m[1].length() > 4) return std::nullopt;
    return std::stoi(m[1].str());
}

const GpuSpec* largestGpu(const Catalog& catalog) {
    const GpuSpec* best = nullptr;
    for (const GpuSpec& gpu : catalog.gpus) {
        const bool preferred = gpu.vendor == "nvidia";
        const bool bestPreferred = best && best->vendor == "nvidia";
        if (!best || (preferred && !bestPreferred) || (preferred == bestPreferred && gpu.memoryGib > best->memoryGib)) {
            best = &gpu;
        }
    }
    return best;
}

}  // namespace caliper::io
