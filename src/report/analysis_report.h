#pragma once
// `ridge analyze` results as documents (printed in any format by report/printer.h).
#include <iostream>
#include <string>
#include <vector>

#include "analysis/analysis_codec.h"
#include "analysis/request_builder.h"
#include "analysis/run.h"
#include "report/command_output.h"
#include "report/document.h"

namespace ridge::report {

// One analysis: header, per-node table (unless the analysis is a summary), per op type, totals, training totals, and
// the ops without a cost rule (schema in docs/json-schema.md). The document is a sink of the typed analysis, as the
// codec (analysis/analysis_codec) is: its JSON is what the codec writes.
Document analysis_document(const analysis::Analysis& analysis);
Document analysis_document(const analysis::Request& request, const analysis::Result& result, bool with_nodes);

struct SweepPoint {
  std::string value;
  analysis::Result result;
};

// One row per point of a sweep over `key` (batch or a named dim); each point's sweep_value names it.
Document analysis_sweep_document(const std::string& model, const std::string& key,
                                 const std::vector<analysis::Analysis>& points);
Document analysis_sweep_document(const analysis::Request& request, const std::string& key,
                                 const std::vector<SweepPoint>& points);
// The typed points of a sweep (without their nodes).
std::vector<analysis::Analysis> sweep_analyses(const analysis::Request& request, const std::vector<SweepPoint>& points);

// `ridge analyze --sweep batch=1,2,4 | DIM=v1,v2,...`: the model, read once, analysed at each value; the sweep's key
// and its typed points. A sweep of what the options already bind is refused (ridge::Error, one line).
struct AnalysisSweep {
  std::string key;
  std::vector<analysis::Analysis> analyses;
};
AnalysisSweep analyze_sweep(const analysis::Request& request, const std::string& sweep);

// `ridge analyze` printed and kept: one analysis (without its per-node rows with `summary`), or with `sweep` one per
// value (analyze_sweep), printed on `out` in `format` (-f json: the analysis codec's) and kept in the store with the
// model's parameters (one analysis: with the batch it bound). --summary with a sweep is refused (ridge::Error).
struct AnalyzeCommand {
  analysis::ModelOptions model;
  std::string sweep;  // batch=1,2,4 or DIM=v1,v2; empty: one analysis
  bool summary = false;
  std::string format = "table";
  StoreOptions store;
};
void analyze_and_keep(const AnalyzeCommand& command, std::ostream& out = std::cout);

}  // namespace ridge::report
