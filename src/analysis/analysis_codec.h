#pragma once
// The one JSON codec of analyses: `ridge analyze -f json` writes with it, the results store keeps what it writes,
// and every reader of stored analyses (`ridge report`) decodes with it into the same cost the analysis computed. An
// analysis:
//   {ridge {version, revision}, model {path, opset, ir_version, producer, nodes}, inputs {name: shape},
//    options {activation_dtype, weight_dtype, training, optimizer}, unknown_ops {op: count}, unresolved_ops,
//    estimated_nodes, nodes[]?, op_types[], totals {...}, training? {...}, notes[]}
// and a sweep (`--sweep`): {ridge, model {path}, sweep, points[] {value, unknown_ops, totals, training?}}
// (docs/json-schema.md). Derived figures (intensities, op-type sums, bytes read) are written for readers and
// computed again when read, never trusted from the file.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "analysis/run.h"
#include "cost/cost.h"

namespace ridge::analysis {

// An analysis as a value: what the model file is and how it was bound, and its cost. The graph itself is not part
// of the result (it is the model file's).
struct Analysis {
  std::string model;  // the model file
  int64_t opset = 0, ir_version = 0, graph_nodes = 0;
  std::string producer;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, bound shape
  std::string activation_dtype = "as stored", weight_dtype = "as stored";
  bool training = false;
  std::string optimizer = "sgd";
  bool with_nodes = true;  // false: a summary (`--summary`), or a point of a sweep
  cost::ModelCost cost;
  // Per op type, sorted by FLOPs (ModelCost::by_op_type when made): kept as data, since a summary has no nodes to
  // sum them from.
  std::vector<cost::OpTypeSummary> op_types;
  std::vector<std::string> notes;
  std::string sweep_value;  // the point's value in a sweep ("8"); empty for a single analysis
};

// `with_nodes` false keeps the per-node rows out (`ridge analyze --summary`).
Analysis make_analysis(const Request& request, const Result& result, bool with_nodes = true);

nlohmann::ordered_json encode_analysis(const Analysis& analysis);
// A sweep over `key` (batch or a named dim): each point's value is its sweep_value.
nlohmann::ordered_json encode_analysis_sweep(const std::string& model, const std::string& key,
                                             const std::vector<Analysis>& points);

// Either form (a sweep gives one Analysis per point, without nodes). Throws ridge::Error with one line naming
// `where` and the field on a document that is no analysis.
std::vector<Analysis> decode_analyses(const nlohmann::json& doc, const std::string& where);
bool is_analysis(const nlohmann::json& doc);

}  // namespace ridge::analysis
