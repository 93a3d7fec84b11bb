#pragma once
// What a training step differentiates, worked out on the host before anything runs: which values need a
// gradient (those computed from a float weight), which nodes' backward runs (those between a weight and a
// float graph output, the loss's terms), and the op types among them that have no backward, named with
// counts before the first step rather than failing halfway through one.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace ridge::exec::cuda {

struct BackwardPlan {
  std::vector<bool> needs_grad;  // per value: a float value computed from a weight (or the weight itself)
  std::vector<size_t> nodes;     // the nodes whose backward runs, last first
  std::vector<std::pair<std::string, int>> missing;  // op types among them without a backward, with counts
  std::vector<graph::ValueId> losses;                // float graph outputs that depend on a weight
};

// The weights: float initializers of rank 1 or more (what the CPU step trains). `executes(n)`: node n runs
// (folded shape arithmetic does not); `has_backward(op)`: a backward row exists.
BackwardPlan plan_backward(const graph::Graph& g, const std::function<bool(size_t)>& executes,
                           const std::function<bool(std::string_view)>& has_backward);

}  // namespace ridge::exec::cuda
