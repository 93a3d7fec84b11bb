#include "exec/cuda/backward_layout.h"

#include <fmt/format.h>

#include "exec/cuda/backward.h"

namespace ridge::exec::cuda {

std::string BackwardLayout::summary(int64_t relayouts) const {
  if (!channels_last) return "";
  auto line = fmt::format(
      "channels-last training: {} backward node(s) take NHWC tensors; the last step made {} layout conversion(s) (in "
      "its backward, and of weights' gradients to NCHW)",
      nhwc_nodes, relayouts);
  if (!nchw_backwards.empty()) {
    std::string list;
    for (const auto& [op, count] : nchw_backwards)
      list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", op, count);
    line += "; backwards given NCHW copies: " + list;
  }
  return line;
}

BackwardLayout plan_backward_layout(const graph::Graph& g, const std::vector<const KernelRow*>& kernels,
                                    const BackwardPlan& plan, const StoragePlan& storage) {
  BackwardLayout layout;
  layout.channels_last = storage.channels_last;
  layout.nhwc.assign(g.nodes.size(), false);
  if (!storage.channels_last) return layout;
  auto held_nhwc = [&](graph::ValueId id) {
    return id != graph::kNoValue && storage.value_channels_last.at(static_cast<size_t>(id));
  };
  for (auto n : plan.nodes) {
    const auto& node = g.nodes[n];
    const auto* forward = kernels.at(n);
    const auto* backward = BackwardRegistry::instance().find(node.op_type);
    if (forward && backward && backward->channels_last && forward->channels_last != kNoStorage) {
      layout.nhwc[n] = true;
      ++layout.nhwc_nodes;
      continue;
    }
    bool touches = false;
    for (auto id : node.inputs) touches = touches || held_nhwc(id);
    for (auto id : node.outputs) touches = touches || held_nhwc(id);
    if (touches) ++layout.nchw_backwards[node.op_type];
  }
  return layout;
}

}  // namespace ridge::exec::cuda
