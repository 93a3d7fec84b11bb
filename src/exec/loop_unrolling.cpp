#include "exec/loop_unrolling.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "exec/graph_rewrite.h"
#include "graph/loop_condition.h"
#include "onnx/tensor_decode.h"
#include "shape/infer.h"

namespace ridge::exec {

using graph::kNoValue;
using graph::ValueId;

namespace {

const graph::Graph* body_of(const graph::Node& node) {
  const auto* attr = node.attribute("body");
  return attr && attr->graphs.size() == 1 ? attr->graphs.front().get() : nullptr;
}

bool is_loop(const graph::Node& node) {
  return node.is_default_domain() && (node.op_type == "Loop" || node.op_type == "Scan");
}

// A one-element value known before the run: a constant shape inference evaluated, or an initializer (decoded here
// where inference did not read it: a Loop whose body it could not infer never read its trip count).
std::optional<double> known_scalar(const graph::Graph& g, ValueId id, const std::string& directory) {
  if (id == kNoValue) return std::nullopt;
  const auto& v = g.value(id);
  auto c = v.constant;
  if (!c && v.initializer) c = onnx::decode_constant(*v.initializer, directory, 1);
  if (!c || c->size() != 1) return std::nullopt;
  return c->as_real(0);
}

// Why `sub` (a loop's body, or a graph nested in it) cannot be copied into `g` iteration by iteration; empty when it
// can. `enclosing`: the names of the values the graphs between `g` and `sub` define, which `sub` may read too.
std::string body_obstacle(const graph::Graph& g, const graph::Graph& sub, std::set<std::string> enclosing = {}) {
  for (const auto& v : sub.values) {
    if (v.name.empty()) return "its body has a value without a name";
    if (v.from_outer_scope && !enclosing.count(v.name) && !g.find(v.name))
      return fmt::format("its body reads '{}', which the graph does not hold", v.name);
  }
  for (const auto& v : sub.values)
    if (!v.from_outer_scope) enclosing.insert(v.name);
  for (const auto& n : sub.nodes)
    for (const auto* nested : n.subgraphs())
      if (auto why = body_obstacle(g, *nested, enclosing); !why.empty()) return why;
  return "";
}

// The nodes `body` holds, those of the graphs nested in it included: what one iteration adds at most before its own
// control flow is rewritten too.
int64_t nodes_within(const graph::Graph& body) {
  auto count = static_cast<int64_t>(body.nodes.size());
  for (const auto& n : body.nodes)
    for (const auto* nested : n.subgraphs()) count += nodes_within(*nested);
  return count;
}

// `sub` (a graph attribute of a body node: an If's branch, a nested loop's body) copied for one iteration: its own
// values and nodes named with `prefix`, so that each iteration's copy has names of its own (an If inlined or a loop
// unrolled later moves them into the graph, where no two may share one), and its reads of enclosing values named as
// `renamed` says (a body value as this iteration's copy of it), in the graphs nested in it too.
std::shared_ptr<graph::Graph> renamed_copy(const graph::Graph& sub, const std::string& prefix,
                                           std::map<std::string, std::string> renamed) {
  auto copy = std::make_shared<graph::Graph>(sub);
  for (auto& v : copy->values) {
    if (v.from_outer_scope) {
      if (auto it = renamed.find(v.name); it != renamed.end()) v.name = it->second;
      continue;
    }
    auto name = prefix + v.name;
    renamed[v.name] = name;  // for the graphs nested in this one
    v.name = std::move(name);
  }
  copy->value_by_name.clear();
  for (size_t i = 0; i < copy->values.size(); ++i) copy->value_by_name[copy->values[i].name] = static_cast<ValueId>(i);
  for (auto& node : copy->nodes) {
    node.name = prefix + (node.name.empty() ? node.op_type : node.name);
    for (auto& attr : node.attributes)
      for (auto& nested : attr.graphs) nested = renamed_copy(*nested, prefix, renamed);
  }
  return copy;
}

std::optional<int64_t> known_dim(const graph::Value& v, size_t axis) {
  if (!v.has_shape || axis >= v.shape.size() || !v.shape[axis].is_known()) return std::nullopt;
  return v.shape[axis].value;
}

// Copies of a loop's body into the graph, one per iteration, and the nodes around them.
class Unroller {
 public:
  // `origin`: what the loop runs for (itself, or what an earlier rewrite made it run for).
  Unroller(graph::Graph& g, const graph::Node& node, const graph::Graph& body, Origin origin, LoopUnrolling& result)
      : g_(g),
        body_(body),
        result_(result),
        name_(node.name.empty() ? node.op_type : node.name),
        origin_(std::move(origin)) {}

