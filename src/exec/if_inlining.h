#pragma once
// An If whose condition shape inference evaluated (exporters branch on a dim: `Shape -> Gather -> Equal -> If`),
// replaced by the nodes of the branch it takes, so an executor without control flow (the GPU's) runs it as
// straight-line code, each of the branch's nodes on its own kernel and timed as a node of the model. The branch's
// values keep their names (ONNX forbids a subgraph's names to shadow its graph's, so none clash; an If whose branch
// would clash, reads a value the graph lacks or takes inputs is left as it is), its weights become the graph's, after
// the graph's own values, and its outputs are the If's. libtorch-free.
#include <map>
#include <string>
#include <vector>

#include "exec/inlined_rows.h"
#include "graph/graph.h"

namespace ridge::exec {

struct IfInlining {
  int inlined = 0;                // If nodes replaced by their branch
  std::vector<std::string> kept;  // If nodes left, each "NAME: why"
  // Per value an inlined node writes: the If of the graph as given that the node runs for (the outermost, for nested
  // Ifs; or what `outer` says the If itself ran for). Keyed by value id, which the rewrite and the graphs made from it
  // (the optimized one) keep.
  std::map<graph::ValueId, Origin> origin_of_output;

  // The If that `node` (of the rewritten graph, or one made from it) runs for; empty for the graph's own nodes.
  const Origin& inlined_from(const graph::Node& node) const;
};

// Inlines every If of `g` (not of its subgraphs) whose condition is a known one-element constant, repeatedly (a
// branch's own If with a known condition too), and relinks and sorts `g`. The values of `g` keep their ids. `outer`:
// what an earlier rewrite of `g` made its nodes run for (exec/control_flow_rewrite.h), an If's branch inheriting its
// If's.
IfInlining inline_constant_ifs(graph::Graph& g, const std::map<graph::ValueId, Origin>* outer = nullptr);

// `g` holds an If (outside subgraphs) whose condition is a known constant.
bool has_constant_if(const graph::Graph& g);

}  // namespace ridge::exec
