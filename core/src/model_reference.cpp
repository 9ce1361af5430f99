// Model names with a quantization in them: Ollama tags and GGUF file names.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caliper/model_reference.hpp"

namespace caliper {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool sameText(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
}

bool endsWithText(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && sameText(text.substr(text.size() - suffix.size()), suffix);
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// A word that names a quantization: llama.cpp's GGUF types (Q4_K_M, Q8_0,
// IQ4_XS, and Unsloth's Q4_K_XL: "Q" or "IQ", a bit count, then "_" parts;
// llama.cpp ggml-quants type names) and the 16/32-bit and checkpoint formats
// Ollama's tags and Hugging Face repository names use (fp16, bf16, fp8, awq,
// gptq, mxfp4).
bool isQuantWord(std::string_view word) {
    std::string_view w = word;
    if (!w.empty() && lower(w[0]) == 'i') w.remove_prefix(1);
    if (w.size() >= 2 && lower(w[0]) == 'q' && isDigit(w[1])) {
        std::size_t i = 1;
        while (i < w.size() && isDigit(w[i])) ++i;
        if (i == w.size()) return true;  // "q4", "q8": Ollama's short tags
        if (w[i] != '_') return false;
        for (; i < w.size(); ++i) {
            const char c = lower(w[i]);
            if (!(c == '_' || isDigit(c) || (c >= 'a' && c <= 'z'))) return false;
        }
        return true;
    }
    constexpr std::array<std::string_view, 12> kFormats = {"f16",  "f32",  "bf16", "fp16", "fp32", "fp8",
                                                           "awq",  "gptq", "mxfp4", "nvfp4", "int4", "int8"};
    for (std::string_view f : kFormats) {
        if (sameText(word, f)) return true;
    }
    return false;
}

// Words of a tag or file name that name a variant the catalog keeps in the
// same entry as its base model (the instruct and base checkpoints share a
// shape), or a packaging: Ollama's "instruct", "text" and "latest"; the "UD"
// (Unsloth Dynamic) and "GGUF" of quantizers' file and repository names.
bool isVariantWord(std::string_view word) {
    constexpr std::array<std::string_view, 8> kWords = {"instruct", "chat", "text", "it", "latest", "ud", "gguf", "base"};
    for (std::string_view w : kWords) {
        if (sameText(word, w)) return true;
    }
    return false;
}

bool isSeparator(char c) { return c == '-' || c == '.' || c == ':' || c == ' ' || c == '/'; }

// "Meta-Llama-3.1-8B-Instruct-Q4_K_M-00001-of-00002.gguf" without its
// extension and split-file suffix.
std::string_view withoutFileSuffixes(std::string_view name) {
    if (endsWithText(name, ".gguf")) name.remove_suffix(5);
    // llama.cpp's gguf-split names: "-00001-of-00003".
    const std::size_t of = name.rfind("-of-");
    if (of != std::string_view::npos && of >= 6 && name[of - 6] == '-' && name.size() - of == 9) {
        bool digits = true;
        for (std::size_t i = of - 5; i < of; ++i) digits = digits && isDigit(name[i]);
        for (std::size_t i = of + 4; i < name.size(); ++i) digits = digits && isDigit(name[i]);
        if (digits) name = name.substr(0, of - 6);
    }
    return name;
}

struct Word {
    std::string_view text;
    char separatorBefore;  // '\0' for the first word
};

std::vector<Word> splitWords(std::string_view name) {
    std::vector<Word> words;
    char separator = '\0';
    std::size_t start = 0;
    for (std::size_t i = 0; i <= name.size(); ++i) {
        if (i < name.size() && !isSeparator(name[i])) continue;
        // "3.1" and "2.5" are versions, not two words: a '.' between digits stays.
        if (i < name.size() && name[i] == '.' && i > 0 && i + 1 < name.size() && isDigit(name[i - 1]) &&
            isDigit(name[i + 1])) {
            continue;
        }
        if (i > start) words.push_back({name.substr(start, i - start), separator});
        if (i < name.size()) separator = name[i];
        start = i + 1;
    }
    return words;
}

std::string joinWords(const std::vector<Word>& words, bool dropVariants) {
    std::string out;
    for (const Word& w : words) {
        if (dropVariants && isVariantWord(w.text)) continue;
        if (!out.empty()) out += w.separatorBefore == ':' ? ':' : '-';
        out += w.text;
    }
    return out;
}

}  // namespace

ModelReference findModelReference(const Catalog& catalog, std::string_view query) {
    ModelReference ref;
    query = query.substr(0, 300);
    if ((ref.model = findModel(catalog, query))) return ref;
    std::string_view name = withoutFileSuffixes(query);
    // "hf.co/bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M" (Ollama's pull
    // of a Hugging Face repository): the repository's name is what matters.
    std::vector<Word> words = splitWords(name);
    for (std::size_t i = words.size(); i-- > 0;) {
        if (words[i].separatorBefore == '/') {
            words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(i));
            words.front().separatorBefore = '\0';
            break;
        }
    }
    // The words that name the quantization ("...-Q4_K_M", ":7b-instruct-q4_K_M",
    // "...-GPTQ-Int4"), taken out of the name. GPTQ and AWQ name the method and
    // "Int4" the width (Qwen's repository names): the method decides the format;
    // otherwise the last such word does.
    std::optional<WeightFormat> method;
    for (std::size_t i = 0; i < words.size();) {
        if (!isQuantWord(words[i].text)) {
            ++i;
            continue;
        }
        if (!ref.formatName.empty()) ref.formatName += '-';
        ref.formatName += words[i].text;
        if (sameText(words[i].text, "gptq") || sameText(words[i].text, "awq")) {
            method = weightFormatFromName(words[i].text);
        }
        ref.weights = weightFormatFromName(words[i].text);
        words.erase(words.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (method) ref.weights = method;
    if (words.empty()) return ref;
    // The rest as written, then without the variant words: "qwen2.5:7b-instruct"
    // reads "qwen2.5-7b-instruct" (an alias), "llama3.1:8b" "llama3.1-8b".
    for (bool dropVariants : {false, true}) {
        const std::string base = joinWords(words, dropVariants);
        if (base.empty()) continue;
        if ((ref.model = findModel(catalog, base))) return ref;
        std::string dashed = base;
        for (char& c : dashed) {
            if (c == ':') c = '-';
        }
        if ((ref.model = findModel(catalog, dashed))) return ref;
    }
    return ref;
}

}  // namespace caliper
