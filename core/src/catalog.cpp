#include "caliper/catalog.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "per_thread.hpp"

namespace caliper {

namespace {

// ASCII classes without the C library's locale lookups: names are compared
// byte by byte on every catalog miss, and bytes from 0x80 up are kept as they are.
bool asciiDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool asciiAlnum(unsigned char c) { return asciiDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char asciiLower(unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); }

}  // namespace

namespace {

// The characters of normalizeName(text), handed one by one to `emit` until it
// returns false: lower-case ASCII letters and digits, every other ASCII byte
// dropped. Building a name and comparing one without building it share this rule.
template <class Emit>
bool forEachNormalizedChar(std::string_view text, Emit&& emit) {
    bool previousWasDigit = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        // Bytes of multi-byte UTF-8 characters stay: "昇腾910B" and "魔改4090" must
        // not collapse to the bare "910b" or "4090".
        if (c >= 0x80) {
            if (!emit(static_cast<char>(c))) return false;
            previousWasDigit = false;
            continue;
        }
        if (!asciiAlnum(c)) continue;
        if (!emit(asciiLower(c))) return false;
        // A memory size written "48G" means 48 GB ("4090 48G" = "4090 48GB").
        const bool wordEnds = i + 1 == text.size() || !asciiAlnum(static_cast<unsigned char>(text[i + 1]));
        if ((c == 'g' || c == 'G') && previousWasDigit && wordEnds) {
            if (!emit('b')) return false;
            previousWasDigit = false;
        } else {
            previousWasDigit = asciiDigit(c);
        }
    }
    return true;
}

// Appends normalizeName(text) to `out`, so a loop over catalog names can
// reuse one buffer instead of allocating a string per name.
void appendNormalized(std::string& out, std::string_view text) {
    forEachNormalizedChar(text, [&](char c) {
        out += c;
        return true;
    });
}

// normalizeName(text) == key without building the name: a lookup compares the
// key with every catalog name, and most differ at their first character.
bool normalizedEquals(std::string_view text, std::string_view key) {
    std::size_t at = 0;
    const bool prefixMatches = forEachNormalizedChar(text, [&](char c) {
        if (at >= key.size() || key[at] != c) return false;
        ++at;
        return true;
    });
    return prefixMatches && at == key.size();
}

}  // namespace

std::string normalizeName(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    appendNormalized(out, text);
    return out;
}

