#pragma once
// Whether a Loop's body keeps it going: the rule the cost model (an exact cost, or an estimate) and the GPU's unrolling
// (exec/loop_unrolling.h) share. A body's condition output stops the loop where it turns false, with or without the
// Loop's condition input (ONNX Runtime and ONNX's reference implementation read it so, and ridge's CPU executor does).
#include "graph/graph.h"

namespace ridge::graph {

// `body`'s condition output (its output 0) is true on every iteration: its condition input (input 1) itself or through
// an Identity, or a known true.
bool body_keeps_going(const Graph& body);

}  // namespace ridge::graph
