#pragma once
// Small regex helpers for reading settings out of free text: the last match
// over several spellings wins, so "defaults ... overrides" texts read right.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace caliper::io {

using Patterns = std::vector<std::regex>;

Patterns compile(std::initializer_list<const char*> sources);

struct Hit {
    std::ptrdiff_t position = -1;  // where the match starts
    std::ptrdiff_t end = -1;       // where it ends
    std::string capture;  // group 1, or the whole match when the pattern has none
};

// The match that starts last in the text, over all patterns.
Hit lastHit(const std::string& text, const Patterns& patterns);

bool mentions(const std::string& text, std::initializer_list<const char*> words);

// The captured integer of the last match, times scale.
std::optional<std::int64_t> lastInteger(const std::string& text, const Patterns& patterns, std::int64_t scale = 1);

// The later of two integer readings, the second counted in thousands of 1024
// ("max_length 2048" vs "8k-context").
std::optional<std::int64_t> laterInteger(const std::string& text, const Patterns& plain, const Patterns& thousands);

// "true"/"yes"/"on"/"1" or "false"/"no"/"off"/"0"/"none"; empty otherwise.
std::optional<bool> switchWord(const std::string& word);

// A setting read from "key=value" patterns (value captured), "with X"
// patterns (on) and "without X" patterns (off); the mention that ends last
// wins, and of two ending together ("no gradient checkpointing" holds
// "gradient checkpointing") the valued one, then the off one.
std::optional<bool> lastSwitch(const std::string& text, const Patterns& valued, const Patterns& on,
                               const Patterns& off);

}  // namespace caliper::io