  // Iteration `i` of the body with its inputs `inputs` (graph values, one per body input): its nodes appended, its
  // outputs returned as graph values.
  std::vector<ValueId> iterate(int64_t i, const std::vector<ValueId>& inputs) {
    std::vector<ValueId> map(body_.values.size(), kNoValue);
    for (size_t k = 0; k < body_.inputs.size(); ++k) map[static_cast<size_t>(body_.inputs[k])] = inputs[k];
    for (size_t v = 0; v < body_.values.size(); ++v) {
      if (map[v] != kNoValue) continue;
      const auto& value = body_.values[v];
      if (value.from_outer_scope) {
        map[v] = *g_.find(value.name);
      } else if (value.initializer && value.producer < 0) {
        map[v] = shared(v);
      } else {
        map[v] = fresh(fmt::format("{}/{}/{}", name_, i, value.name), value);
      }
    }
    auto mapped = [&](std::vector<ValueId> ids) {
      for (auto& id : ids)
        if (id != kNoValue) id = map[static_cast<size_t>(id)];
      return ids;
    };
    // A body value read by a graph nested in the body (an If's branch, a loop's body) is read as this iteration's copy.
    std::map<std::string, std::string> renamed;
    for (size_t v = 0; v < body_.values.size(); ++v)
      if (!body_.values[v].from_outer_scope) renamed[body_.values[v].name] = g_.value(map[v]).name;
    const auto prefix = fmt::format("{}/{}/", name_, i);
    for (const auto& inner : body_.nodes) {
      graph::Node copy = inner;
      copy.name = prefix + (inner.name.empty() ? inner.op_type : inner.name);
      copy.inputs = mapped(inner.inputs);
      copy.outputs = mapped(inner.outputs);
      for (auto& attr : copy.attributes)
        for (auto& nested : attr.graphs) nested = renamed_copy(*nested, prefix, renamed);
      add(std::move(copy));
    }
    return mapped(body_.outputs);
  }

  // A graph constant (an initializer holding its values) of int64 or bool type, one per distinct value, named after
  // `label` and its values.
  ValueId constant(const std::string& label, graph::DType dtype, std::vector<int64_t> dims, std::vector<int64_t> ints) {
    auto key = fmt::format("{}:{}:{}", static_cast<int>(dtype), fmt::join(dims, "x"), fmt::join(ints, ","));
    if (auto it = constants_.find(key); it != constants_.end()) return it->second;
    auto name = unique(fmt::format("{}/{}_{}", name_, label, fmt::join(ints, "_")));
    auto id = add_int_constant(g_, name, dtype, std::move(dims), std::move(ints));
    constants_[key] = id;
    return id;
  }

  // A node of the unrolled loop: `op` reading `inputs`, writing `output`.
  ValueId emit(const std::string& op, std::vector<ValueId> inputs, const std::string& name, ValueId output,
               std::vector<graph::Attribute> attributes = {}) {
    graph::Node n;
    n.name = fmt::format("{}/{}", name_, name);
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {output};
    n.attributes = std::move(attributes);
    add(std::move(n));
    return output;
  }

  // A new value named after `name`, typed as `like` (shape inference runs again on the unrolled graph).
  ValueId fresh(const std::string& name, const graph::Value& like) {
    // Copied first: `like` may be a value of g_, whose storage interning the new value may move.
    auto dtype = like.dtype;
    auto shape = like.shape;
    auto has_shape = like.has_shape;
    auto constant = like.constant;
    auto id = g_.intern(unique(name));
    auto& v = g_.value(id);
    v.dtype = dtype;
    v.shape = std::move(shape);
    v.has_shape = has_shape;
    v.constant = std::move(constant);
    return id;
  }

