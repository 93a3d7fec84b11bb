#include "exec/cuda/backward_plan.h"

#include <map>

namespace ridge::exec::cuda {

namespace {

bool is_weight(const graph::Value& v) {
  return v.initializer && v.dtype == graph::DType::kFloat32 && v.has_shape && !v.shape.empty();
}

}  // namespace

BackwardPlan plan_backward(const graph::Graph& g, const std::function<bool(size_t)>& executes,
                           const std::function<bool(std::string_view)>& has_backward) {
  BackwardPlan plan;
  plan.needs_grad.assign(g.values.size(), false);
  for (size_t i = 0; i < g.values.size(); ++i) plan.needs_grad[i] = is_weight(g.values[i]);
  // Forward, in the graph's (topological) order: a float output of a running node that reads a value
  // needing a gradient needs one too. Integer and bool outputs (masks, indices) carry none.
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!executes(n)) continue;
    const auto& node = g.nodes[n];
    bool any = false;
    for (auto id : node.inputs) any = any || (id != graph::kNoValue && plan.needs_grad[static_cast<size_t>(id)]);
    if (!any) continue;
    for (auto id : node.outputs)
      if (id != graph::kNoValue && g.value(id).dtype == graph::DType::kFloat32)
        plan.needs_grad[static_cast<size_t>(id)] = true;
  }
  // Backward: a value reaches the loss when it is a float graph output needing a gradient, or a node reading
  // it has an output that reaches the loss.
  std::vector<bool> reaches(g.values.size(), false);
  for (auto id : g.outputs)
    if (plan.needs_grad[static_cast<size_t>(id)]) {
      reaches[static_cast<size_t>(id)] = true;
      plan.losses.push_back(id);
    }
  std::map<std::string, int> missing;
  for (size_t n = g.nodes.size(); n-- > 0;) {
    if (!executes(n)) continue;
    const auto& node = g.nodes[n];
    bool output_reaches = false;
    for (auto id : node.outputs)
      output_reaches = output_reaches || (id != graph::kNoValue && reaches[static_cast<size_t>(id)] &&
                                          plan.needs_grad[static_cast<size_t>(id)]);
    if (!output_reaches) continue;
    bool input_needs = false;
    for (auto id : node.inputs)
      if (id != graph::kNoValue && plan.needs_grad[static_cast<size_t>(id)]) {
        input_needs = true;
        reaches[static_cast<size_t>(id)] = true;
      }
    if (!input_needs) continue;
    plan.nodes.push_back(n);
    if (!node.is_default_domain() || !has_backward(node.op_type))
      ++missing[node.is_default_domain() ? node.op_type : node.domain + "." + node.op_type];
  }
  plan.missing.assign(missing.begin(), missing.end());
  return plan;
}

}  // namespace ridge::exec::cuda
