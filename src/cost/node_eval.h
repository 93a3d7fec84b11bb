#pragma once
// Evaluation of one node's cost rule, with what the memory views and the training step need.
#include <unordered_set>
#include <vector>

#include "cost/context.h"
#include "cost/cost.h"

namespace ridge::cost {

struct NodeEvaluation {
  NodeCost cost;
  std::vector<int64_t> input_read_bytes;  // per input, after overrides
  std::vector<int64_t> output_bytes;      // per output
  std::vector<bool> input_is_parameter;   // float initializer that is trained
  int64_t backward_flops_data = 0, backward_flops_weight = 0;
  bool saves_inputs = false, saves_output = false;
  int saves_only_output = -1;  // CostContext::saves_only_output
  int gradient_outputs = -1;   // CostContext::gradient_outputs
  bool fusible = false, differentiable = true, is_view = false;
};

// Costs `node` of `g`. `counted_params` collects initializers already counted as parameters.
NodeEvaluation evaluate_node(const graph::Graph& g, const graph::Node& node, const CostOptions& options,
                             std::unordered_set<graph::ValueId>& counted_params, ModelCost& model_cost);

}  // namespace ridge::cost
