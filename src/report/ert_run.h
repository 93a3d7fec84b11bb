#pragma once
// A `ridge ert` measurement as the command keeps it: its document, its typed result and the parameters the store
// keeps (the host and its threads, or the GPU by name), and its points written as CSV when asked.
#include <string>

#include "report/document.h"
#include "report/ert_codec.h"
#include "report/result_codec.h"
#include "store/record.h"

namespace ridge::report {

struct ErtRun {
  Document document;
  TypedResult value;  // kind "ert"
  store::Params params;
};

// `csv_path`: the points' CSV (what -f csv prints) to write; empty: none. Throws ridge::Error when it cannot be
// written.
ErtRun ert_run(const ErtMeasurement& result, const std::string& csv_path);

}  // namespace ridge::report
