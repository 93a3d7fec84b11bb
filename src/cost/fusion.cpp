#include <string>
#include <unordered_set>

#include "cost/memory_views.h"

namespace ridge::cost {

void apply_fusion(const graph::Graph& g, std::vector<NodeEvaluation>& evals) {
  std::vector<int64_t> written(evals.size(), 0);
  std::vector<std::vector<int64_t>> reads(evals.size()), writes(evals.size());
  for (size_t n = 0; n < evals.size(); ++n) {
    reads[n] = evals[n].input_read_bytes;
    writes[n] = evals[n].output_bytes;
  }
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& eval = evals[n];
    if (!eval.fusible || eval.is_view || eval.cost.status != NodeStatus::kCosted) continue;
    const auto& node = g.nodes[n];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      auto id = node.inputs[i];
      if (id == graph::kNoValue || is_weight_value(g, id)) continue;
      const auto& v = g.value(id);
      if (v.producer < 0 || v.is_graph_output || v.consumers.size() != 1) continue;
      auto p = static_cast<size_t>(v.producer);
      const auto& producer = evals[p];
      if (producer.is_view || producer.cost.status != NodeStatus::kCosted) continue;
      const auto& outs = g.nodes[p].outputs;
      for (size_t k = 0; k < outs.size(); ++k)
        if (outs[k] == id) writes[p][k] = 0;
      reads[n][i] = 0;
      break;  // one producer per fused kernel
    }
  }
  for (size_t n = 0; n < evals.size(); ++n) {
    int64_t total = 0;
    for (auto b : reads[n]) total += b;
    for (auto b : writes[n]) total += b;
    evals[n].cost.bytes_fused = total;
  }
}

namespace {

// The names subgraphs (their own subgraphs too) read from the graphs around them.
void outer_reads(const graph::Graph& g, std::unordered_set<std::string>& names) {
  for (const auto& node : g.nodes)
    for (const auto* sub : node.subgraphs()) {
      for (const auto& v : sub->values)
        if (v.from_outer_scope) names.insert(v.name);
      outer_reads(*sub, names);
    }
}

}  // namespace

int64_t minimum_bytes(const graph::Graph& g, const CostOptions& options, int64_t* weight_bytes) {
  int64_t weights = 0, io = 0;
  // A weight only a subgraph reads (an RNN's W, scripted as a Loop's body) is the model's too.
  std::unordered_set<std::string> read_inside;
  outer_reads(g, read_inside);
  for (graph::ValueId id = 0; id < static_cast<graph::ValueId>(g.values.size()); ++id) {
    const auto& v = g.value(id);
    if (v.initializer && (!v.consumers.empty() || read_inside.count(v.name)))
      weights += value_bytes(g, id, options);
    else if (v.is_graph_input || v.is_graph_output)
      io += value_bytes(g, id, options);
  }
  if (weight_bytes) *weight_bytes = weights;
  return weights + io;
}

}  // namespace ridge::cost
