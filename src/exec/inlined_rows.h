#pragma once
// A graph whose control flow was rewritten into straight-line nodes (exec/if_inlining.h: an If as its taken branch;
// exec/loop_unrolling.h: a Loop or Scan as its iterations) is timed node by node; its profile is made the model's
// again here, so the analysis (which costs the If, Loop or Scan as one node), `compare` and `import ncu -m` see the
// model's nodes. libtorch-free.
#include <map>
#include <string>
#include <vector>

#include "exec/measurement.h"
#include "graph/graph.h"

namespace ridge::exec {

// The control-flow node of the graph as given that a node of the rewritten graph runs for; empty for its own nodes.
struct Origin {
  std::string name, op_type;
  bool empty() const { return name.empty(); }
};

// What `node` runs for by `origin_of_output` (keyed by the values rewritten nodes write); empty where none of its
// outputs is there.
const Origin& origin_in(const std::map<graph::ValueId, Origin>& origin_of_output, const graph::Node& node);

// The rows whose node ran for a control-flow node (origin_of_row[i], empty for the graph's own nodes) become one row
// named as it (its op type) at the place of the first, their times summed, as the CPU executor times it and the
// analysis costs it. Other rows stay as they are.
void fold_inlined_rows(const std::vector<Origin>& origin_of_row, std::vector<NodeTiming>& rows);

}  // namespace ridge::exec
