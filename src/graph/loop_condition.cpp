#include "graph/loop_condition.h"

namespace ridge::graph {

bool body_keeps_going(const Graph& body) {
  if (body.outputs.empty() || body.inputs.size() < 2) return false;
  auto out = body.outputs[0];
  if (const auto& c = body.value(out).constant; c && c->size() == 1) return c->as_real(0) != 0;
  if (out == body.inputs[1]) return true;
  auto producer = body.value(out).producer;
  if (producer < 0) return false;
  const auto& n = body.nodes[static_cast<size_t>(producer)];
  return n.op_type == "Identity" && n.input(0) == body.inputs[1];
}

}  // namespace ridge::graph
