#include "caliper/catalog.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace caliper {

std::string normalizeName(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (unsigned char c : text) {
        if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
    }
    return out;
}

namespace {

// Words people put in front of a product name that the catalog need not
// repeat: "NVIDIA GeForce RTX 4090" should find "RTX 4090".
constexpr std::array<std::string_view, 8> kVendorWords = {"nvidia", "geforce", "tesla", "amd", "radeon", "intel",
                                                         "huawei", "apple"};

std::string stripVendorWords(std::string key) {
    bool stripped = true;
    while (stripped) {
        stripped = false;
        for (std::string_view word : kVendorWords) {
            if (key.size() > word.size() && key.compare(0, word.size(), word) == 0) {
                key.erase(0, word.size());
                stripped = true;
            }
        }
    }
    return key;
}

template <class Entry>
bool matches(const Entry& entry, const std::string& key) {
    if (normalizeName(entry.id) == key || normalizeName(entry.name) == key) return true;
    return std::any_of(entry.aliases.begin(), entry.aliases.end(),
                       [&](const std::string& alias) { return normalizeName(alias) == key; });
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
        if (matches(entry, bare) || stripVendorWords(normalizeName(entry.name)) == bare) return &entry;
    }
    return nullptr;
}

std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
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
        std::size_t d = editDistance(key, stripVendorWords(normalizeName(name)));
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

const GpuSpec* findGpu(const Catalog& catalog, std::string_view query) { return findEntry(catalog.gpus, query); }
const ModelSpec* findModel(const Catalog& catalog, std::string_view query) { return findEntry(catalog.models, query); }

const Caveat* findCaveat(const Catalog& catalog, std::string_view id) {
    for (const auto& caveat : catalog.caveats) {
        if (caveat.id == id) return &caveat;
    }
    return nullptr;
}

std::string nearestGpuId(const Catalog& catalog, std::string_view query) { return nearestId(catalog.gpus, query); }
std::string nearestModelId(const Catalog& catalog, std::string_view query) {
    return nearestId(catalog.models, query);
}

}  // namespace caliper