  // Stacks one value per iteration along `axis` (normalized for the stacked rank): each unsqueezed at the axis, then
  // concatenated there, into `output`.
  void stack(const std::vector<ValueId>& parts, int64_t axis, ValueId output, const std::string& name, int64_t opset) {
    std::vector<ValueId> unsqueezed;
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto& part = g_.value(parts[i]);
      auto id = fresh(fmt::format("{}/{}/stacked/{}", name_, i, name), part);
      if (opset >= 13) {
        emit("Unsqueeze", {parts[i], constant("axes", graph::DType::kInt64, {1}, {axis})},
             fmt::format("{}/unsqueeze/{}", name, i), id);
      } else {
        graph::Attribute axes;
        axes.name = "axes";
        axes.kind = graph::Attribute::Kind::kInts;
        axes.ints = {axis};
        emit("Unsqueeze", {parts[i]}, fmt::format("{}/unsqueeze/{}", name, i), id, {axes});
      }
      unsqueezed.push_back(id);
    }
    graph::Attribute concat_axis;
    concat_axis.name = "axis";
    concat_axis.kind = graph::Attribute::Kind::kInt;
    concat_axis.i = axis;
    emit("Concat", unsqueezed, fmt::format("{}/concat", name), output, {concat_axis});
  }

  std::vector<graph::Node> take_nodes() { return std::move(nodes_); }
  const std::string& name() const { return name_; }

 private:
  void add(graph::Node n) {
    for (auto id : n.outputs)
      if (id != kNoValue) result_.origin_of_output[id] = origin_;
    nodes_.push_back(std::move(n));
  }

  // A body weight, the graph's once for every iteration.
  ValueId shared(size_t body_value) {
    if (auto it = weights_.find(body_value); it != weights_.end()) return it->second;
    const auto& w = body_.values[body_value];
    auto id = fresh(fmt::format("{}/{}", name_, w.name), w);
    g_.value(id).initializer = w.initializer;
    weights_[body_value] = id;
    return id;
  }

  std::string unique(const std::string& name) { return unique_name(g_, name); }

  graph::Graph& g_;
  const graph::Graph& body_;
  LoopUnrolling& result_;
  std::string name_;  // the loop's, which its values' and nodes' names start with
  Origin origin_;
  std::vector<graph::Node> nodes_;
  std::map<std::string, ValueId> constants_;
  std::map<size_t, ValueId> weights_;
};

// Loop: why it stays, or its iterations.
// What a loop may still become: the nodes the loop it runs for (an enclosing loop unrolled before it) may become, less
// those it already is.
struct Budget {
  Origin origin;
  int64_t taken = 0;  // nodes of the graph that run for `origin`, other than this loop

