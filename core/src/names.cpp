// Every toString of the public enums reads its name table (caliper/names.hpp).
#include "caliper/names.hpp"

namespace caliper {

const char* toString(Task v) { return nameOf(v); }
const char* toString(Method v) { return nameOf(v); }
const char* toString(Engine v) { return nameOf(v); }
const char* toString(Optimizer v) { return nameOf(v); }
const char* toString(Strategy v) { return nameOf(v); }
const char* toString(Offload v) { return nameOf(v); }
const char* toString(LossKernel v) { return nameOf(v); }
const char* toString(LoraTargets v) { return nameOf(v); }
const char* toString(InterNode v) { return nameOf(v); }
const char* toString(WeightFormat v) { return nameOf(v); }
const char* toString(KvFormat v) { return nameOf(v); }
const char* toString(Objective v) { return nameOf(v); }
const char* toString(Pricing v) { return nameOf(v); }
const char* toString(CellStatus v) { return nameOf(v); }

}  // namespace caliper
