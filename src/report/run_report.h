#pragma once
// `ridge run`'s outputs as a document: the bound inputs, then per output its dtype, shape, min / max / mean and
// first values.
#include "exec/run_model.h"
#include "report/document.h"

namespace ridge::report {

Document run_document(const exec::RunRequest& request, const exec::ModelRun& run);

}  // namespace ridge::report
