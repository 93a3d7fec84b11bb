#include "exec/if_inlining.h"

#include <fmt/format.h>

#include <utility>

#include "util/error.h"

namespace ridge::exec {

using graph::kNoValue;
using graph::ValueId;

namespace {

// The branch an If takes where shape inference evaluated its condition; null otherwise.
const graph::Graph* taken_branch(const graph::Graph& g, const graph::Node& node) {
  if (!node.is_default_domain() || node.op_type != "If" || node.input(0) == kNoValue) return nullptr;
  const auto& condition = g.value(node.input(0)).constant;
  if (!condition || condition->size() != 1) return nullptr;
  const auto* attr = node.attribute(condition->as_real(0) != 0 ? "then_branch" : "else_branch");
  return attr && attr->graphs.size() == 1 ? attr->graphs.front().get() : nullptr;
}

// Why `branch` cannot replace `node` in `g`; empty when it can.
std::string obstacle(const graph::Graph& g, const graph::Node& node, const graph::Graph& branch) {
  if (!branch.inputs.empty()) return "its branch takes inputs";
  if (branch.outputs.size() < node.outputs.size())
    return fmt::format("its branch has {} outputs for its {}", branch.outputs.size(), node.outputs.size());
  for (const auto& v : branch.values) {
    if (v.name.empty()) return "its branch has a value without a name";
    if (v.from_outer_scope) {
      if (!g.find(v.name)) return fmt::format("its branch reads '{}', which the graph does not hold", v.name);
    } else if (g.find(v.name)) {
      return fmt::format("its branch's value '{}' has the name of one of the graph's", v.name);
    }
  }
  return "";
}

// Replaces node n of `g` by `branch`'s nodes, in its place, each recorded in `result` as running for the If.
void inline_branch(graph::Graph& g, size_t n, const graph::Graph& branch, const std::map<ValueId, Origin>* outer,
                   IfInlining& result) {
  const graph::Node node = g.nodes[n];  // a copy: g.nodes is rebuilt below
  Origin origin = result.inlined_from(node);
  if (origin.empty() && outer) origin = origin_in(*outer, node);
  if (origin.empty()) origin = {node.name.empty() ? node.op_type : node.name, "If"};
  auto record = [&](const graph::Node& inlined) {
    for (auto id : inlined.outputs)
      if (id != kNoValue) result.origin_of_output[id] = origin;
  };
  std::vector<ValueId> map(branch.values.size(), kNoValue);
  // A branch output its own nodes compute becomes the If's output (each once); any other (a value of the graph, a
  // weight, one returned twice) is copied into it by an Identity.
  std::vector<std::pair<size_t, ValueId>> copies;  // (branch value, the If's output)
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    auto out = node.outputs[k];
    if (out == kNoValue) continue;
    auto b = static_cast<size_t>(branch.outputs[k]);
    const auto& v = branch.values[b];
    if (v.producer >= 0 && !v.from_outer_scope && map[b] == kNoValue)
      map[b] = out;
    else
      copies.emplace_back(b, out);
  }
  for (size_t i = 0; i < branch.values.size(); ++i) {
    if (map[i] != kNoValue) continue;
    const auto& v = branch.values[i];
    if (v.from_outer_scope) {
      map[i] = *g.find(v.name);
      continue;
    }
    auto id = g.intern(v.name);
    auto& copy = g.value(id);
    copy.dtype = v.dtype;
    copy.shape = v.shape;
    copy.has_shape = v.has_shape;
    copy.initializer = v.initializer;
    copy.constant = v.constant;
    map[i] = id;
  }
  auto mapped = [&](std::vector<ValueId> ids) {
    for (auto& id : ids)
      if (id != kNoValue) id = map[static_cast<size_t>(id)];
    return ids;
  };
  std::vector<graph::Node> nodes(std::make_move_iterator(g.nodes.begin()),
                                 std::make_move_iterator(g.nodes.begin() + static_cast<std::ptrdiff_t>(n)));
  for (const auto& inner : branch.nodes) {
    graph::Node copy = inner;
    copy.inputs = mapped(inner.inputs);
    copy.outputs = mapped(inner.outputs);
    record(copy);
    nodes.push_back(std::move(copy));
  }
  for (const auto& [b, out] : copies) {
    graph::Node identity;
    identity.name = fmt::format("{}/{}", node.name, g.value(out).name);
    identity.op_type = "Identity";
    identity.inputs = {map[b]};
    identity.outputs = {out};
    record(identity);
    nodes.push_back(std::move(identity));
  }
  for (size_t i = n + 1; i < g.nodes.size(); ++i) nodes.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(nodes);
}

}  // namespace

const Origin& IfInlining::inlined_from(const graph::Node& node) const { return origin_in(origin_of_output, node); }

bool has_constant_if(const graph::Graph& g) {
  for (const auto& node : g.nodes)
    if (taken_branch(g, node)) return true;
  return false;
}

IfInlining inline_constant_ifs(graph::Graph& g, const std::map<ValueId, Origin>* outer) {
  IfInlining result;
  size_t n = 0;
  while (n < g.nodes.size()) {
    const auto* branch = taken_branch(g, g.nodes[n]);
    if (!branch) {
      ++n;
      continue;
    }
    if (auto why = obstacle(g, g.nodes[n], *branch); !why.empty()) {
      result.kept.push_back(fmt::format("{}: {}", g.nodes[n].name, why));
      ++n;
      continue;
    }
    inline_branch(g, n, *branch, outer, result);  // its first node is now node n: an If among them is looked at next
    ++result.inlined;
  }
  if (result.inlined) g.link_and_sort();
  return result;
}

}  // namespace ridge::exec
