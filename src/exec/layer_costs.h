#pragma once
// Puts the analytical model's FLOPs (and, for convolutions, the chosen algorithm's FLOPs and
// workspace) next to each measured node, so predicted and measured compare layer by layer.
#include "cost/cost.h"
#include "exec/measurement.h"
#include "graph/graph.h"

namespace ridge::exec {

void attach_layer_costs(BenchResult& result, const graph::Model& model, const cost::ModelCost& cost);

}  // namespace ridge::exec