  std::string exceeded(int64_t iterations, int64_t nodes) const {
    if (taken + iterations * nodes <= kMaxUnrolledNodes) return "";
    return fmt::format("{} iterations of {} nodes exceed the {} nodes a loop may become{}", iterations, nodes,
                       kMaxUnrolledNodes,
                       taken ? fmt::format(" (with the {} nodes its enclosing {} '{}' already became)", taken,
                                           origin.op_type, origin.name)
                             : "");
  }
};

std::string unroll_loop(graph::Graph& g, const graph::Node& node, const graph::Graph& body, int64_t opset,
                        const std::string& directory, const Budget& budget, LoopUnrolling& result,
                        std::vector<graph::Node>& out) {
  auto trips = known_scalar(g, node.input(0), directory);
  if (!trips) return "its trip count is known only during the run";
  if (*trips < 1) return fmt::format("its trip count is {}", static_cast<int64_t>(*trips));
  if (node.input(1) != kNoValue) {
    auto cond = known_scalar(g, node.input(1), directory);
    if (!cond) return "its condition is known only during the run";
    if (*cond == 0) return "its condition is false before the first iteration";
  }
  // Anything else may stop the loop early, which only the run knows (the operator's text calls the body's condition
  // ignored in the `for` form, without a condition input; graph/loop_condition.h reads it as the implementations do).
  if (!graph::body_keeps_going(body)) return "its body computes whether to go on";
  auto m = static_cast<int64_t>(*trips);
  if (auto why = budget.exceeded(m, nodes_within(body)); !why.empty()) return why;
  if (auto why = body_obstacle(g, body); !why.empty()) return why;
  size_t carried = node.inputs.size() >= 2 ? node.inputs.size() - 2 : 0;
  if (body.inputs.size() != carried + 2 || body.outputs.size() < carried + 1)
    return "its body's inputs and outputs do not match its loop-carried values";
  size_t scans = body.outputs.size() - 1 - carried;
  if (node.outputs.size() > carried + scans) return "it has more outputs than its body";
  Unroller u(g, node, body, budget.origin, result);
  std::vector<ValueId> state(node.inputs.begin() + 2, node.inputs.end());
  std::vector<std::vector<ValueId>> scanned(scans);
  auto truth = u.constant("condition", graph::DType::kBool, {}, {1});
  for (int64_t i = 0; i < m; ++i) {
    std::vector<ValueId> inputs{u.constant("iteration", graph::DType::kInt64, {}, {i}), truth};
    inputs.insert(inputs.end(), state.begin(), state.end());
    auto outputs = u.iterate(i, inputs);
    for (size_t k = 0; k < carried; ++k) state[k] = outputs[1 + k];
    for (size_t j = 0; j < scans; ++j) scanned[j].push_back(outputs[1 + carried + j]);
  }
  for (size_t k = 0; k < carried && k < node.outputs.size(); ++k)
    if (node.outputs[k] != kNoValue) u.emit("Identity", {state[k]}, fmt::format("output/{}", k), node.outputs[k]);
  for (size_t j = 0; j < scans && carried + j < node.outputs.size(); ++j)
    if (auto id = node.outputs[carried + j]; id != kNoValue)
      u.stack(scanned[j], 0, id, fmt::format("scan/{}", j), opset);
  out = u.take_nodes();
  return "";
}

// Scan (opset 9+): why it stays, or its iterations.
std::string unroll_scan(graph::Graph& g, const graph::Node& node, const graph::Graph& body, int64_t opset,
                        const Budget& budget, LoopUnrolling& result, std::vector<graph::Node>& out) {
  if (opset < 9) return "Scan before opset 9 (a batch dim and sequence lengths) is not unrolled";
  auto scan_inputs = static_cast<size_t>(node.get_int("num_scan_inputs", 0));
  if (scan_inputs == 0 || scan_inputs > node.inputs.size()) return "its num_scan_inputs does not match its inputs";
  size_t states = node.inputs.size() - scan_inputs;
  if (body.inputs.size() != node.inputs.size() || body.outputs.size() < states)
    return "its body's inputs and outputs do not match its inputs";
  size_t scan_outputs = body.outputs.size() - states;
  auto in_axes = node.get_ints("scan_input_axes", std::vector<int64_t>(scan_inputs, 0));
  auto in_directions = node.get_ints("scan_input_directions", std::vector<int64_t>(scan_inputs, 0));
  auto out_axes = node.get_ints("scan_output_axes", std::vector<int64_t>(scan_outputs, 0));
  auto out_directions = node.get_ints("scan_output_directions", std::vector<int64_t>(scan_outputs, 0));
  if (in_axes.size() != scan_inputs || in_directions.size() != scan_inputs || out_axes.size() != scan_outputs ||
      out_directions.size() != scan_outputs)
    return "its scan axes or directions do not match its scan inputs and outputs";
  std::optional<int64_t> length;
  for (size_t k = 0; k < scan_inputs; ++k) {
    auto id = node.inputs[states + k];
    if (id == kNoValue) return "it omits a scan input";
    const auto& v = g.value(id);
    if (!v.has_shape) return fmt::format("its scan input '{}' has no known shape", v.name);
    auto rank = static_cast<int64_t>(v.shape.size());
    auto axis = in_axes[k] < 0 ? in_axes[k] + rank : in_axes[k];
    if (axis < 0 || axis >= rank) return fmt::format("its scan input '{}' has no axis {}", v.name, in_axes[k]);
    in_axes[k] = axis;
    auto dim = known_dim(v, static_cast<size_t>(axis));
    if (!dim) return fmt::format("its scan input '{}' has a length known only during the run", v.name);
    if (length && *length != *dim) return "its scan inputs differ in length";
    length = dim;
  }
  if (*length < 1) return "its scan inputs are empty";
  if (auto why = budget.exceeded(*length, nodes_within(body)); !why.empty()) return why;
  if (auto why = body_obstacle(g, body); !why.empty()) return why;
  Unroller u(g, node, body, budget.origin, result);
  std::vector<ValueId> state(node.inputs.begin(), node.inputs.begin() + static_cast<std::ptrdiff_t>(states));
  std::vector<std::vector<ValueId>> scanned(scan_outputs);
  for (int64_t t = 0; t < *length; ++t) {
    std::vector<ValueId> inputs = state;
    for (size_t k = 0; k < scan_inputs; ++k) {
      auto index = in_directions[k] ? *length - 1 - t : t;
      graph::Attribute axis;
      axis.name = "axis";
      axis.kind = graph::Attribute::Kind::kInt;
      axis.i = in_axes[k];
      auto element = u.fresh(fmt::format("{}/{}/element/{}", u.name(), t, k), body.value(body.inputs[states + k]));
      u.emit("Gather", {node.inputs[states + k], u.constant("index", graph::DType::kInt64, {}, {index})},
             fmt::format("{}/element/{}", t, k), element, {axis});
      inputs.push_back(element);
    }
    auto outputs = u.iterate(t, inputs);
    for (size_t k = 0; k < states; ++k) state[k] = outputs[k];
    for (size_t j = 0; j < scan_outputs; ++j) scanned[j].push_back(outputs[states + j]);
  }
  for (size_t k = 0; k < states && k < node.outputs.size(); ++k)
    if (node.outputs[k] != kNoValue) u.emit("Identity", {state[k]}, fmt::format("output/{}", k), node.outputs[k]);
  for (size_t j = 0; j < scan_outputs && states + j < node.outputs.size(); ++j) {
    auto id = node.outputs[states + j];
    if (id == kNoValue) continue;
    auto parts = scanned[j];
    if (out_directions[j]) std::reverse(parts.begin(), parts.end());
    const auto& part = g.value(parts.front());
    auto rank = static_cast<int64_t>(part.has_shape ? part.shape.size() : 0) + 1;
    auto axis = out_axes[j] < 0 ? out_axes[j] + rank : out_axes[j];
    u.stack(parts, axis, id, fmt::format("scan/{}", j), opset);
  }
  out = u.take_nodes();
  return "";
}

}  // namespace

