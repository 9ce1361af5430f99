#include "validate/text_patterns.hpp"

#include <algorithm>
#include <cctype>

namespace caliper::io {

Patterns compile(std::initializer_list<const char*> sources) {
    Patterns out;
    for (const char* source : sources) out.emplace_back(source, std::regex::ECMAScript | std::regex::optimize);
    return out;
}

Hit lastHit(const std::string& text, const Patterns& patterns) {
    Hit best;
    for (const std::regex& pattern : patterns) {
        for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it) {
            if (it->position(0) < best.position) continue;
            best.position = it->position(0);
            best.end = it->position(0) + it->length(0);
            best.capture = it->size() > 1 && (*it)[1].matched ? (*it)[1].str() : it->str(0);
        }
    }
    return best;
}

bool mentions(const std::string& text, std::initializer_list<const char*> words) {
    return std::any_of(words.begin(), words.end(), [&](const char* w) { return text.find(w) != std::string::npos; });
}

std::optional<std::int64_t> lastInteger(const std::string& text, const Patterns& patterns, std::int64_t scale) {
    const Hit hit = lastHit(text, patterns);
    if (hit.position < 0 || hit.capture.empty() || hit.capture.size() > 12) return std::nullopt;
    if (!std::all_of(hit.capture.begin(), hit.capture.end(), [](unsigned char c) { return std::isdigit(c); })) {
        return std::nullopt;
    }
    return std::stoll(hit.capture) * scale;
}

std::optional<std::int64_t> laterInteger(const std::string& text, const Patterns& plain, const Patterns& thousands) {
    const Hit a = lastHit(text, plain);
    const Hit b = lastHit(text, thousands);
    if (a.position < 0 && b.position < 0) return std::nullopt;
    return a.position >= b.position ? lastInteger(text, plain) : lastInteger(text, thousands, 1024);
}

std::optional<bool> switchWord(const std::string& word) {
    if (word == "true" || word == "yes" || word == "on" || word == "1") return true;
    if (word == "false" || word == "no" || word == "off" || word == "0" || word == "none") return false;
    return std::nullopt;
}

std::optional<bool> lastSwitch(const std::string& text, const Patterns& valued, const Patterns& on,
                               const Patterns& off) {
    const Hit v = lastHit(text, valued);
    const Hit yes = lastHit(text, on);
    const Hit no = lastHit(text, off);
    const std::ptrdiff_t last = std::max({v.end, yes.end, no.end});
    if (last < 0) return std::nullopt;
    if (last == v.end) return switchWord(v.capture);
    return last != no.end;
}

}  // namespace caliper::io
