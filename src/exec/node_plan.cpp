#include "exec/node_plan.h"

#include <set>
#include <string>

namespace ridge::exec {

namespace {

void outer_reads(const graph::Graph& g, std::set<std::string>& names) {
  for (const auto& v : g.values)
    if (v.from_outer_scope) names.insert(v.name);
  for (const auto& node : g.nodes)
    for (const auto* sub : node.subgraphs()) outer_reads(*sub, names);
}

}  // namespace

std::set<std::string> subgraph_outer_reads(const graph::Graph& g) {
  std::set<std::string> names;
  for (const auto& node : g.nodes)
    for (const auto* sub : node.subgraphs()) outer_reads(*sub, names);
  return names;
}

bool is_folded_arithmetic(const graph::Graph& g, const graph::Node& node) {
  if (node.outputs.empty()) return false;
  for (auto id : node.outputs)
    if (id != graph::kNoValue && !g.value(id).constant) return false;
  return true;
}

NodePlan plan_nodes(const graph::Graph& g, bool fold_constants, bool weights_change) {
  NodePlan p;
  p.runs.assign(g.nodes.size(), true);
  // Float values computed from a weight (a float initializer of rank 1 or more, what a training step trains), in the
  // graph's topological order.
  std::vector<bool> from_weight(g.values.size(), false);
  if (weights_change) {
    for (size_t i = 0; i < g.values.size(); ++i) {
      const auto& v = g.values[i];
      from_weight[i] = v.initializer && v.dtype == graph::DType::kFloat32 && v.has_shape && !v.shape.empty();
    }
    for (const auto& node : g.nodes) {
      bool reads = false;
      for (auto id : node.inputs) reads = reads || (id != graph::kNoValue && from_weight[static_cast<size_t>(id)]);
      if (!reads) continue;
      for (auto id : node.outputs)
        if (id != graph::kNoValue && g.value(id).dtype == graph::DType::kFloat32)
          from_weight[static_cast<size_t>(id)] = true;
    }
  }
  auto computes_from_weight = [&](const graph::Node& node) {
    for (auto id : node.outputs)
      if (id != graph::kNoValue && from_weight[static_cast<size_t>(id)]) return true;
    return false;
  };
  std::vector<bool> kept(g.values.size(), false);
  for (size_t i = 0; i < g.values.size(); ++i) {
    const auto& v = g.values[i];
    kept[i] = v.is_graph_output || v.initializer || v.from_outer_scope;
  }
  std::vector<int64_t> last_reader(g.values.size(), -1);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& node = g.nodes[n];
    if (fold_constants && is_folded_arithmetic(g, node) && !computes_from_weight(node)) {
      p.runs[n] = false;
      for (auto id : node.outputs)
        if (id != graph::kNoValue) kept[static_cast<size_t>(id)] = true;  // a constant now
      continue;
    }
    for (auto id : node.inputs)
      if (id != graph::kNoValue) last_reader[static_cast<size_t>(id)] = static_cast<int64_t>(n);
    std::set<std::string> names;
    for (const auto* sub : node.subgraphs()) outer_reads(*sub, names);
    for (const auto& name : names)
      if (auto id = g.find(name)) last_reader[static_cast<size_t>(*id)] = static_cast<int64_t>(n);
  }
  p.release_after.resize(g.nodes.size());
  for (size_t i = 0; i < g.values.size(); ++i)
    if (last_reader[i] >= 0 && !kept[i])
      p.release_after[static_cast<size_t>(last_reader[i])].push_back(static_cast<graph::ValueId>(i));
  return p;
}

}  // namespace ridge::exec
