// Reads data/gpus.json and data/models.json into a Catalog, rejecting bad
// data with the JSON pointer of the first problem.
#include <algorithm>
#include <map>
#include <set>

#include "caliper/api.hpp"
#include "caliper/result.hpp"
#include "json/catalog/gpu_json.hpp"
#include "json/json_read.hpp"
#include "json/catalog/model_json.hpp"

namespace caliper {

namespace {

using io::Json;

constexpr int kSchemaVersion = 1;

void checkSchemaVersion(io::ObjectReader& top) {
    top.requiredInteger("schema_version", kSchemaVersion, kSchemaVersion);
}

std::vector<Caveat> readCaveats(io::ObjectReader& top) {
    std::vector<Caveat> caveats;
    const Json* list = top.raw("caveats");
    if (!list) return caveats;
    if (!list->is_array()) io::failType("invalid_catalog", "/caveats", "an array", *list);
    std::set<std::string> seen;
    for (std::size_t i = 0; i < list->size(); ++i) {
        io::ObjectReader item((*list)[i], io::childPath("/caveats", i), "invalid_catalog");
        Caveat caveat{item.requiredString("id"), item.requiredString("en"), item.requiredString("zh")};
        item.finish();
        if (!seen.insert(caveat.id).second) {
            fail("duplicate_id", item.pathOf("id"), "caveat id '" + caveat.id + "' appears twice");
        }
        caveats.push_back(std::move(caveat));
    }
    return caveats;
}

const Json& entryList(io::ObjectReader& top, const char* key) {
    const Json* list = top.raw(key);
    if (!list || !list->is_array()) {
        io::failType("invalid_catalog", top.pathOf(key), "an array", list ? *list : Json());
    }
    if (list->size() > 100000) {
        fail("too_large", top.pathOf(key), "more than 100000 entries");
    }
    return *list;
}

// Where a name sits in its entry, for the error's pointer: "id", "name" or
// an index into "aliases". Built into a path only when a check fails.
struct NameField {
    const char* key;
    bool isAlias;
    std::size_t aliasIndex;
};

std::string namePath(const char* listKey, std::size_t entryIndex, const NameField& field) {
    std::string path = std::string("/") + listKey + "/" + std::to_string(entryIndex) + "/" + field.key;
    return field.isAlias ? path + "/" + std::to_string(field.aliasIndex) : path;
}

// Ids, names and aliases must each lead to exactly one entry, so that a
// lookup never depends on catalog order.
template <class Entry>
void checkUniqueNames(const std::vector<Entry>& entries, const char* listKey) {
    std::map<std::string, std::size_t> owner;
    std::vector<std::string> own;  // this entry's keys: an alias may repeat its own name
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const Entry& entry = entries[i];
        if (!owner.emplace("#" + entry.id, i).second) {
            fail("duplicate_id", namePath(listKey, i, {"id", false, 0}), "id '" + entry.id + "' appears twice");
        }
        own.clear();
        auto claim = [&](const std::string& text, const NameField& field) {
            std::string key = normalizeName(text);
            if (key.empty() || std::find(own.begin(), own.end(), key) != own.end()) return;
            own.push_back(key);
            auto [it, inserted] = owner.emplace(std::move(key), i);
            if (!inserted && it->second != i) {
                fail("duplicate_alias", namePath(listKey, i, field),
                     "'" + text + "' also names '" + entries[it->second].id + "'");
            }
        };
        claim(entry.id, {"id", false, 0});
        claim(entry.name, {"name", false, 0});
        for (std::size_t a = 0; a < entry.aliases.size(); ++a) claim(entry.aliases[a], {"aliases", true, a});
    }
}

void checkCaveatReferences(const Catalog& catalog) {
    for (std::size_t i = 0; i < catalog.gpus.size(); ++i) {
        const auto& ids = catalog.gpus[i].caveats;
        for (std::size_t c = 0; c < ids.size(); ++c) {
            if (!findCaveat(catalog, ids[c])) {
                fail("unknown_caveat", "/gpus/" + std::to_string(i) + "/caveats/" + std::to_string(c),
                     "no caveat with id '" + ids[c] + "' in /caveats");
            }
        }
    }
}

}  // namespace

Catalog parseCatalog(std::string_view gpusJson, std::string_view modelsJson) {
    Catalog catalog;
    {
        const Json root = io::parseJsonText(gpusJson, "", io::kMaxCatalogBytes);
        io::ObjectReader top(root, "", "invalid_catalog");
        checkSchemaVersion(top);
        catalog.version = top.requiredString("catalog_version");
        catalog.caveats = readCaveats(top);
        const Json& list = entryList(top, "gpus");
        catalog.gpus.reserve(list.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            catalog.gpus.push_back(io::gpuFromJson(list[i], io::childPath("/gpus", i)));
        }
        top.finish();
    }
    {
        const Json root = io::parseJsonText(modelsJson, "", io::kMaxCatalogBytes);
        io::ObjectReader top(root, "", "invalid_catalog");
        checkSchemaVersion(top);
        const Json& list = entryList(top, "models");
        catalog.models.reserve(list.size());
        std::vector<Warning> ignored;
        for (std::size_t i = 0; i < list.size(); ++i) {
            catalog.models.push_back(io::modelFromJson(list[i], io::childPath("/models", i), &ignored, true));
        }
        top.finish();
    }
    checkUniqueNames(catalog.gpus, "gpus");
    checkUniqueNames(catalog.models, "models");
    checkCaveatReferences(catalog);
    return catalog;
}

}  // namespace caliper
