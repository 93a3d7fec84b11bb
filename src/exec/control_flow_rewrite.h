#pragma once
// The control flow an executor without it (the GPU's) can still run, rewritten into straight-line nodes before the
// first run: an If whose condition is known before the run as its taken branch (exec/if_inlining.h), a Loop or Scan
// whose iterations are known as those iterations (exec/loop_unrolling.h), taken in turns until neither finds more, so
// that control flow nested in a branch or a body is rewritten too (an If on the iteration number inside a loop is known
// once the loop is unrolled and the number is a constant in each copy). Every rewritten node runs for a control-flow
// node of the model as given (the outermost), whose name a profile and NVTX ranges carry. libtorch-free.
#include <map>
#include <string>
#include <vector>

#include "exec/inlined_rows.h"
#include "graph/graph.h"

namespace ridge::exec {

struct ControlFlowRewrite {
  int ifs = 0;        // If nodes of the model as given that ran as their branch
  int loops = 0;      // Loop and Scan nodes of the model as given that ran as their iterations
  int sequences = 0;  // sequence ops rewritten into tensor ops or removed (exec/sequence_elimination.h)
  // Control-flow nodes left in the rewritten graph, each "NAME: why" (where a rule refused it); sequence ops left, each
  // "NAME (OP): why".
  std::vector<std::string> kept_ifs, kept_loops, kept_sequences;
  // Per value a rewritten node writes: the control-flow node of the model as given that the node runs for. Keyed by
  // value id, which the rewrite keeps for the model's own values.
  std::map<graph::ValueId, Origin> origin_of_output;

  // The control-flow node `node` (of the rewritten graph, or one made from it) runs for; empty for the model's own.
  const Origin& origin(const graph::Node& node) const { return origin_in(origin_of_output, node); }
  // One line for a run's notes ("" where nothing was rewritten).
  std::string summary() const;
};

// `g` holds (outside subgraphs) an If whose condition is known, a Loop or Scan, or a sequence op: what
// rewrite_control_flow may take.
bool has_rewritable_control_flow(const graph::Graph& g);

// Rewrites `model`'s control flow as above, in turns (each turn inlines the Ifs it can, then unrolls the loops it can
// and infers the shapes again) until a turn changes nothing; then the sequences the straight-line graph builds of known
// values become the tensor ops that read them (exec/sequence_elimination.h: a loop collecting a list). The model must
// be bound and inferred; its values keep their ids.
ControlFlowRewrite rewrite_control_flow(graph::Model& model);

}  // namespace ridge::exec