namespace {

// Words people put in front of a product name that the catalog need not
// repeat: "NVIDIA GeForce RTX 4090" should find "RTX 4090".
// "kunlunxin" before "kunlun": the first word that prefixes the key is removed.
constexpr std::array<std::string_view, 26> kVendorWords = {
    "nvidia", "geforce", "tesla", "amd",   "radeon", "intel", "huawei", "apple", "cambricon", "hygon", "kunlunxin", "kunlun",
    "baidu",  "metax",   "enflame", "英伟达", "华为",   "海光",  "昆仑芯",  "百度",   "沐曦",      "燧原",  "寒武纪",
    "iluvatar", "天数智芯", "天数"};

// Runs for every catalog name on a miss ("did you mean"): the words are
// skipped by view and the key copied once, at most.
std::string_view withoutVendorWords(std::string_view key) {
    bool stripped = true;
    while (stripped) {
        stripped = false;
        for (std::string_view word : kVendorWords) {
            if (key.size() > word.size() && key[0] == word[0] && key.substr(0, word.size()) == word) {
                key.remove_prefix(word.size());
                stripped = true;
            }
        }
    }
    return key;
}

std::string stripVendorWords(std::string key) {
    const std::string_view rest = withoutVendorWords(key);
    return rest.size() == key.size() ? key : std::string(rest);
}

// A catalog name normalized and without vendor words, in a buffer reused
// across the names a miss compares.
std::string_view bareName(std::string_view name) {
    CALIPER_PER_THREAD static std::string buffer;
    buffer.clear();
    appendNormalized(buffer, name);
    return withoutVendorWords(buffer);
}

template <class Entry>
bool matches(const Entry& entry, const std::string& key) {
    if (normalizedEquals(entry.id, key) || normalizedEquals(entry.name, key)) return true;
    return std::any_of(entry.aliases.begin(), entry.aliases.end(),
                       [&](const std::string& alias) { return normalizedEquals(alias, key); });
}

template <class Entry>
const Entry* findEntry(const std::vector<Entry>& entries, std::string_view query) {
    const std::string key = normalizeName(query);
    if (key.empty()) return nullptr;
    for (const auto& entry : entries) {
        if (matches(entry, key)) return &entry;
    }
    const std::string bare = stripVendorWords(key);
    if (bare == key || bare.empty()) return nullptr;
    for (const auto& entry : entries) {
        if (matches(entry, bare) || bareName(entry.name) == bare) return &entry;
    }
    return nullptr;
}

std::size_t editDistance(std::string_view a, std::string_view b) {
    // One row reused across the thousand or so names a miss compares.
    CALIPER_PER_THREAD static std::vector<std::size_t> row;
    row.assign(b.size() + 1, 0);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

template <class Entry>
std::string nearestId(const std::vector<Entry>& entries, std::string_view query) {
    const std::string key = stripVendorWords(normalizeName(query.substr(0, 200)));
    std::string best;
    std::size_t bestDistance = static_cast<std::size_t>(-1);
    auto consider = [&](const std::string& id, const std::string& name) {
        const std::string_view candidate = bareName(name);
        // The length difference bounds the distance from below: no closer name here.
        const std::size_t gap = candidate.size() > key.size() ? candidate.size() - key.size() : key.size() - candidate.size();
        if (gap >= bestDistance) return;
        std::size_t d = editDistance(key, candidate);
        if (d < bestDistance) {
            bestDistance = d;
            best = id;
        }
    };
    for (const auto& entry : entries) {
        consider(entry.id, entry.id);
        consider(entry.id, entry.name);
        for (const auto& alias : entry.aliases) consider(entry.id, alias);
    }
    return best;
}

}  // namespace

namespace {

// "5090 32G" split into its name ("5090 ") and memory size (32 GB), if the
// query ends in a memory size. Split on the raw text: once normalised,
// "5090 32G" would read as the single number 509032.
struct MemorySuffix {
    std::string_view base;
    double memoryGb;
};

std::optional<MemorySuffix> splitMemorySuffix(std::string_view query) {
    std::size_t end = query.size();
    while (end > 0 && std::isspace(static_cast<unsigned char>(query[end - 1]))) --end;
    if (end > 0 && (query[end - 1] == 'b' || query[end - 1] == 'B')) --end;
    if (end == 0 || (query[end - 1] != 'g' && query[end - 1] != 'G')) return std::nullopt;
    std::size_t start = --end;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(query[start - 1]))) --start;
    if (start == end || start == 0 || std::isalnum(static_cast<unsigned char>(query[start - 1]))) return std::nullopt;
    return MemorySuffix{query.substr(0, start), std::stod(std::string(query.substr(start, end - start)))};
}

// "5090 32GB" or "L40S 48G": a name the catalog knows followed by a memory size
// it does not list as an alias. The size must match the entry's memory, so
// "4090 96G" stays unknown instead of silently becoming the 24 GB card.
const GpuSpec* findGpuByMemorySuffix(const Catalog& catalog, std::string_view query) {
    const std::optional<MemorySuffix> split = splitMemorySuffix(query);
    if (!split) return nullptr;
    const double memoryGb = split->memoryGb;
    const std::string base = stripVendorWords(normalizeName(split->base));
    if (base.empty()) return nullptr;
    const GpuSpec* named = findEntry(catalog.gpus, base);
    if (named && std::abs(named->memoryGb - memoryGb) < 1) return named;
    // The base names one size of a family ("A100" is the 80 GB card): look for
    // the sibling of that size whose alias, stripped of vendor words, is the base.
    for (const GpuSpec& gpu : catalog.gpus) {
        if (std::abs(gpu.memoryGb - memoryGb) >= 1) continue;
        for (const std::string& alias : gpu.aliases) {
            if (stripVendorWords(normalizeName(alias)) == base) return &gpu;
        }
    }
    return nullptr;
}

// The card a query means without its memory size, or null: "4080 32G" names
// the RTX 4080 even though no 32 GB 4080 is known, so a miss suggests it first.
const GpuSpec* gpuWithoutMemorySuffix(const Catalog& catalog, std::string_view query) {
    const std::optional<MemorySuffix> split = splitMemorySuffix(query);
    return split ? findEntry(catalog.gpus, split->base) : nullptr;
}

// "48G 4090", "22g 2080ti": the memory size written before the name, as Chinese
// listings often do ("22G 2080Ti 魔改"), moved behind it ("4090 48G"), or empty
// when the query does not start with a size. Split on the raw text for the same
// reason as splitMemorySuffix.
std::string memoryPrefixMovedBehind(std::string_view query) {
    std::size_t start = 0;
    while (start < query.size() && std::isspace(static_cast<unsigned char>(query[start]))) ++start;
    std::size_t end = start;
    while (end < query.size() && std::isdigit(static_cast<unsigned char>(query[end]))) ++end;
    if (end == start || end >= query.size() || (query[end] != 'g' && query[end] != 'G')) return {};
    std::size_t after = end + 1;
    if (after < query.size() && (query[after] == 'b' || query[after] == 'B')) ++after;
    // The size must be a word of its own: "5090" or "4g5" is not one.
    if (after >= query.size() || std::isalnum(static_cast<unsigned char>(query[after]))) return {};
    std::string moved(query.substr(after));
    moved += ' ';
    moved += query.substr(start, end + 1 - start);
    return moved;
}

