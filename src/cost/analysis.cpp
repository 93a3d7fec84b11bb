#include "cost/analysis.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "cost/memory_views.h"
#include "cost/node_eval.h"

namespace ridge::cost {

std::vector<OpTypeSummary> ModelCost::by_op_type() const {
  std::map<std::string, OpTypeSummary> by_type;
  for (const auto& n : nodes) {
    auto& s = by_type[n.op_type];
    s.op_type = n.op_type;
    ++s.count;
    s.flops += n.flops;
    s.macs += n.macs;
    s.bytes += n.bytes();
    s.params += n.params;
  }
  std::vector<OpTypeSummary> result;
  for (auto& [name, s] : by_type) result.push_back(s);
  std::stable_sort(result.begin(), result.end(), [](const auto& a, const auto& b) { return a.flops > b.flops; });
  return result;
}

ModelCost analyze(const graph::Model& model, const CostOptions& options) {
  const auto& g = model.graph;
  ModelCost result;
  std::vector<NodeEvaluation> evals;
  evals.reserve(g.nodes.size());
  std::unordered_set<graph::ValueId> counted_params;
  for (const auto& node : g.nodes) evals.push_back(evaluate_node(g, node, options, counted_params, result));
  apply_fusion(g, evals);
  auto& t = result.totals;
  for (auto& eval : evals) {
    const auto& c = eval.cost;
    t.flops += c.flops;
    t.macs += c.macs;
    t.params += c.params;
    t.activation_bytes_read += c.activation_bytes_read;
    t.weight_bytes_read += c.weight_bytes_read;
    t.bytes_written += c.bytes_written;
    t.bytes_fused += c.bytes_fused;
  }
  t.bytes = t.activation_bytes_read + t.weight_bytes_read + t.bytes_written;
  t.bytes_min = minimum_bytes(g, options, &t.weight_bytes);
  t.peak_activation_bytes = peak_activation_bytes(g, evals, options);
  if (options.training) result.training = training_step(g, evals, options, t);
  result.nodes.reserve(evals.size());
  for (auto& eval : evals) result.nodes.push_back(std::move(eval.cost));
  return result;
}

}  // namespace ridge::cost
