#include <algorithm>

#include "cost/memory_views.h"

namespace ridge::cost {

int64_t peak_activation_bytes(const graph::Graph& g, const std::vector<NodeEvaluation>& evals,
                              const CostOptions& options) {
  const auto n_values = g.values.size();
  constexpr int64_t kNever = INT64_MAX;
  std::vector<graph::ValueId> base(n_values);
  for (size_t v = 0; v < n_values; ++v) base[v] = static_cast<graph::ValueId>(v);
  std::vector<int64_t> last_use(n_values, -1);
  // Views alias their input's storage: the base buffer lives as long as any alias is used.
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& node = g.nodes[n];
    if (evals[n].is_view && node.input(0) != graph::kNoValue)
      for (auto out : node.outputs)
        if (out != graph::kNoValue) base[static_cast<size_t>(out)] = base[static_cast<size_t>(node.input(0))];
    for (auto in : node.inputs)
      if (in != graph::kNoValue) {
        auto b = static_cast<size_t>(base[static_cast<size_t>(in)]);
        last_use[b] = std::max<int64_t>(last_use[b], static_cast<int64_t>(n));
      }
  }
  for (auto out : g.outputs) last_use[static_cast<size_t>(base[static_cast<size_t>(out)])] = kNever;
  auto bytes_of = [&](graph::ValueId id) {
    const auto& v = g.value(id);
    if (v.initializer || v.constant || !v.has_shape) return int64_t{0};  // weights and folded constants
    return value_bytes(g, id, options);
  };
  int64_t live = 0;
  for (auto in : g.inputs)
    if (last_use[static_cast<size_t>(in)] >= 0) live += bytes_of(in);
  int64_t peak = live;
  std::vector<std::vector<graph::ValueId>> frees(g.nodes.size());
  for (size_t v = 0; v < n_values; ++v)
    if (base[v] == static_cast<graph::ValueId>(v) && last_use[v] >= 0 && last_use[v] != kNever)
      frees[static_cast<size_t>(last_use[v])].push_back(static_cast<graph::ValueId>(v));
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    for (auto out : g.nodes[n].outputs)
      if (out != graph::kNoValue && base[static_cast<size_t>(out)] == out) live += bytes_of(out);
    peak = std::max(peak, live);
    for (auto v : frees[n]) live -= bytes_of(v);
  }
  return peak;
}

}  // namespace ridge::cost