// "2080ti魔改22g", "3080 20G 魔改", "RTX 4090 48GB modded": the word that marks a
// modified card may stand anywhere in the name. Without it, the rest must name a
// modified entry, so "魔改3090" does not silently become the stock card.
const GpuSpec* findModifiedGpu(const Catalog& catalog, std::string_view query) {
    constexpr std::array<std::string_view, 3> kModifiedWords = {"魔改", "modded", "modified"};
    std::string rest(query.substr(0, 200));
    for (char& c : rest) c = asciiLower(static_cast<unsigned char>(c));
    bool marked = false;
    for (std::string_view word : kModifiedWords) {
        for (std::size_t at = rest.find(word); at != std::string::npos; at = rest.find(word, at)) {
            rest.replace(at, word.size(), " ");
            marked = true;
        }
    }
    if (!marked) return nullptr;
    const GpuSpec* gpu = findEntry(catalog.gpus, rest);
    if (!gpu) gpu = findGpuByMemorySuffix(catalog, rest);
    if (!gpu) {
        const std::string moved = memoryPrefixMovedBehind(rest);
        if (!moved.empty()) gpu = findEntry(catalog.gpus, moved);
        if (!gpu && !moved.empty()) gpu = findGpuByMemorySuffix(catalog, moved);
    }
    return gpu && gpu->name.find("(modified)") != std::string::npos ? gpu : nullptr;
}

// Closest first: names containing the whole query ("DCU" in "Hygon DCU K100-AI")
// before the rest, each by edit distance; `first`, when given, leads.
template <class Entry>
std::vector<std::string> nearestNames(const std::vector<Entry>& entries, const std::string& key, std::size_t count,
                                      const Entry* first = nullptr) {
    using Rank = std::pair<int, std::size_t>;
    const Rank unranked{2, static_cast<std::size_t>(-1)};
    std::vector<std::pair<Rank, const Entry*>> ranked;
    // The best `count` ranks so far, ascending. A later entry makes the list
    // only by beating the last of them (ties keep catalog order), so a name
    // whose length difference, a lower bound on its edit distance, cannot
    // beat it is not compared.
    std::vector<Rank> top;
    for (const auto& entry : entries) {
        if (&entry == first) continue;
        const Rank bound = top.size() < count || top.empty() ? unranked : top.back();
        Rank best = unranked;
        auto consider = [&](const std::string& name) {
            const std::string_view candidate = bareName(name);
            const int contains = key.size() >= 3 && candidate.find(key) != std::string::npos ? 0 : 1;
            const std::size_t gap = candidate.size() > key.size() ? candidate.size() - key.size() : key.size() - candidate.size();
            const Rank floor{contains, gap};
            if (!(floor < best) || !(floor < bound)) return;
            best = std::min(best, Rank{contains, editDistance(key, candidate)});
        };
        consider(entry.name);
        for (const std::string& alias : entry.aliases) consider(alias);
        ranked.emplace_back(best, &entry);
        if (best < bound) {
            top.insert(std::upper_bound(top.begin(), top.end(), best), best);
            if (top.size() > count) top.pop_back();
        }
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> names;
    if (first && count > 0) names.push_back(first->name);
    for (std::size_t i = 0; i < ranked.size() && names.size() < count; ++i) names.push_back(ranked[i].second->name);
    return names;
}

}  // namespace

const GpuSpec* findGpu(const Catalog& catalog, std::string_view query) {
    if (const GpuSpec* gpu = findEntry(catalog.gpus, query)) return gpu;
    if (const GpuSpec* gpu = findGpuByMemorySuffix(catalog, query)) return gpu;
    if (const GpuSpec* gpu = findModifiedGpu(catalog, query)) return gpu;
    const std::string moved = memoryPrefixMovedBehind(query.substr(0, 200));
    if (moved.empty()) return nullptr;
    if (const GpuSpec* gpu = findEntry(catalog.gpus, moved)) return gpu;
    return findGpuByMemorySuffix(catalog, moved);
}

