#include "graph/graph.h"

#include <fmt/format.h>

#include <queue>

#include "util/error.h"

namespace ridge::graph {

std::string shape_text(const Value& v) {
  if (!v.has_shape) return "?";
  if (!v.is_sequence) return to_string(v.shape);
  if (!v.elements) return v.element_shape.shape ? "sequence of " + to_string(*v.element_shape.shape) : "sequence";
  if (v.elements->empty()) return "sequence[0]";
  std::string text = fmt::format("sequence[{}] of ", v.elements->size());
  if (auto common = common_shape(*v.elements); common && *common == v.elements->front() && is_fully_known(*common))
    return text + to_string(*common);
  for (size_t i = 0; i < v.elements->size(); ++i) text += (i ? "," : "") + to_string((*v.elements)[i]);
  return text;
}

const Attribute* Node::attribute(std::string_view attr_name) const {
  for (const auto& attr : attributes)
    if (attr.name == attr_name) return &attr;
  return nullptr;
}

int64_t Node::get_int(std::string_view attr_name, int64_t fallback) const {
  const auto* attr = attribute(attr_name);
  return attr ? attr->i : fallback;
}

double Node::get_float(std::string_view attr_name, double fallback) const {
  const auto* attr = attribute(attr_name);
  return attr ? attr->f : fallback;
}

std::string Node::get_string(std::string_view attr_name, const std::string& fallback) const {
  const auto* attr = attribute(attr_name);
  return attr ? attr->s : fallback;
}

std::vector<int64_t> Node::get_ints(std::string_view attr_name, std::vector<int64_t> fallback) const {
  const auto* attr = attribute(attr_name);
  return attr ? attr->ints : fallback;
}

std::vector<const Graph*> Node::subgraphs() const {
  std::vector<const Graph*> result;
  for (const auto& attr : attributes)
    for (const auto& g : attr.graphs) result.push_back(g.get());
  return result;
}

ValueId Graph::intern(const std::string& value_name) {
  auto [it, inserted] = value_by_name.try_emplace(value_name, static_cast<ValueId>(values.size()));
  if (inserted) {
    values.emplace_back();
    values.back().name = value_name;
  }
  return it->second;
}

std::optional<ValueId> Graph::find(const std::string& value_name) const {
  auto it = value_by_name.find(value_name);
  if (it == value_by_name.end()) return std::nullopt;
  return it->second;
}

void Graph::link_and_sort() {
  for (auto& v : values) {
    v.producer = -1;
    v.consumers.clear();
  }
  for (NodeId n = 0; n < static_cast<NodeId>(nodes.size()); ++n) {
    for (ValueId out : nodes[n].outputs) {
      if (out == kNoValue) continue;
      auto& v = value(out);
      if (v.producer >= 0)
        throw Error(fmt::format("value '{}' is produced by two nodes ('{}' and '{}')", v.name, nodes[v.producer].name,
                                nodes[n].name));
      if (v.initializer || v.is_graph_input)
        throw Error(fmt::format("node '{}' writes '{}', which is a graph input or initializer", nodes[n].name, v.name));
      v.producer = n;
    }
  }
  // Kahn's algorithm in linear time; a min-heap on the file position keeps file order stable.
  std::vector<int> pending(nodes.size(), 0);
  for (NodeId n = 0; n < static_cast<NodeId>(nodes.size()); ++n) {
    for (ValueId in : nodes[n].inputs) {
      if (in == kNoValue) continue;
      auto& v = value(in);
      v.consumers.push_back(n);
      if (v.producer >= 0) ++pending[n];
    }
  }
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (NodeId n = 0; n < static_cast<NodeId>(nodes.size()); ++n)
    if (pending[n] == 0) ready.push(n);
  std::vector<NodeId> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    NodeId n = ready.top();
    ready.pop();
    order.push_back(n);
    for (ValueId out : nodes[n].outputs) {
      if (out == kNoValue) continue;
      for (NodeId c : value(out).consumers)
        if (--pending[c] == 0) ready.push(c);
    }
  }
  if (order.size() != nodes.size()) {
    for (NodeId n = 0; n < static_cast<NodeId>(nodes.size()); ++n)
      if (pending[n] > 0)
        throw Error(
            fmt::format("cyclic graph: node '{}' ({}) is on or behind a cycle", nodes[n].name, nodes[n].op_type));
  }
  bool sorted = true;
  for (size_t i = 0; i < order.size(); ++i) sorted = sorted && order[i] == static_cast<NodeId>(i);
  if (sorted) return;
  std::vector<Node> reordered;
  reordered.reserve(nodes.size());
  for (NodeId n : order) reordered.push_back(std::move(nodes[n]));
  nodes = std::move(reordered);
  link_and_sort();
}

int64_t Model::default_opset() const {
  auto it = opsets.find("");
  if (it != opsets.end()) return it->second;
  it = opsets.find("ai.onnx");
  return it != opsets.end() ? it->second : 0;
}

}  // namespace ridge::graph