Origin LoopUnrolling::unrolled_from(const graph::Node& node) const { return origin_in(origin_of_output, node); }

std::string LoopUnrolling::summary() const {
  if (!unrolled) return "";
  return fmt::format(
      "{} loop{} (Loop, Scan) ran as {} iterations' nodes (their count known before the run); a per-node profile "
      "times them as {}",
      unrolled, unrolled == 1 ? "" : "s", unrolled == 1 ? "its" : "their", unrolled == 1 ? "the loop" : "their loop");
}

bool has_loop(const graph::Graph& g) {
  for (const auto& node : g.nodes)
    if (is_loop(node)) return true;
  return false;
}

LoopUnrolling unroll_loops(graph::Model& model, const std::map<ValueId, Origin>* outer) {
  LoopUnrolling result;
  auto& g = model.graph;
  const auto opset = model.default_opset();
  // The nodes that already run for each control-flow node of the model as given (loops nested in an unrolled loop
  // share its budget).
  std::map<std::string, int64_t> taken;
  if (outer)
    for (const auto& node : g.nodes)
      if (const auto& o = origin_in(*outer, node); !o.empty()) ++taken[o.name];
  std::vector<graph::Node> nodes;
  bool changed = false;
  // g.nodes is rebuilt as it is read: each node moved on, or replaced by its iterations' nodes.
  auto old = std::move(g.nodes);
  g.nodes.clear();
  for (auto& node : old) {
    const auto* body = is_loop(node) ? body_of(node) : nullptr;
    if (!body) {
      nodes.push_back(std::move(node));
      continue;
    }
    Budget budget;
    if (outer) budget.origin = origin_in(*outer, node);
    const bool inherited = !budget.origin.empty();  // the loop is itself one of the nodes counted for its origin
    if (inherited)
      budget.taken = taken[budget.origin.name] - 1;
    else
      budget.origin = {node.name.empty() ? node.op_type : node.name, node.op_type};
    std::vector<graph::Node> unrolled;
    auto why = node.op_type == "Loop" ? unroll_loop(g, node, *body, opset, model.directory, budget, result, unrolled)
                                      : unroll_scan(g, node, *body, opset, budget, result, unrolled);
    if (!why.empty()) {
      result.kept.push_back(fmt::format("{}: {}", node.name, why));
      nodes.push_back(std::move(node));
      continue;
    }
    ++result.unrolled;
    changed = true;
    taken[budget.origin.name] += static_cast<int64_t>(unrolled.size()) - (inherited ? 1 : 0);
    for (auto& n : unrolled) nodes.push_back(std::move(n));
  }
  g.nodes = std::move(nodes);
  if (changed) {
    g.link_and_sort();
    shape::infer_shapes(model);
  }
  return result;
}

}  // namespace ridge::exec
