#pragma once
// `ridge analyze` results as documents (printed in any format by report/printer.h).
#include <string>
#include <vector>

#include "analysis/run.h"
#include "report/document.h"

namespace ridge::report {

// One analysis: header, per-node table (unless `with_nodes` is false), per op type, totals,
// training totals, and the ops without a cost rule (schema in docs/json-schema.md).
Document analysis_document(const analysis::Request& request, const analysis::Result& result, bool with_nodes);

struct SweepPoint {
  std::string value;
  analysis::Result result;
};

// One row per point of a sweep over `key` (batch or a named dim).
Document analysis_sweep_document(const analysis::Request& request, const std::string& key,
                                 const std::vector<SweepPoint>& points);

}  // namespace ridge::report
