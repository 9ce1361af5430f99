#pragma once
// The LoRA step the memory mechanism tests share: activations all alive
// (accumulation over two micro-batches), no checkpointing, adapters in the
// model's dtype, on one H100; a k-bit base sets its weight format on top.
#include <string>

#include "sizing_fixture.hpp"

namespace caliper::test {

inline Scenario loraStep(const std::string& model, Method method = Method::Lora) {
    Scenario s = finetuning(model, "h100-sxm5-80gb", method);
    s.gradientCheckpointing = false;
    s.globalBatch = 2;
    s.lora.adapterDtype = AdapterDtype::Model;
    return s;
}

inline Scenario loraStep(const std::string& model, Method method, WeightFormat weights) {
    Scenario s = loraStep(model, method);
    s.weights = weights;
    return s;
}

}  // namespace caliper::test
