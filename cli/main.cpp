// The command line (docs/CONTRACT.md): estimate, matrix, recommend, serve, inventory,
// limits, list, describe, validate, --version. Exit 0 when every result is ok, 2 when
// an input was rejected, 1 for an internal failure.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "caliper/api.hpp"
#include "caliper/error.hpp"
#include "caliper/names.hpp"
#include "embedded_catalog.hpp"
#include "validate/report.hpp"
#include "calibrate/calibration_file.hpp"

namespace {

using caliper::ApiResponse;
using caliper::Catalog;

// The help; each {enum} is filled from the name table the request reader
// uses (caliper/names.hpp), so the help lists exactly what is accepted.
constexpr const char* kHelpTemplate = R"(caliper - which GPUs an AI model needs, how fast, at what cost

usage: caliper [--catalog DIR] [--pretty] COMMAND

commands:
  estimate            one scenario (JSON) on stdin -> one result (JSON)
  estimate --jsonl    one scenario per line -> one result per line
  matrix              matrix request on stdin -> model x GPU matrix; with "slo", each
                      cell also says the users one replica of its GPUs serves within it
  recommend           scenario + "objective" on stdin -> ranked GPU configurations
  serve               {"model", "users" | "request_rate_per_s", "slo", ...} -> deployments within the SLO
  inventory           {"inventory":[{"gpu":..,"count":..}], ...} -> what those GPUs run
  limits              scenario on stdin -> longest context, largest batch, best format
  list gpus --json    the GPU catalog
  list models --json  the model catalog
  describe            enum names, defaults per task, limits, presets, matrix cell fields
  validate FILE...    score the engine on measured rows (JSON lines);
                      --rows also lists every scored row, worst first;
                      --cross: accuracy in-sample and leave-one-source-out
                      (constants refitted without each source in turn);
                      --requests: each row's request (or why it has none), one JSON line a row
  --version           version and catalog version

options:
  --catalog DIR       read DIR/gpus.json and DIR/models.json instead of the built-in catalog
  --pretty            indent JSON output

scenario keys and defaults (only "model" and "gpu" are required):
  model               catalog id or alias, a Hugging Face config.json object, or {"params_b": 7}
  gpu                 catalog id or alias ("RTX 4090", "h100"), or an object with the card's figures
  gpu_count           1, or "auto" for the fewest that fit
  task                {task}; default inference
  method              {method}; finetune: lora by default; pretrain: full
  engine              inference: vllm; finetune: transformers; pretrain: megatron
                      ({engine})
  weights             the checkpoint's own format where the GPU and engine run it, else bf16
                      (fp16 on GPUs without bf16); qlora: nf4-dq
                      ({weights})
  kv_cache            bf16 (fp16 without bf16); one of {kv_cache}
  batch               inference 1 (concurrent sequences); training "auto" (micro-batch per GPU:
                      the fastest power of two up to 64 that fits), or a number
  prompt_tokens       inference 2048, training 0
  output_tokens       inference 512, training 0
  seq_len             finetune 2048, pretrain 4096
  optimizer           {optimizer}; default adamw
                      (adamw-bf16: pure bf16, no fp32 master)
  gradient_checkpointing   false (qlora: true)
  flash_attention     true where the GPU supports FlashAttention-2
  fp32_gradients      full training: fp32 gradient buffer (true), 16-bit (false) or "auto" (megatron: fp32)
  fp8_params          full training with fp8 weights: linear weights stored in FP8 (NeMo fp8_params),
                      the master copy in the optimizer's state dtype (default false)
  loss_kernel         training loss over the vocabulary: "auto" (megatron: vocab-parallel; unsloth: fused;
                      torchtune: chunked; others: eager, or fused-linear / chunked-nll where eager does not fit)
                      or {loss_kernel}
  lora                {"rank": 16, "targets": "all-linear" | "attention" | "query-value", "fused_qkv": false,
                       "quantized_head": false, "previous_step_inputs": false,
                       "upcast_unquantized": false, "kept_4bit_inputs": false,
                       "experts": "auto" | "modules" | "fused" | "frozen"}
  kv_heads_repeated   training: k and v repeated to every query head before attention (LitGPT)
  untied_head         the output head is its own copy of a tied embedding table (LitGPT)
  parallel            {"strategy": "auto", "tp": null, "pp": null, "offload": "none"}
                      strategy: {strategy}
                      offload: {offload}
  train_tokens        tokens to train on, for time and cost (default none)
  global_batch        training: sequences per optimizer step over all replicas (default: ~4M tokens
                      for pretrain, one micro-batch per replica for finetune)
  interconnect        {"inter_node": null, "gpus_per_node": null} (the GPU's server by default)
                      inter_node: {inter_node}
  currency            {currency}
  gpu_memory_utilization   vLLM/SGLang pool fraction (0.9; SGLang's KV pool: its own default)
  usd_per_gpu_hour, price_usd, cny_per_usd   price overrides
  max_model_len       engine context limit per request (prompt + output)
  parallel.ep, parallel.attention_dp, parallel.dp   expert parallelism, attention data parallelism, replicas
  parallel.cp         training: context parallelism (the sequence split over cp GPUs)
  parallel.reshard_after_forward   training, strategy fsdp: false keeps the gathered parameters until backward (SHARD_GRAD_OP)
  serving             {"prefix_cache_hit_rate": 0..1, "speculative": {"method": "mtp" | "eagle" | "draft",
                       "accepted_tokens_per_step": x}, "request_rate_per_s": r, "mixed_chunk": bool (SGLang
                       --enable-mixed-chunk), "max_num_batched_tokens": n (tokens one step carries: vLLM
                       --max-num-batched-tokens, TensorRT-LLM max_num_tokens)}; inference with vllm, sglang,
                       tensorrt-llm or llama.cpp adds a "serving" object: continuous batching at `batch` concurrent
                       requests (ttft_s with the wait for a prefill slot, tpot_ms, tokens/s per user and per GPU,
                       requests/s, kv_cache_tokens, max_concurrency, cost and energy per output token)

serve request (any scenario key but gpu_count/batch, plus):
  users | request_rate_per_s   concurrent users (closed loop) or arrivals per second (one is required)
  slo                 {"ttft_s", "tpot_ms", "min_user_tokens_per_s"} (each optional)
  gpu                 absent or "all" = the whole catalog, one id, or a list (at most 512); gpu_filter as in matrix
  max_gpus (64), pricing (cloud | purchase), top (5)
  answer: {"deployments": [{gpu, gpu_count, plan, replicas, concurrency_per_replica, serving, usd_per_month,
          cny_per_month, purchase_usd, usd_per_million_output_tokens (cloud and purchase, USD and CNY),
          joules_per_output_token, meets_slo, why}], "curve": [{concurrency, user_tokens_per_s,
          output_tokens_per_s_per_gpu, ttft_s, tpot_ms}]} - the curve is the first deployment's
          throughput/interactivity frontier. An SLO nobody meets answers the closest deployments with
          meets_slo false. Prefill/decode disaggregation is not searched yet.
  recommend with "slo" (task inference) runs the same search, with batch as the users.
)";

template <class E>
std::vector<std::string> namesOf() {
    std::vector<std::string> names;
    for (const auto& n : caliper::Names<E>::table) names.push_back(n.name);
    return names;
}

// Names joined by " | ", wrapped before 100 columns under the help's value column.
std::string joined(const std::vector<std::string>& names) {
    std::string text;
    std::size_t line = 22;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string piece = (i ? " | " : "") + names[i];
        if (line + piece.size() > 100) {
            text += " |\n                      ";
            line = 22;
            text += names[i];
            line += names[i].size();
            continue;
        }
        text += piece;
        line += piece.size();
    }
    return text;
}

std::string helpText() {
    const std::pair<const char*, std::vector<std::string>> lists[] = {
        {"{task}", namesOf<caliper::Task>()},         {"{method}", namesOf<caliper::Method>()},
        {"{engine}", namesOf<caliper::Engine>()},     {"{weights}", namesOf<caliper::WeightFormat>()},
        {"{kv_cache}", namesOf<caliper::KvFormat>()}, {"{optimizer}", namesOf<caliper::Optimizer>()},
        {"{strategy}", namesOf<caliper::Strategy>()}, {"{offload}", namesOf<caliper::Offload>()},
        {"{loss_kernel}", namesOf<caliper::LossKernel>()}, {"{inter_node}", namesOf<caliper::InterNode>()},
        {"{currency}", {std::begin(caliper::kCurrencyNames), std::end(caliper::kCurrencyNames)}}};
    std::string text = kHelpTemplate;
    for (const auto& [slot, names] : lists) {
        const std::size_t at = text.find(slot);
        if (at != std::string::npos) text.replace(at, std::string(slot).size(), joined(names));
    }
    return text;
}

std::string readAll(std::istream& in) {
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool readFile(const std::string& path, std::string& text) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return false;
    text = readAll(file);
    return true;
}

int emit(const ApiResponse& response) {
    std::cout << response.json << '\n';
    return response.status;
}

int runJsonl(const Catalog& catalog, bool pretty) {
    int status = 0;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        ApiResponse r = caliper::estimateJson(catalog, line, pretty);
        std::cout << r.json << '\n';
        if (r.status == 1 || (r.status == 2 && status == 0)) status = r.status;
    }
    return status;
}

