#include "cost/context.h"

#include "graph/shape.h"

namespace ridge::cost {

bool is_weight_value(const graph::Graph& g, graph::ValueId id) {
  const auto& v = g.value(id);
  if (v.initializer) return true;
  if (v.producer >= 0 && g.nodes[static_cast<size_t>(v.producer)].op_type == "Constant") return true;
  return false;
}

int64_t value_bytes(const graph::Graph& g, graph::ValueId id, const CostOptions& options) {
  if (id == graph::kNoValue) return 0;
  const auto& v = g.value(id);
  if (v.is_sequence) {
    // A sequence: its elements', where each is known; none counted otherwise (its length is known only at run time).
    if (!v.has_shape || !v.elements) return 0;
    int64_t bytes = 0;
    for (const auto& e : *v.elements) {
      if (!graph::is_fully_known(e)) return 0;
      auto type = v.dtype;
      if (graph::is_floating(type) && options.activation_dtype) type = *options.activation_dtype;
      bytes = graph::checked_add(bytes, graph::dtype_bytes(type, graph::element_count(e)), "sequence bytes");
    }
    return bytes;
  }
  // Unknown, or declared with a dim nothing bound (an exporter's name for an output that inference could not reach
  // past an unresolved node, which the analysis names): no bytes are counted for it.
  if (!v.has_shape || !graph::is_fully_known(v.shape)) return 0;
  auto type = v.dtype;
  if (graph::is_floating(type)) {
    const auto& chosen = is_weight_value(g, id) ? options.weight_dtype : options.activation_dtype;
    if (chosen) type = *chosen;
  }
  return graph::dtype_bytes(type, graph::element_count(v.shape));
}

std::vector<int64_t> CostContext::in_dims(size_t i) const {
  return graph::known_dims(graph_.value(node_.input(i)).shape);
}

std::vector<int64_t> CostContext::out_dims(size_t i) const {
  return graph::known_dims(graph_.value(node_.outputs.at(i)).shape);
}

namespace {

// A tensor's elements, or a sequence's (all its tensors', where known; none counted where its length is not).
int64_t elements_of(const graph::Value& v) {
  if (!v.is_sequence) return graph::element_count(v.shape);
  int64_t count = 0;
  if (v.elements)
    for (const auto& e : *v.elements)
      if (graph::is_fully_known(e)) count = graph::checked_add(count, graph::element_count(e), "sequence elements");
  return count;
}

}  // namespace

int64_t CostContext::in_elements(size_t i) const {
  return has_input(i) ? elements_of(graph_.value(node_.input(i))) : 0;
}

int64_t CostContext::out_elements(size_t i) const {
  if (i >= node_.outputs.size() || node_.outputs[i] == graph::kNoValue) return 0;
  return elements_of(graph_.value(node_.outputs[i]));
}

bool CostContext::is_weight(size_t i) const { return has_input(i) && is_weight_value(graph_, node_.input(i)); }

void CostContext::override_read(size_t i, int64_t bytes) {
  if (read_override.size() <= i) read_override.resize(i + 1);
  read_override[i] = bytes;
}

void CostContext::override_write(size_t i, int64_t bytes) {
  if (write_override.size() <= i) write_override.resize(i + 1);
  write_override[i] = bytes;
}

void CostContext::mark_not_parameter(size_t i) {
  if (not_parameter.size() <= i) not_parameter.resize(i + 1, false);
  not_parameter[i] = true;
}

const graph::ConstantData* CostContext::in_constant(size_t i) const {
  return has_input(i) ? graph_.value(node_.input(i)).constant.get() : nullptr;
}

int64_t CostContext::value_bytes(graph::ValueId id) const { return cost::value_bytes(graph_, id, options_); }

}  // namespace ridge::cost
