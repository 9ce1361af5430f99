#include "model/model_memo.hpp"

namespace caliper {

namespace {

thread_local const ModelSpec* gHeldModel = nullptr;
thread_local const ModelFigures* gHeldFigures = nullptr;

}  // namespace

ModelFigures modelFigures(const ModelSpec& model) {
    ModelFigures f;
    f.counts = countParams(model);
    f.shape = sizing::modelShape(model, f.counts);
    return f;
}

HeldModelFigures::HeldModelFigures(const ModelSpec& model, const ModelFigures& figures)
    : previousModel_(gHeldModel), previousFigures_(gHeldFigures) {
    gHeldModel = &model;
    gHeldFigures = &figures;
}

HeldModelFigures::~HeldModelFigures() {
    gHeldModel = previousModel_;
    gHeldFigures = previousFigures_;
}

const ModelFigures* heldFigures(const ModelSpec& model) { return &model == gHeldModel ? gHeldFigures : nullptr; }

}  // namespace caliper
