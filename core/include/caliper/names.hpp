#pragma once
// The JSON names of every enum (docs/CONTRACT.md), one table per enum. The
// request parser, the result and matrix writers (toString), the CLI help and
// describe all read these tables, so a name cannot exist on one side only.
// Each table lists its enum's values in declaration order (checked below):
// the matrix "values" layout writes a value's index into the table.
#include <cstddef>
#include <optional>
#include <string_view>

#include "caliper/answers/matrix.hpp"
#include "caliper/answers/recommend.hpp"
#include "caliper/scenario.hpp"
#include "caliper/weight_format.hpp"

namespace caliper {

template <class E>
struct EnumName {
    E value;
    const char* name;
};

// Names<E>::table: the values of E and their names; specialised per enum.
template <class E>
struct Names;

template <>
struct Names<Task> {
    static constexpr EnumName<Task> table[] = {
        {Task::Inference, "inference"}, {Task::Finetune, "finetune"}, {Task::Pretrain, "pretrain"}};
};

template <>
struct Names<Method> {
    static constexpr EnumName<Method> table[] = {{Method::Full, "full"}, {Method::Lora, "lora"}, {Method::Qlora, "qlora"}};
};

template <>
struct Names<Engine> {
    static constexpr EnumName<Engine> table[] = {
        {Engine::Transformers, "transformers"}, {Engine::Vllm, "vllm"},           {Engine::Sglang, "sglang"},
        {Engine::TensorrtLlm, "tensorrt-llm"},  {Engine::LlamaCpp, "llama.cpp"}, {Engine::Deepspeed, "deepspeed"},
        {Engine::Fsdp, "fsdp"},                 {Engine::Megatron, "megatron"},  {Engine::Unsloth, "unsloth"},
        {Engine::Torchtune, "torchtune"},       {Engine::Mlx, "mlx"},            {Engine::Ollama, "ollama"}};
};

template <>
struct Names<Optimizer> {
    static constexpr EnumName<Optimizer> table[] = {
        {Optimizer::AdamW, "adamw"}, {Optimizer::AdamW8bit, "adamw-8bit"}, {Optimizer::PagedAdamW8bit, "paged-adamw-8bit"},
        {Optimizer::Sgd, "sgd"},     {Optimizer::Adafactor, "adafactor"},  {Optimizer::AdamWBf16, "adamw-bf16"}};
};

template <>
struct Names<Strategy> {
    static constexpr EnumName<Strategy> table[] = {
        {Strategy::Auto, "auto"},   {Strategy::Single, "single"},    {Strategy::Ddp, "ddp"},
        {Strategy::Zero1, "zero1"}, {Strategy::Zero2, "zero2"},      {Strategy::Zero3, "zero3"},
        {Strategy::Fsdp, "fsdp"},   {Strategy::Tensor, "tensor"},    {Strategy::Pipeline, "pipeline"},
        {Strategy::LayerSplit, "layer-split"}};
};

template <>
struct Names<Offload> {
    static constexpr EnumName<Offload> table[] = {
        {Offload::None, "none"},     {Offload::Optimizer, "optimizer"},      {Offload::Parameters, "parameters"},
        {Offload::Layers, "layers"}, {Offload::MoeExperts, "moe-experts"}};
};

template <>
struct Names<LoraTargets> {
    static constexpr EnumName<LoraTargets> table[] = {
        {LoraTargets::AllLinear, "all-linear"}, {LoraTargets::Attention, "attention"}, {LoraTargets::QueryValue, "query-value"}};
};

template <>
struct Names<LossKernel> {
    static constexpr EnumName<LossKernel> table[] = {
        {LossKernel::Eager, "eager"}, {LossKernel::VocabParallel, "vocab-parallel"}, {LossKernel::Fused, "fused"},
        {LossKernel::Chunked, "chunked"}, {LossKernel::EagerShifted, "eager-shifted"},
        {LossKernel::FusedLinear, "fused-linear"}, {LossKernel::ChunkedNll, "chunked-nll"}};
};

template <>
struct Names<InterNode> {
    static constexpr EnumName<InterNode> table[] = {
        {InterNode::InfinibandXdr, "infiniband-xdr"}, {InterNode::InfinibandNdr, "infiniband-ndr"},
        {InterNode::InfinibandHdr, "infiniband-hdr"}, {InterNode::Roce400g, "roce-400g"},
        {InterNode::Roce200g, "roce-200g"},           {InterNode::Ethernet100g, "ethernet-100g"},
        {InterNode::Ethernet25g, "ethernet-25g"}};
};

template <>
struct Names<WeightFormat> {
    static constexpr EnumName<WeightFormat> table[] = {
        {WeightFormat::Fp32, "fp32"},         {WeightFormat::Bf16, "bf16"},
        {WeightFormat::Fp16, "fp16"},         {WeightFormat::Fp8, "fp8"},
        {WeightFormat::Int8, "int8"},         {WeightFormat::Nf4, "nf4"},
        {WeightFormat::Nf4Dq, "nf4-dq"},      {WeightFormat::GptqInt4, "gptq-int4"},
        {WeightFormat::AwqInt4, "awq-int4"},  {WeightFormat::Mxfp4, "mxfp4"},
        {WeightFormat::Nvfp4, "nvfp4"},       {WeightFormat::Int4W4a16, "int4-w4a16"},
        {WeightFormat::Int8W8a8, "int8-w8a8"}, {WeightFormat::Fp8Block, "fp8-block"},
        {WeightFormat::Q8_0, "Q8_0"},         {WeightFormat::Q6_K, "Q6_K"},
        {WeightFormat::Q5_K_M, "Q5_K_M"},     {WeightFormat::Q5_K_S, "Q5_K_S"},
        {WeightFormat::Q5_0, "Q5_0"},         {WeightFormat::Q4_K_M, "Q4_K_M"},
        {WeightFormat::Q4_K_S, "Q4_K_S"},     {WeightFormat::Q4_0, "Q4_0"},
        {WeightFormat::Q4_1, "Q4_1"},         {WeightFormat::Q3_K_L, "Q3_K_L"},
        {WeightFormat::Q3_K_M, "Q3_K_M"},     {WeightFormat::Q3_K_S, "Q3_K_S"},
        {WeightFormat::Q2_K, "Q2_K"}};
};

template <>
struct Names<KvFormat> {
    static constexpr EnumName<KvFormat> table[] = {{KvFormat::Fp32, "fp32"}, {KvFormat::Bf16, "bf16"},
                                                   {KvFormat::Fp16, "fp16"}, {KvFormat::Fp8, "fp8"},
                                                   {KvFormat::Q8_0, "q8_0"}, {KvFormat::Q4_0, "q4_0"}};
};

template <>
struct Names<Objective> {
    static constexpr EnumName<Objective> table[] = {{Objective::Cheapest, "cheapest"},
                                                    {Objective::Fastest, "fastest"},
                                                    {Objective::CostPerToken, "cost_per_token"},
                                                    {Objective::FewestGpus, "fewest_gpus"},
                                                    {Objective::LowestPower, "lowest_power"}};
};

template <>
struct Names<Pricing> {
    static constexpr EnumName<Pricing> table[] = {{Pricing::Cloud, "cloud"}, {Pricing::Purchase, "purchase"}};
};

template <>
struct Names<CellStatus> {
    static constexpr EnumName<CellStatus> table[] = {{CellStatus::Fits, "fits"},
                                                     {CellStatus::FitsMulti, "fits-multi"},
                                                     {CellStatus::MultiNode, "multi-node"},
                                                     {CellStatus::No, "no"}};
};

// The currencies a request prices in (the request's `currency`).
constexpr const char* kCurrencyNames[] = {"usd", "cny"};

template <class E>
constexpr std::size_t nameCount() {
    return sizeof(Names<E>::table) / sizeof(Names<E>::table[0]);
}

// The name of a value ("" for a value outside the table).
template <class E>
constexpr const char* nameOf(E value) {
    for (const EnumName<E>& n : Names<E>::table) {
        if (n.value == value) return n.name;
    }
    return "";
}

// Whether two names are equal, ignoring ASCII case.
constexpr bool sameName(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
}

// The value of a name, compared case-insensitively (aliases are the parser's).
template <class E>
std::optional<E> valueNamed(std::string_view name) {
    for (const EnumName<E>& n : Names<E>::table) {
        if (sameName(name, n.name)) return n.value;
    }
    return std::nullopt;
}

// Each table holds its enum's values 0..N-1 in order.
template <class E>
constexpr bool inDeclarationOrder() {
    for (std::size_t i = 0; i < nameCount<E>(); ++i) {
        if (static_cast<std::size_t>(Names<E>::table[i].value) != i) return false;
    }
    return true;
}
static_assert(inDeclarationOrder<Task>() && inDeclarationOrder<Method>() && inDeclarationOrder<Engine>() &&
              inDeclarationOrder<Optimizer>() && inDeclarationOrder<Strategy>() && inDeclarationOrder<Offload>() && inDeclarationOrder<LossKernel>() && inDeclarationOrder<LoraTargets>() && inDeclarationOrder<InterNode>() &&
              inDeclarationOrder<WeightFormat>() && inDeclarationOrder<KvFormat>() && inDeclarationOrder<Objective>() &&
              inDeclarationOrder<Pricing>() && inDeclarationOrder<CellStatus>());

}  // namespace caliper
