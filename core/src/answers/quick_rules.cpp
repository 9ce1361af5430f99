// Rules of thumb from the project's source articles (shared/seeds, cited by
// file) and Transformer Math 101. They count parameters only: no KV cache,
// no activations, no runtime overhead, no sharding.
#include "caliper/answers/quick_rules.hpp"

#include "caliper/units.hpp"
#include "memory/sizing.hpp"

namespace caliper {

namespace {

QuickRule rule(const char* name, std::string formula, double bytes) {
    return QuickRule{name, std::move(formula), bytesToGiB(bytes)};
}

void inferenceRules(double n, std::vector<QuickRule>& out) {
    // 001 §7: "fp16 inference of an nB model takes 2n GB, the same as the file".
    out.push_back(rule("inference_2_bytes_per_param",
                       sizing::fmt("2 bytes x %.2fB parameters (fp16 weights only; source article 001 §7)", n / 1e9),
                       2 * n));
    // Transformer Math 101: total inference memory ~ 1.2 x model memory.
    out.push_back(rule("inference_1_2x_weights",
                       sizing::fmt("1.2 x 2 bytes x %.2fB parameters (Transformer Math 101)", n / 1e9), 1.2 * 2 * n));
}

void fullTrainingRules(double n, std::vector<QuickRule>& out) {
    // 001 §8: weights 2n + gradients 2n + optimizer 12n = 16n GB (ZeRO paper).
    out.push_back(rule("training_16_bytes_per_param",
                       sizing::fmt("(2 + 2 + 12) bytes x %.2fB parameters: bf16 weights, gradients, fp32 Adam "
                                   "(source article 001 §8)",
                                   n / 1e9),
                       16 * n));
    // 001 §8 and §8.1: "20n GB is about the practical minimum"; fp32 model a = 4n,
    // full fine-tuning ~ 5a = 20n.
    out.push_back(rule("training_20_bytes_per_param",
                       sizing::fmt("20 bytes x %.2fB parameters (\"20n in practice\", source article 001 §8, §8.1)",
                                   n / 1e9),
                       20 * n));
    // 001 §8.2: "inference x2, training x8" in bf16 (weights, gradients, two
    // optimizer states, activations ignored).
    out.push_back(rule("training_8_bytes_per_param",
                       sizing::fmt("4 copies x 2 bytes x %.2fB parameters (\"training x8\", source article 001 §8.2)",
                                   n / 1e9),
                       8 * n));
    // 001 §9: full training needs three to four times the inference memory.
    out.push_back(rule("training_3_to_4x_inference",
                       sizing::fmt("4 x inference memory 2 bytes x %.2fB (upper end of \"3-4x\", source article 001 §9)",
                                   n / 1e9),
                       4 * 2 * n));
}

void loraRules(double n, double adapters, bool qlora, std::vector<QuickRule>& out) {
    // 001 §8.1: LoRA needs a bit more than the fp32 model size a = 4n, with
    // gradients and optimizer states on ~1% of the parameters.
    out.push_back(rule("lora_about_model_size",
                       sizing::fmt("4 bytes x %.2fB + 3 x 4 bytes x %.0fM adapter parameters (source article 001 §8.1)",
                                   n / 1e9, adapters / 1e6),
                       4 * n + 12 * adapters));
    if (qlora) {
        // QLoRA paper: 4-bit base (~0.5 byte per parameter) + adapters.
        out.push_back(rule("qlora_half_byte_per_param",
                           sizing::fmt("0.5 bytes x %.2fB + 16 bytes x %.0fM adapters (QLoRA §3)", n / 1e9, adapters / 1e6),
                           0.5 * n + 16 * adapters));
    }
}

}  // namespace

std::vector<QuickRule> quickRules(const Scenario& s) {
    const sizing::Inputs in = sizing::prepare(s);
    const double n = in.counts().total;
    std::vector<QuickRule> out;
    if (s.task == Task::Inference) inferenceRules(n, out);
    else if (in.lora) loraRules(n, in.adapterParams, in.qlora, out);
    else fullTrainingRules(n, out);
    return out;
}

}  // namespace caliper
