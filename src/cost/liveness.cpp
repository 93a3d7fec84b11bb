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
  // A sequence built by reference (SequenceConstruct, SequenceInsert: views) is a value of its own that holds every
  // input it was built from: they live as long as it does; its bytes are theirs (counted once, as themselves).
  auto holds_inputs = [&](size_t n) {
    const auto& node = g.nodes[n];
    return evals[n].is_view && !node.outputs.empty() && node.outputs[0] != graph::kNoValue &&
           g.value(node.outputs[0]).is_sequence;
  };
  // Views alias their input's storage: the base buffer lives as long as any alias is used.
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& node = g.nodes[n];
    if (evals[n].is_view && node.input(0) != graph::kNoValue && !holds_inputs(n))
      for (auto out : node.outputs)
        if (out != graph::kNoValue) base[static_cast<size_t>(out)] = base[static_cast<size_t>(node.input(0))];
    for (auto in : node.inputs)
      if (in != graph::kNoValue) {
        auto b = static_cast<size_t>(base[static_cast<size_t>(in)]);
        last_use[b] = std::max<int64_t>(last_use[b], static_cast<int64_t>(n));
      }
  }
  for (auto out : g.outputs) last_use[static_cast<size_t>(base[static_cast<size_t>(out)])] = kNever;
  // Backwards, so that a sequence built from another passes its own last use on down the chain.
  for (size_t n = g.nodes.size(); n-- > 0;) {
    if (!holds_inputs(n)) continue;
    auto held_until = last_use[static_cast<size_t>(base[static_cast<size_t>(g.nodes[n].outputs[0])])];
    for (auto in : g.nodes[n].inputs)
      if (in != graph::kNoValue) {
        auto& last = last_use[static_cast<size_t>(base[static_cast<size_t>(in)])];
        last = std::max(last, held_until);
      }
  }
  auto bytes_of = [&](graph::ValueId id) {
    const auto& v = g.value(id);
    if (v.initializer || v.constant || !v.has_shape) return int64_t{0};  // weights and folded constants
    if (v.is_sequence && v.producer >= 0 && holds_inputs(static_cast<size_t>(v.producer))) return int64_t{0};
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
