#pragma once
// Costs every node of a shape-inferred model and the whole-model views built from them.
#include "cost/cost.h"
#include "graph/graph.h"

namespace ridge::cost {

// `model` must have been through shape::infer_shapes.
ModelCost analyze(const graph::Model& model, const CostOptions& options);

}  // namespace ridge::cost
