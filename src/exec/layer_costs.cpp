#include "exec/layer_costs.h"

#include <unordered_map>

#include "cost/conv_algorithms.h"

namespace ridge::exec {

void attach_layer_costs(BenchResult& result, const graph::Model& model, const cost::ModelCost& cost) {
  std::unordered_map<std::string, const cost::NodeCost*> by_name;
  for (const auto& n : cost.nodes) by_name.emplace(n.name, &n);
  std::unordered_map<std::string, const graph::Node*> nodes;
  for (const auto& n : model.graph.nodes) nodes.emplace(n.name, &n);
  for (auto& t : result.nodes) {
    auto it = by_name.find(t.name);
    if (it != by_name.end() && it->second->status == cost::NodeStatus::kCosted) t.predicted_flops = it->second->flops;
    if (t.op_type != "Conv" || t.algorithm.empty() || t.algorithm == "auto") continue;
    auto node = nodes.find(t.name);
    if (node == nodes.end()) continue;
    // Optimized mode names a fused activation after the algorithm: "direct+clip".
    auto algorithm = t.algorithm.substr(0, t.algorithm.find('+'));
    for (const auto& a : cost::conv_algorithm_costs(model.graph, *node->second))
      if (a.algorithm == algorithm) {
        t.predicted_flops = a.flops;
        if (t.workspace_bytes < 0) t.workspace_bytes = a.workspace_bytes;  // an executor's measured one stays
      }
  }
}

}  // namespace ridge::exec
