#pragma once
// The chain of enclosing graphs a subgraph can read from, and the model-wide settings rules need.
#include <string>

#include "graph/graph.h"

namespace ridge::shape {

class Scope {
 public:
  Scope(graph::Graph& g, const Scope* parent, std::string model_directory, int64_t opset)
      : graph_(g), parent_(parent), directory_(std::move(model_directory)), opset_(opset) {}

  graph::Graph& graph() const { return graph_; }
  const std::string& directory() const { return directory_; }
  int64_t opset() const { return opset_; }
  // The value called `name` in this graph or the nearest enclosing one.
  const graph::Value* lookup(const std::string& name) const;

 private:
  graph::Graph& graph_;
  const Scope* parent_;
  std::string directory_;
  int64_t opset_;
};

// Infers shapes of `g`'s nodes in order; values from outer scopes are copied in first.
// Returns the number of nodes left unresolved; unknown ops are counted into `unknown_ops`.
struct InferenceSummary;
void infer_graph(Scope& scope, InferenceSummary& summary);

}  // namespace ridge::shape