struct Options {
    std::string catalogDir;
    bool pretty = false;
    bool json = false;
    bool jsonl = false;
    bool rows = false;  // validate: list every scored row
    bool cross = false;  // validate: leave-one-source-out accuracy (tools/calibrate)
    bool requests = false;  // validate: print each row's request instead of scoring
    std::vector<std::string> words;
};

Options parseArgs(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--catalog" && i + 1 < argc) o.catalogDir = argv[++i];
        else if (a == "--pretty") o.pretty = true;
        else if (a == "--json") o.json = true;
        else if (a == "--jsonl") o.jsonl = true;
        else if (a == "--rows") o.rows = true;
        else if (a == "--cross") o.cross = true;
        else if (a == "--requests") o.requests = true;
        else o.words.push_back(a);
    }
    return o;
}

int run(const Options& o, const Catalog& catalog) {
    const std::vector<std::string>& w = o.words;
    const std::string command = w.empty() ? "" : w[0];
    if (command == "--version" || command == "version") {
        std::cout << caliper::versionString(catalog) << '\n';
        return 0;
    }
    if (command == "estimate") {
        return o.jsonl ? runJsonl(catalog, o.pretty) : emit(caliper::estimateJson(catalog, readAll(std::cin), o.pretty));
    }
    if (command == "matrix") return emit(caliper::matrixJson(catalog, readAll(std::cin), o.pretty));
    if (command == "recommend") return emit(caliper::recommendJson(catalog, readAll(std::cin), o.pretty));
    if (command == "serve") return emit(caliper::serveJson(catalog, readAll(std::cin), o.pretty));
    if (command == "inventory") return emit(caliper::inventoryJson(catalog, readAll(std::cin), o.pretty));
    if (command == "limits") return emit(caliper::limitsJson(catalog, readAll(std::cin), o.pretty));
    if (command == "list" && w.size() == 2 && w[1] == "gpus") return emit(caliper::listGpusJson(catalog, o.pretty));
    if (command == "list" && w.size() == 2 && w[1] == "models") return emit(caliper::listModelsJson(catalog, o.pretty));
    if (command == "list" && w.size() == 2 && w[1] == "caveats") return emit(caliper::caveatsJson(catalog, o.pretty));
    if (command == "describe") return emit(caliper::describeJson(catalog, o.pretty));
    if (command == "validate" && w.size() >= 2) {
        const std::vector<std::string> paths(w.begin() + 1, w.end());
        if (o.requests) return caliper::cli::printRowRequests(catalog, paths, std::cout, std::cerr);
        if (o.cross) return caliper::calibrate::runCrossValidation(catalog, paths, std::cout, std::cerr);
        return caliper::cli::runValidate(catalog, paths, o.rows, std::cout, std::cerr);
    }
    if (command == "help" || command == "--help" || command == "-h") {
        std::cout << helpText();
        return 0;
    }
    std::cerr << "caliper: unknown command" << (command.empty() ? "" : " '" + command + "'") << "\n\n" << helpText();
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parseArgs(argc, argv);
    Catalog catalog;
    try {
        if (options.catalogDir.empty()) {
            catalog = caliper::parseCatalog(caliper::embeddedGpusJson(), caliper::embeddedModelsJson());
        } else {
            std::string gpus, models;
            if (!readFile(options.catalogDir + "/gpus.json", gpus) ||
                !readFile(options.catalogDir + "/models.json", models)) {
                std::cerr << "caliper: cannot read " << options.catalogDir << "/gpus.json and models.json\n";
                return 2;
            }
            catalog = caliper::parseCatalog(gpus, models);
        }
    } catch (const caliper::InputError& e) {
        std::cerr << "caliper: bad catalog: " << e.error().path << ": " << e.error().message << '\n';
        return 2;
    }
    try {
        return run(options, catalog);
    } catch (const std::exception& e) {
        std::cerr << "caliper: internal failure: " << e.what() << '\n';
        return 1;
    }
}
