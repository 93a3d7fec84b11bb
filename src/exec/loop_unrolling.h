#pragma once
// A Loop or Scan whose iterations are known before the run, replaced by its iterations' nodes, so an executor without
// control flow (the GPU's) runs it as straight-line code, each body node on its own kernel, and a CUDA graph holds it.
// - Loop(M, cond, v...): M a known constant of at least 1, cond absent or a known true, and a body whose condition
//   output is its condition input (directly or through an Identity) or a known true: the loop runs M times. Each
//   iteration's iteration number is a constant of the graph; the loop-carried values of one iteration are the next
//   one's inputs; the last iteration's are the Loop's outputs (through an Identity); each scan output is its
//   iterations' values, unsqueezed and concatenated along axis 0.
// - Scan (opset 9 and later): its length is the scan inputs' dim along their axes; iteration t reads each scan input's
//   element t (Gather at a constant index, t counted from the end where the input's direction is 1), and each scan
//   output stacks its iterations' values along its axis, in reverse where its direction is 1.
// The body's values get names of their own per iteration ("LOOP/ITERATION/NAME"; its weights are the graph's, once),
// and the model's shapes are inferred again, so a value computed from the iteration number (a Slice at it) has its
// iteration's shape. Control flow in the body (an If, a nested loop) is copied with it, each iteration's copy with
// names of its own, for the next rewrite to take (exec/control_flow_rewrite.h: an If on the iteration number is known
// once the number is a constant). A loop that would become more than kMaxUnrolledNodes nodes (its nested graphs' nodes
// counted), or whose trip count or condition is computed during the run, stays as it is, saying why. libtorch-free.
#include <map>
#include <string>
#include <vector>

#include "exec/inlined_rows.h"
#include "graph/graph.h"

namespace ridge::exec {

// The most nodes one loop may become (iterations x body nodes, loops nested in it included): beyond it a loop stays (an
// executor's per-node cost would then dominate what it measures).
inline constexpr int64_t kMaxUnrolledNodes = 65536;

struct LoopUnrolling {
  int unrolled = 0;               // Loop and Scan nodes replaced by their iterations
  std::vector<std::string> kept;  // Loop and Scan nodes left, each "NAME: why"
  // Per value an unrolled node writes: the Loop or Scan of the graph as given that it runs for. Keyed by value id,
  // which the rewrite keeps for the model's own values.
  std::map<graph::ValueId, Origin> origin_of_output;

  // The Loop or Scan that `node` (of the rewritten graph) runs for; empty for the model's own nodes.
  Origin unrolled_from(const graph::Node& node) const;
  // One line for a run's notes ("" where nothing was unrolled).
  std::string summary() const;
};

// `model`'s graph holds a Loop or Scan (outside subgraphs).
bool has_loop(const graph::Graph& g);

// Unrolls every Loop and Scan of `model`'s graph (not of its subgraphs) that the rules above allow, relinks and sorts
// the graph and infers its shapes again. The model must be bound and inferred; its values keep their ids. `outer`:
// what an earlier rewrite made the graph's nodes run for (a loop copied out of an unrolled one runs for that one, and
// shares its kMaxUnrolledNodes).
LoopUnrolling unroll_loops(graph::Model& model, const std::map<graph::ValueId, Origin>* outer = nullptr);

}  // namespace ridge::exec
