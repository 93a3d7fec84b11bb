#pragma once
// The analytical pipeline end to end: load, bind dims, infer shapes, cost.
#include <string>
#include <vector>

#include "cost/cost.h"
#include "graph/graph.h"
#include "shape/infer.h"

namespace ridge::analysis {

struct Request {
  std::string model_path;
  shape::Bindings bindings;
  cost::CostOptions options;
  bool strict = false;  // unknown ops or unresolved shapes become an error
  // Weights stored in TensorProto's typed fields are decoded up to this many elements (the
  // executor needs them all; analysis needs none).
  int64_t max_typed_elements = 1 << 16;
};

struct Result {
  graph::Model model;
  std::vector<std::string> notes;
  cost::ModelCost cost;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, bound shape
};

// Throws ridge::Error on bad input, and in strict mode when anything is left uncosted.
Result run(const Request& request);

// Re-binds and re-costs an already loaded model (sweeps load the file once).
Result rerun(graph::Model model, const Request& request);

// The batch a bound model runs: the first dim of its first input (1 when it has none).
int64_t bound_batch(const graph::Model& model);

}  // namespace ridge::analysis
