// Model names copied from where people run them: Ollama tags and GGUF file
// names resolve to the catalog entry and to the quantization they name.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "api_fixture.hpp"
#include "caliper/model_reference.hpp"
#include "caliper/names.hpp"
#include "catalog_fixture.hpp"
#include "result_fixture.hpp"

using caliper::test::estimateOk;
using caliper::test::hasWarning;
using Json = nlohmann::json;

namespace {

struct Named {
    std::string id;
    std::string format;      // the WeightFormat's name, "" if none
    std::string formatName;  // as written in the name
};

Named resolve(const char* query) {
    const caliper::ModelReference ref = caliper::findModelReference(caliper::test::projectCatalog(), query);
    return {ref.model ? ref.model->id : "(none)", ref.weights ? caliper::toString(*ref.weights) : "", ref.formatName};
}

}  // namespace

TEST_CASE("Ollama tags resolve to the catalog model and the tag's quantization", "[catalog][names]") {
    // Ollama's library tags: name:size[-variant][-quant] (ollama.com/library).
    struct Case {
        const char* query;
        const char* id;
        const char* format;
    };
    const Case cases[] = {
        {"llama3.1:8b", "llama-3.1-8b", ""},
        {"llama3.1:8b-instruct-q4_K_M", "llama-3.1-8b", "Q4_K_M"},
        {"qwen2.5:7b-instruct-q4_K_M", "qwen2.5-7b", "Q4_K_M"},
        {"qwen2.5:7b-instruct-fp16", "qwen2.5-7b", "fp16"},
        {"qwen2.5:7b-instruct-q8_0", "qwen2.5-7b", "Q8_0"},
        // deepseek-r1:32b is the Qwen-32B distill, not the 671B model (Ollama's
        // deepseek-r1 page lists 1.5b to 70b as the distills).
        {"deepseek-r1:32b", "deepseek-r1-distill-qwen-32b", ""},
        {"deepseek-r1:671b", "deepseek-r1", ""},
        {"gpt-oss:20b", "gpt-oss-20b", ""},
        {"gpt-oss:120b", "gpt-oss-120b", ""},
    };
    for (const Case& c : cases) {
        INFO(c.query);
        const Named n = resolve(c.query);
        CHECK(n.id == c.id);
        CHECK(n.format == c.format);
    }
}

TEST_CASE("GGUF file names resolve to the catalog model and the file's quantization", "[catalog][names]") {
    struct Case {
        const char* query;
        const char* id;
        const char* format;
        const char* formatName;
    };
    const Case cases[] = {
        // bartowski's and Unsloth's file names: <repo name>-<GGUF type>.gguf.
        {"Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "llama-3.1-8b", "Q4_K_M", "Q4_K_M"},
        {"Qwen3-30B-A3B-Q4_K_M.gguf", "qwen3-30b-a3b", "Q4_K_M", "Q4_K_M"},
        {"Qwen3-30B-A3B-Q8_0.gguf", "qwen3-30b-a3b", "Q8_0", "Q8_0"},
        // llama.cpp's gguf-split shards keep the name before "-00001-of-00002".
        {"Meta-Llama-3.1-70B-Instruct-Q5_K_M-00001-of-00002.gguf", "llama-3.1-70b", "Q5_K_M", "Q5_K_M"},
        // Ollama's pull of a Hugging Face GGUF repository.
        {"hf.co/bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M", "llama-3.1-8b", "Q4_K_M", "Q4_K_M"},
        // Types Caliper does not model (importance-matrix IQ types, Unsloth's
        // dynamic Q4_K_XL): the model resolves, the format is unknown.
        {"Qwen3-30B-A3B-UD-Q4_K_XL.gguf", "qwen3-30b-a3b", "", "Q4_K_XL"},
        {"Meta-Llama-3.1-8B-Instruct-IQ4_XS.gguf", "llama-3.1-8b", "", "IQ4_XS"},
        // Qwen's quantized repositories: method and width ("GPTQ-Int4", "AWQ").
        {"Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "qwen2.5-7b", "gptq-int4", "GPTQ-Int4"},
        {"Qwen2.5-7B-Instruct-AWQ", "qwen2.5-7b", "awq-int4", "AWQ"},
        // TheBloke's file names put the type after a dot.
        {"llama-2-7b-chat.Q4_K_M.gguf", "llama-2-7b", "Q4_K_M", "Q4_K_M"},
    };
    for (const Case& c : cases) {
        INFO(c.query);
        const Named n = resolve(c.query);
        CHECK(n.id == c.id);
        CHECK(n.format == c.format);
        CHECK(n.formatName == c.formatName);
    }
    // A name that is no catalog model stays unknown, quantization or not.
    CHECK(resolve("NotAModel-9B-Q4_K_M.gguf").id == "(none)");
    CHECK(resolve("Q4_K_M").id == "(none)");
}

TEST_CASE("an estimate sizes the weights in the format its model name carries", "[catalog][names]") {
    // Q4_K_M stores 4.89 bits a weight in llama.cpp's Llama 3.1 8B file (4.58
    // GiB for 8.03e9 parameters): far below the 15 GiB of the bf16 checkpoint.
    const Json q4 = estimateOk(R"({"model":"Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf","gpu":"rtx-4090","engine":"llama.cpp"})");
    const Json bf16 = estimateOk(R"({"model":"llama-3.1-8b","gpu":"rtx-4090","engine":"llama.cpp"})");
    CHECK(q4["plan"]["weights"] == "Q4_K_M");
    const Json stated = estimateOk(
        R"({"model":"llama-3.1-8b","gpu":"rtx-4090","engine":"llama.cpp","weights":"Q4_K_M"})");
    CHECK(q4["memory"]["weights_gib"].get<double>() == Approx(stated["memory"]["weights_gib"].get<double>()));
    CHECK(q4["memory"]["weights_gib"].get<double>() < 0.4 * bf16["memory"]["weights_gib"].get<double>());

    // An Ollama tag through the Ollama engine.
    const Json tag = estimateOk(R"({"model":"qwen2.5:7b-instruct-q8_0","gpu":"rtx-4090","engine":"ollama"})");
    CHECK(tag["plan"]["weights"] == "Q8_0");

    // `weights` stated beside a different quantization in the name wins, with a warning.
    const Json both = estimateOk(
        R"({"model":"Qwen3-30B-A3B-Q4_K_M.gguf","gpu":"h100-sxm5-80gb","engine":"llama.cpp","weights":"Q8_0"})");
    CHECK(both["plan"]["weights"] == "Q8_0");
    CHECK(hasWarning(both, "weights_differ_from_model_name"));

    // A type Caliper does not model: the default weights, and a warning naming it.
    const Json unknown = estimateOk(R"({"model":"Qwen3-30B-A3B-UD-Q4_K_XL.gguf","gpu":"h100-sxm5-80gb","engine":"llama.cpp"})");
    CHECK(hasWarning(unknown, "model_name_format_unknown"));
    CHECK(unknown["plan"]["weights"] != "Q4_K_M");

    // Fine-tuning the model a GGUF file names trains its checkpoint: the GGUF
    // type is not applied (it would be refused for training), and a warning says so.
    const Json tune = estimateOk(R"({"model":"Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf","gpu":"h100-sxm5-80gb","task":"finetune"})");
    CHECK(hasWarning(tune, "model_name_format_ignored"));
    CHECK(tune["plan"]["weights"] != "Q4_K_M");
}
