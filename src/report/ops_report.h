#pragma once
// `ridge ops`: the ONNX ops ridge infers shapes for, costs and executes, as a document and as the Markdown page kept
// in docs/ops.md.
#include <string>
#include <vector>

#include "exec/coverage.h"
#include "report/document.h"

namespace ridge::report {

// One row per op (shape, cost, exec) and the coverage summary.
Document ops_document(const std::vector<exec::OpCoverage>& ops);
// docs/ops.md as `ridge ops --markdown` writes it: its introduction, one row per op, the summary.
std::string ops_markdown(const std::vector<exec::OpCoverage>& ops);

}  // namespace ridge::report
