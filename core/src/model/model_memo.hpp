#pragma once
// The figures of a model that depend on it alone (parameter counts, shape),
// worked out once and read back by every evaluation of that very ModelSpec
// object while a HeldModelFigures lives: the matrix evaluates each model on
// every GPU column, and each cell would otherwise count its parameters
// twice (prepare, makeWorkload). Objects are matched by address, so a copy
// of the scenario (a resolved variant) works its figures out afresh.
#include "caliper/model.hpp"
#include "memory/sizing.hpp"

namespace caliper {

struct ModelFigures {
    ParamCounts counts;
    sizing::ModelShape shape;
};

// countParams and modelShape of `model`, worked out now.
ModelFigures modelFigures(const ModelSpec& model);

// While alive, countParams(model) and sizing::prepare on a scenario whose
// model is `model` read `figures` (which must be modelFigures of an equal
// model); `model` must not change meanwhile. Scopes nest.
class HeldModelFigures {
public:
    HeldModelFigures(const ModelSpec& model, const ModelFigures& figures);
    ~HeldModelFigures();
    HeldModelFigures(const HeldModelFigures&) = delete;
    HeldModelFigures& operator=(const HeldModelFigures&) = delete;

private:
    const ModelSpec* previousModel_;
    const ModelFigures* previousFigures_;
};

// The held figures of this very object, or null.
const ModelFigures* heldFigures(const ModelSpec& model);

}  // namespace caliper