std::vector<std::string> nearestGpuNames(const Catalog& catalog, std::string_view query, std::size_t count) {
    const std::string_view head = query.substr(0, 200);
    const std::string moved = memoryPrefixMovedBehind(head);
    // "48G 5090" is compared as "5090 48G", so the card it names leads.
    const std::string_view asWritten = moved.empty() ? head : std::string_view(moved);
    const std::string key = stripVendorWords(normalizeName(asWritten));
    return nearestNames(catalog.gpus, key, count, gpuWithoutMemorySuffix(catalog, asWritten));
}
namespace {

// Chinese names of model families, as their makers write them (Alibaba's
// 通义千问 / 千问 for Qwen, DeepSeek's company name 深度求索): "千问3-32B" is
// "qwen3-32b". The longer name first, so 通义千问 is not left with 通义.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kModelFamilyWords = {
    {{"通义千问", "qwen"}, {"千问", "qwen"}, {"深度求索", "deepseek"}}};

std::string latinFamilyNames(std::string key) {
    for (const auto& [word, latin] : kModelFamilyWords) {
        for (std::size_t at = key.find(word); at != std::string::npos; at = key.find(word, at + latin.size())) {
            key.replace(at, word.size(), latin);
        }
    }
    return key;
}

// "DeepSeek-R1-671B", "deepseek-r1:671b": a catalog name followed by the
// parameter count in billions (Ollama's tags, ModelScope's names). The count
// must be the entry's within 10%, so "llama-3.1-8b-70b" stays unknown.
const ModelSpec* findModelBySizeSuffix(const Catalog& catalog, std::string_view query) {
    std::size_t end = query.size();
    while (end > 0 && std::isspace(static_cast<unsigned char>(query[end - 1]))) --end;
    if (end == 0 || (query[end - 1] != 'b' && query[end - 1] != 'B')) return nullptr;
    std::size_t start = --end;
    while (start > 0 && (std::isdigit(static_cast<unsigned char>(query[start - 1])) || query[start - 1] == '.')) --start;
    if (start == end || start == 0 || !std::isdigit(static_cast<unsigned char>(query[start]))) return nullptr;
    const char separator = query[start - 1];
    if (separator != '-' && separator != '_' && separator != ':' && separator != ' ') return nullptr;
    const double billions = std::atof(std::string(query.substr(start, end - start)).c_str());
    const std::string base = latinFamilyNames(normalizeName(query.substr(0, start - 1)));
    const ModelSpec* named = base.empty() ? nullptr : findEntry(catalog.models, base);
    if (!named || !(billions > 0)) return nullptr;
    const double params = countParams(*named).total / 1e9;
    return std::abs(params - billions) <= 0.1 * billions ? named : nullptr;
}

// "Phi-4-reasoning-plus": a Hugging Face repository name without its
// organisation, where the catalog lists the whole id ("microsoft/Phi-4-reasoning-plus").
const ModelSpec* findModelByRepoName(const Catalog& catalog, std::string_view query) {
    const std::string key = normalizeName(query.substr(0, 200));
    if (key.empty()) return nullptr;
    auto repoMatches = [&](const std::string& id) {
        const std::size_t slash = id.find('/');
        return slash != std::string::npos && normalizedEquals(std::string_view(id).substr(slash + 1), key);
    };
    for (const ModelSpec& model : catalog.models) {
        if (repoMatches(model.hfId) || std::any_of(model.aliases.begin(), model.aliases.end(), repoMatches)) return &model;
    }
    return nullptr;
}

}  // namespace

const ModelSpec* findModel(const Catalog& catalog, std::string_view query) {
    if (const ModelSpec* model = findEntry(catalog.models, query)) return model;
    if (const ModelSpec* model = findModelByRepoName(catalog, query)) return model;
    const std::string latin = latinFamilyNames(normalizeName(query));
    if (latin != normalizeName(query)) {
        if (const ModelSpec* model = findEntry(catalog.models, latin)) return model;
    }
    return findModelBySizeSuffix(catalog, query);
}

const Caveat* findCaveat(const Catalog& catalog, std::string_view id) {
    for (const auto& caveat : catalog.caveats) {
        if (caveat.id == id) return &caveat;
    }
    return nullptr;
}

std::string nearestGpuId(const Catalog& catalog, std::string_view query) { return nearestId(catalog.gpus, query); }
std::string nearestModelId(const Catalog& catalog, std::string_view query) {
    return nearestId(catalog.models, latinFamilyNames(normalizeName(query.substr(0, 200))));
}

std::vector<std::string> nearestModelNames(const Catalog& catalog, std::string_view query, std::size_t count) {
    // The nearest id leads (ids are what "qwen3-32b"-style queries are closest
    // to); the rest by their names and aliases.
    const ModelSpec* first = findEntry(catalog.models, nearestModelId(catalog, query));
    const std::string key = stripVendorWords(latinFamilyNames(normalizeName(query.substr(0, 200))));
    return nearestNames(catalog.models, key, count, first);
}

}  // namespace caliper
