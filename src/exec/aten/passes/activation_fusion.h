#pragma once
// Which activation function a chain of elementwise nodes computes, for optimized mode to fuse it
// into the layer before it. Exporters write the same function many ways (GELU alone: erf of
// x / sqrt 2 or of x * (1 / sqrt 2), tanh of a Pow or of x * x * x, the 0.5 first or last), so
// the chain is not matched against fixed node patterns: ridge evaluates it with its own kernels
// on probe values and compares the result with each function oneDNN can fuse.
#include <ATen/ATen.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "exec/aten/onednn/onednn.h"
#include "graph/graph.h"

namespace ridge::exec::aten {

class Interpreter;

struct FusableActivation {
  Activation activation;
  std::vector<size_t> nodes;  // the chain's nodes (indices into the graph's node list)
  graph::ValueId output = graph::kNoValue;
};

// The largest chain of elementwise nodes (with scalar constants as their other operands) that
// alone reads `value`, when exactly one of its values is read outside it (or is pinned) and the
// chain computes a function Activation names. Nodes marked in `removed` are ignored.
std::optional<FusableActivation> find_fusable_activation(const graph::Graph& g, graph::ValueId value,
                                                         const std::vector<bool>& removed,
                                                         const std::vector<at::Tensor>& constants,
                                                         const std::set<std::string>& pinned, Interpreter& interpreter);

}  // namespace ridge::exec::aten
