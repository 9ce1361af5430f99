#pragma once
// What a training or inference framework does without the row's text saying
// so, read from the framework's own scripts: applied by the engine a row
// names (its `engine` key), never by row.
#include "caliper/catalog.hpp"
#include "json/json_read.hpp"
#include "validate/row.hpp"
#include "validate/text.hpp"

namespace caliper::io {

// Before the request is built: how the framework measures memory and the
// token counts its scripts use by default. `text` is the row's lower-case
// `extra`. Throws Unexpressible for a row that measured another program.
void applyFrameworkSetup(const RowFacts& f, RowKind kind, const std::string& text, RowSetup& setup);

// After the request is built: the framework's loss, parallel strategy and
// checkpointing, where the row does not state them.
void applyFrameworkRequest(const RowFacts& f, const RowSetup& setup, const std::string& text, const std::string& task,
                           Json& request);

// After the request is built: a measured figure below the model states the
// framework keeps on the stated devices cannot be that setup's training step.
// Throws Unexpressible for such a row.
void checkFrameworkStateFloor(const Catalog& catalog, const RowFacts& f, const Json& request);

}  // namespace caliper::io
