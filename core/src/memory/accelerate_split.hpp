#pragma once
// transformers inference over several GPUs with device_map="auto":
// accelerate's byte-balanced split (utils/modeling.py get_balanced_memory,
// infer_auto_device_map), whose GPUs hold unequal shares.
#include <array>
#include <optional>

#include "memory/sizing.hpp"

namespace caliper::sizing {

// The GPUs whose figures bound the split: GPU 0 (the embeddings, and a tied
// lm_head with the logits), the fullest middle GPU (if any) and the last
// GPU (the layers left, an untied lm_head and the logits). `count` is how
// many of `stages` are set. Empty where the plan is no transformers
// inference layer split.
struct AccelerateStages {
    std::array<Stage, 3> stages;
    int count = 0;
};
std::optional<AccelerateStages> accelerateStages(const Inputs& in, const Layout& layout);

}  // namespace caliper::sizing
