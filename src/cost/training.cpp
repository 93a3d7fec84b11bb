// The training step: forward, backward (gradients for activations and weights, from each
// rule's backward FLOPs), and the optimizer update. Conventions in docs/cost-model.md.
#include <unordered_set>

#include "cost/memory_views.h"
#include "graph/shape.h"
#include "util/name_table.h"

namespace ridge::cost {
namespace {

constexpr NameTable<Optimizer, 3> kOptimizers{
    {{Optimizer::kSgd, "sgd"}, {Optimizer::kMomentum, "momentum"}, {Optimizer::kAdam, "adam"}}};

struct OptimizerCost {
  int flops_per_param;
  int bytes_per_param_bytes;  // multiples of the parameter bytes moved per step
  int state_copies;           // optimizer state, in copies of the parameters
};

OptimizerCost optimizer_cost(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return {2, 3, 0};  // w -= lr*g: read w, g; write w
    case Optimizer::kMomentum:
      return {4, 5, 1};  // m = mu*m + g; w -= lr*m
    case Optimizer::kAdam:
      return {14, 7, 2};  // m, v updates, bias correction, sqrt/eps/div step
  }
  return {0, 0, 0};
}

}  // namespace

std::string_view name(Optimizer optimizer) { return name_in(kOptimizers, optimizer); }
Optimizer parse_optimizer(std::string_view text) { return parse_in(kOptimizers, "optimizer", text); }

TrainingTotals training_step(const graph::Graph& g, std::vector<NodeEvaluation>& evals, const CostOptions& options,
                             const Totals& forward) {
  TrainingTotals t;
  t.forward_flops = forward.flops;
  t.forward_bytes = forward.bytes;
  std::vector<bool> requires_grad(g.values.size(), false);
  // Only a floating value carries a gradient: a Dropout's mask or MaxPool's and TopK's indices have none to receive
  // or pass on, and neither have the statistics a rule names (gradient_outputs). A value of unknown type is counted
  // as floating, so that work is never left out.
  auto has_gradient = [&](const NodeEvaluation& eval, const graph::Node& node, size_t k) {
    auto id = node.outputs[k];
    if (id == graph::kNoValue || (eval.gradient_outputs >= 0 && k >= static_cast<size_t>(eval.gradient_outputs)))
      return false;  // a statistic the rule names (BatchNormalization's running mean)
    auto type = g.value(id).dtype;
    return type == graph::DType::kUndefined || graph::is_floating(type);
  };
  std::unordered_set<graph::ValueId> saved, params;
  int64_t param_elements = 0, param_bytes = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& node = g.nodes[n];
    auto& eval = evals[n];
    bool data_grad = false, weight_grad = false;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      auto id = node.inputs[i];
      if (id == graph::kNoValue) continue;
      if (eval.input_is_parameter[i]) {
        weight_grad = true;
        if (params.insert(id).second) {
          param_elements += graph::element_count(g.value(id).shape);
          param_bytes += value_bytes(g, id, options);
        }
      } else if (requires_grad[static_cast<size_t>(id)]) {
        data_grad = true;
      }
    }
    if (!eval.differentiable || (!data_grad && !weight_grad)) continue;
    for (size_t k = 0; k < node.outputs.size(); ++k)
      if (has_gradient(eval, node, k)) requires_grad[static_cast<size_t>(node.outputs[k])] = true;
    int64_t flops = (data_grad ? eval.backward_flops_data : 0) + (weight_grad ? eval.backward_flops_weight : 0);
    int64_t bytes = 0;
    for (size_t k = 0; k < node.outputs.size() && k < eval.output_bytes.size(); ++k)
      if (has_gradient(eval, node, k)) bytes += eval.output_bytes[k];  // incoming gradients of the outputs
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      auto id = node.inputs[i];
      if (id == graph::kNoValue) continue;
      bool grad = eval.input_is_parameter[i] || requires_grad[static_cast<size_t>(id)];
      int64_t full = value_bytes(g, id, options);
      if (grad) bytes += full;  // gradient written
      if (eval.saves_inputs) {
        bytes += eval.input_read_bytes[i];  // forward input read again
        if (!is_weight_value(g, id)) saved.insert(id);
      }
    }
    if (eval.saves_output)
      for (size_t k = 0; k < node.outputs.size(); ++k)
        if (node.outputs[k] != graph::kNoValue &&
            (eval.saves_only_output < 0 || k == static_cast<size_t>(eval.saves_only_output))) {
          bytes += eval.output_bytes[k];
          saved.insert(node.outputs[k]);
        }
    eval.cost.backward_flops = flops;
    eval.cost.backward_bytes = bytes;
    t.backward_flops += flops;
    t.backward_bytes += bytes;
  }
  for (auto id : saved) t.saved_activation_bytes += value_bytes(g, id, options);
  auto opt = optimizer_cost(options.optimizer);
  t.optimizer_flops = opt.flops_per_param * param_elements;
  t.optimizer_bytes = opt.bytes_per_param_bytes * param_bytes;
  t.optimizer_state_bytes = opt.state_copies * param_bytes;
  t.gradient_bytes = param_bytes;
  return t;
}

}  // namespace ridge::cost
