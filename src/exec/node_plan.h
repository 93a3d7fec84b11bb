#pragma once
// What an executor does with each node of a graph, decided once before the first run and by one rule for every
// backend: whether the node runs (shape arithmetic whose every output shape inference already evaluated is folded
// into constants by a backend that folds), and which values it releases after it runs (an activation after its
// last reader, a subgraph's reads of enclosing values counted as its node's; graph outputs, initializers, folded
// values and values of enclosing graphs are kept). libtorch-free: the CPU and the GPU executors both build it.
#include <set>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace ridge::exec {

struct NodePlan {
  std::vector<bool> runs;                                  // per node
  std::vector<std::vector<graph::ValueId>> release_after;  // per node: values nothing later reads
  bool executes(size_t node) const { return runs[node]; }
};

// Every output of `node` is a value shape inference evaluated (Shape, and arithmetic on shapes).
bool is_folded_arithmetic(const graph::Graph& g, const graph::Node& node);

// The names of `g`'s values its subgraphs (and those nested in them) read from an enclosing scope: values a rewrite
// must keep.
std::set<std::string> subgraph_outer_reads(const graph::Graph& g);

// `fold_constants`: folded arithmetic does not run (its values are uploaded once as constants). `weights_change`: a
// training step updates the weights between runs, so a node computing a float value from one runs even where shape
// inference evaluated it (PyTorch's LSTM export slices its biases: folded, they would keep their first values and the
// backward would not reach them).
NodePlan plan_nodes(const graph::Graph& g, bool fold_constants, bool weights_change = false);

}  // namespace ridge::exec
