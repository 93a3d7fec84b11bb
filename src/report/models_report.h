#pragma once
// `ridge models`: the models of a directory with their inputs, the dims a user binds, the defaults the file
// stores, and their parameters and MACs at batch 1.
#include <string>

#include "report/document.h"

namespace ridge::report {

// Where the bundled models are: $RIDGE_MODEL_DIR, the installed layout (PREFIX/share/ridge/models beside
// PREFIX/bin), else the source tree's models/ the build was configured from.
std::string bundled_model_dir();

// One row per .onnx file of `dir`, sorted by name. Throws ridge::Error when `dir` is not a directory or holds
// no .onnx file; a model that cannot be costed at batch 1 keeps its row with empty params and MACs.
Document models_document(const std::string& dir);

}  // namespace ridge::report
