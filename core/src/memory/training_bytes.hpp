#pragma once
// Bytes per parameter of training states and the communication buffers of
// the data-parallel strategies.
#include "memory/sizing.hpp"

namespace caliper::sizing {

constexpr double kFp32Bytes = 4;
// DeepSpeed's model-state estimators size host memory with
// additional_buffer_factor = 1.5.
constexpr double kDeepSpeedCpuBufferFactor = 1.5;
// FSDP holds the current unit and the one prefetched for the next step
// (backward_prefetch=BACKWARD_PRE).
constexpr double kFsdpLiveUnits = 2;

// Stored bytes per weight the training computes in: fp32 without mixed
// precision, else 16-bit (FP8 training keeps bf16 parameters).
double weightBytesPerParam(const Scenario& s);

// Bytes of one LoRA adapter parameter and of its gradient (autograd makes
// the gradient in the parameter's dtype): 4 where adapters train in fp32
// (PEFT's upcast, an fp32 base), else the 16-bit model dtype (LitGPT's
// bf16-true, Unsloth, torchtune, PEFT before v0.12).
double adapterBytesPerParam(const Scenario& s);

// Optimizer state bytes per trainable parameter, without the fp32 master
// copy: AdamW 8 (m and v), bitsandbytes 8-bit AdamW 2, SGD with momentum 4,
// Adafactor's factored second moments (rows + columns per matrix, fp32).
double optimizerStateBytes(const Inputs& in, bool adapters);

// The fp32 master copy of 16-bit weights that mixed precision keeps beside
// the optimizer moments (ZeRO §3: the "12" of 2 + 2 + 12); none in pure bf16
// training or when the weights are fp32 already; in the optimizer's state
// dtype beside FP8-stored weights (fp8_params).
double masterCopyBytes(const Inputs& in);

// Trainable parameters on this GPU whose weights are stored in FP8
// (Scenario::fp8Params): the block linears of its stage share.
double fp8StoredParams(const Inputs& in, const Layout& layout, double stageShare);

// Gradient buckets of DDP and DeepSpeed, per GPU.
double communicationBuffers(const Inputs& in, const Layout& layout, double trainableParamsOnGpu);

void explainStates(const Inputs& in, const Layout& layout, double trainableParamsOnGpu, const TrainingStates& t,
                   const Explain& ex);

}  // namespace caliper::sizing
