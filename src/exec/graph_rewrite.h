#pragma once
// What a rewrite of a graph asks before it removes a node or reads through one (whether a value is read by one node
// alone, and by nothing outside the graph's nodes: a graph output, a subgraph's read of it by name; its dims where
// shape inference knows them all; the value of a one-element fp32 constant), and how it removes the nodes it replaced.
// The product views and the attention fusion (exec/product_views.h, exec/attention_fusion.h) rewrite alike.
// libtorch-free.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace ridge::exec {

class RewriteQueries {
 public:
  // `model_directory`: where constants stored in files of their own are read. Keeps references to both.
  RewriteQueries(const graph::Graph& g, const std::string& model_directory);

  // `id` is read by node `reader` alone, and nothing outside the graph's nodes keeps it.
  bool only_read_by(graph::ValueId id, size_t reader) const;
  // The dims of `id`, where every one is known.
  std::optional<std::vector<int64_t>> known_dims(graph::ValueId id) const;
  // The value of `id` where it is an fp32 constant of one element (damaged bytes: none; the executor reports them).
  std::optional<double> scalar(graph::ValueId id) const;

 private:
  const graph::Graph& g_;
  const std::string& directory_;
  std::set<std::string> outer_;
};

// An attribute added to a node a rewrite makes or changes: an int, ints, a float, a string.
void add_int(graph::Node& node, const std::string& name, int64_t value);
void add_ints(graph::Node& node, const std::string& name, std::vector<int64_t> ints);
void add_float(graph::Node& node, const std::string& name, double value);
void add_string(graph::Node& node, const std::string& name, std::string value);

// `name`, or where `g` holds a value of that name already, `name#2`, `name#3`, ...: a name for a value a rewrite adds.
std::string unique_name(const graph::Graph& g, const std::string& name);

// A constant of the graph (an initializer holding its values, known to shape inference too) of an integer or bool type,
// named `name` (which must be new to `g`): an axis, a split, an iteration number a rewrite gives a node.
graph::ValueId add_int_constant(graph::Graph& g, const std::string& name, graph::DType dtype, std::vector<int64_t> dims,
                                std::vector<int64_t> ints);

// Removes the nodes of `g` at these indices and relinks and sorts what is left.
void erase_nodes(graph::Graph& g, const std::set<size_t>& removed);

}  // namespace ridge::exec
