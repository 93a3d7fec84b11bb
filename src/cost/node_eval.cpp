#include "cost/node_eval.h"

#include <fmt/format.h>

#include <algorithm>

#include "cost/registry.h"
#include "graph/loop_condition.h"
#include "graph/shape.h"

namespace ridge::cost {
namespace {

bool all_outputs_constant(const graph::Graph& g, const graph::Node& node) {
  bool any = false;
  for (auto out : node.outputs) {
    if (out == graph::kNoValue) continue;
    if (!g.value(out).constant) return false;
    any = true;
  }
  return any;
}

// Sum of a subgraph's node costs (If: one branch; Loop: body x trips; Scan: body x length).
struct SubgraphCost {
  int64_t flops = 0, macs = 0, activation_bytes_read = 0, weight_bytes_read = 0, bytes_written = 0;
  int64_t params = 0;  // the subgraph's own weights and the enclosing graphs' it reads, each once
  bool exact = true;
};

// A graph around a subgraph being costed, and the graphs around it (null at the model's graph): where a value the
// subgraph reads from outside is defined, and the set that graph counts its parameters in.
struct Enclosing {
  const graph::Graph& g;
  std::unordered_set<graph::ValueId>& params;
  const Enclosing* outer;
};

// The nearest enclosing graph that defines `name` as a value of its own (a graph in between may read it from further
// out, as a body nested in a body reads the model's weight), with its id there; null where none does.
const Enclosing* defining(const Enclosing* e, const std::string& name, graph::ValueId& id) {
  for (; e; e = e->outer)
    if (auto found = e->g.find(name); found && !e->g.value(*found).from_outer_scope) {
      id = *found;
      return e;
    }
  return nullptr;
}

NodeEvaluation evaluate_in(const graph::Graph& g, const graph::Node& node, const CostOptions& options,
                           std::unordered_set<graph::ValueId>& counted_params, ModelCost& model_cost,
                           const Enclosing* outer);

// `g` a subgraph of `parent`: a value it reads from an enclosing graph that is a weight there (an RNN's W, scripted as
// a Loop's body, or read by a loop nested in that body) is read as a weight, and is one of the model's parameters,
// counted once in the set of the graph that holds it.
SubgraphCost cost_subgraph(const Enclosing& parent, const graph::Graph& g, const CostOptions& options,
                           ModelCost& model_cost) {
  SubgraphCost total;
  std::unordered_set<graph::ValueId> params;
  for (const auto& node : g.nodes) {
    auto eval = evaluate_in(g, node, options, params, model_cost, &parent);
    total.flops += eval.cost.flops;
    total.macs += eval.cost.macs;
    total.activation_bytes_read += eval.cost.activation_bytes_read;
    total.weight_bytes_read += eval.cost.weight_bytes_read;
    total.bytes_written += eval.cost.bytes_written;
    total.params += eval.cost.params;
    total.exact = total.exact && (eval.cost.status == NodeStatus::kCosted || eval.cost.status == NodeStatus::kFolded);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      auto id = node.inputs[i];
      if (id == graph::kNoValue || !g.value(id).from_outer_scope) continue;
      graph::ValueId outer = graph::kNoValue;
      const auto* holder = defining(&parent, g.value(id).name, outer);
      if (!holder || !is_weight_value(holder->g, outer)) continue;
      total.activation_bytes_read -= eval.input_read_bytes[i];
      total.weight_bytes_read += eval.input_read_bytes[i];
      const auto& w = holder->g.value(outer);
      if (w.initializer && graph::is_floating(w.dtype) && holder->params.insert(outer).second)
        total.params += graph::element_count(w.shape);
    }
  }
  return total;
}

void cost_control_flow(const graph::Graph& g, const graph::Node& node, const CostOptions& options, NodeEvaluation& eval,
                       std::unordered_set<graph::ValueId>& counted_params, ModelCost& model_cost,
                       const Enclosing* outer) {
  auto& c = eval.cost;
  const Enclosing here{g, counted_params, outer};
  std::vector<SubgraphCost> parts;
  for (const auto* sub : node.subgraphs()) parts.push_back(cost_subgraph(here, *sub, options, model_cost));
  // Reads and writes happen on every iteration; a weight is one parameter however often it is read.
  auto add = [&](const SubgraphCost& s, int64_t times) {
    c.flops += s.flops * times;
    c.macs += s.macs * times;
    c.activation_bytes_read += s.activation_bytes_read * times;
    c.weight_bytes_read += s.weight_bytes_read * times;
    c.bytes_written += s.bytes_written * times;
    if (!s.exact) c.status = NodeStatus::kEstimate;
  };
  for (const auto& part : parts) c.params += part.params;
  if (node.op_type == "If") {
    const auto* cond = g.value(node.inputs.at(0)).constant.get();
    if (cond && cond->size() == 1 && parts.size() == 2) {
      add(parts[cond->as_real(0) != 0 ? 0 : 1], 1);
    } else {
      auto larger = std::max_element(parts.begin(), parts.end(), [](auto& a, auto& b) { return a.flops < b.flops; });
      if (larger != parts.end()) add(*larger, 1);
      c.status = NodeStatus::kEstimate;
      c.note = "branch chosen at run time: the costlier branch is counted";
    }
  } else if (node.op_type == "Loop") {
    const auto* trips = node.input(0) != graph::kNoValue ? g.value(node.input(0)).constant.get() : nullptr;
    // Exact where it runs its trip count: a condition input absent or a known true, and a body that keeps it true (a
    // body's condition output stops the loop where it turns false, as the executors and ONNX Runtime read it).
    const auto* cond = node.input(1) != graph::kNoValue ? g.value(node.input(1)).constant.get() : nullptr;
    bool runs_its_trips = (node.input(1) == graph::kNoValue || (cond && cond->size() == 1 && cond->as_real(0) != 0)) &&
                          graph::body_keeps_going(*node.subgraphs().at(0));
    if (trips && trips->size() == 1 && runs_its_trips) {
      add(parts.at(0), trips->as_int(0));
    } else {
      add(parts.at(0), trips && trips->size() == 1 ? trips->as_int(0) : 1);
      c.status = NodeStatus::kEstimate;
      c.note = "trip count decided at run time: counted as the given maximum (or one iteration)";
    }
  } else {  // Scan: the body runs once per element of the scanned axis
    const auto& body = *node.subgraphs().at(0);
    int64_t scan_inputs = node.get_int("num_scan_inputs", 1);
    const auto& first_scan = g.value(node.inputs.at(node.inputs.size() - static_cast<size_t>(scan_inputs)));
    auto dims = graph::known_dims(first_scan.shape);
    if (body.inputs.size() + 1 == node.inputs.size()) {
      // Scan-8: a leading sequence_lens input; scan inputs are [batch, sequence, ...].
      add(parts.at(0), dims.at(0) * dims.at(1));
    } else {
      auto axes = node.get_ints("scan_input_axes", std::vector<int64_t>(static_cast<size_t>(scan_inputs), 0));
      int64_t axis = axes.at(0) < 0 ? axes[0] + static_cast<int64_t>(dims.size()) : axes[0];
      add(parts.at(0), dims.at(static_cast<size_t>(axis)));
    }
  }
}

}  // namespace

const char* status_name(NodeStatus status) {
  switch (status) {
    case NodeStatus::kCosted:
      return "ok";
    case NodeStatus::kEstimate:
      return "estimate";
    case NodeStatus::kFolded:
      return "folded";
    case NodeStatus::kUnknownOp:
      return "unknown-op";
    case NodeStatus::kUnresolved:
      return "unresolved";
  }
  return "?";
}

NodeEvaluation evaluate_node(const graph::Graph& g, const graph::Node& node, const CostOptions& options,
                             std::unordered_set<graph::ValueId>& counted_params, ModelCost& model_cost) {
  return evaluate_in(g, node, options, counted_params, model_cost, nullptr);
}

namespace {

// evaluate_node for a node of `g`, which `outer` encloses (null: `g` is the model's graph).
NodeEvaluation evaluate_in(const graph::Graph& g, const graph::Node& node, const CostOptions& options,
                           std::unordered_set<graph::ValueId>& counted_params, ModelCost& model_cost,
                           const Enclosing* outer) {
  NodeEvaluation eval;
  auto& c = eval.cost;
  c.name = node.name;
  c.op_type = node.is_default_domain() ? node.op_type : node.domain + "::" + node.op_type;
  if (!node.outputs.empty() && node.outputs[0] != graph::kNoValue && g.value(node.outputs[0]).has_shape)
    c.output_shape = graph::shape_text(g.value(node.outputs[0]));
  eval.input_read_bytes.assign(node.inputs.size(), 0);
  eval.output_bytes.assign(node.outputs.size(), 0);
  eval.input_is_parameter.assign(node.inputs.size(), false);

  if (node.unknown_op) {
    c.status = NodeStatus::kUnknownOp;
    c.note = "no cost rule for this op";
    ++model_cost.unknown_ops[c.op_type];
    return eval;
  }
  if (!node.unresolved_reason.empty()) {
    c.status = NodeStatus::kUnresolved;
    c.note = node.unresolved_reason;
    ++model_cost.unresolved_ops[c.op_type];
    return eval;
  }
  if (all_outputs_constant(g, node)) {
    c.status = NodeStatus::kFolded;
    eval.differentiable = false;
    return eval;
  }
  const auto* row = CostRegistry::instance().find(node.op_type);
  if (row && (row->traits & kControlFlow)) {
    c.family = row->family;
    cost_control_flow(g, node, options, eval, counted_params, model_cost, outer);
    if (c.status == NodeStatus::kEstimate && !outer) ++model_cost.estimated_nodes;
    eval.differentiable = false;
    return eval;
  }
  if (!row) {
    c.status = NodeStatus::kUnknownOp;
    c.note = "shape rule but no cost rule";
    ++model_cost.unknown_ops[c.op_type];
    return eval;
  }
  CostContext ctx(g, node, options);
  row->rule(ctx);
  c.family = row->family;
  c.flops = ctx.flops;
  c.macs = ctx.macs;
  if (!ctx.estimate.empty()) {
    c.status = NodeStatus::kEstimate;
    c.note = ctx.estimate;
    // The model's own nodes, as its table lists them: an estimate inside a body makes its control-flow node one.
    if (!outer) ++model_cost.estimated_nodes;
  }
  eval.fusible = (row->traits & kFusible) != 0;
  eval.differentiable = (row->traits & kNotDifferentiable) == 0;
  eval.is_view = ctx.moves_no_data;
  eval.backward_flops_data = ctx.backward_flops_data;
  eval.backward_flops_weight = ctx.backward_flops_weight;
  eval.saves_inputs = ctx.saves_inputs;
  eval.saves_output = ctx.saves_output;
  eval.saves_only_output = ctx.saves_only_output;
  eval.gradient_outputs = ctx.gradient_outputs;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    auto id = node.inputs[i];
    if (id == graph::kNoValue) continue;
    int64_t bytes = ctx.moves_no_data ? 0 : ctx.in_bytes(i);
    if (i < ctx.read_override.size() && ctx.read_override[i]) bytes = *ctx.read_override[i];
    eval.input_read_bytes[i] = bytes;
    bool weight = is_weight_value(g, id);
    (weight ? c.weight_bytes_read : c.activation_bytes_read) += bytes;
    bool excluded = i < ctx.not_parameter.size() && ctx.not_parameter[i];
    const auto& v = g.value(id);
    if (v.initializer && graph::is_floating(v.dtype) && !excluded) {
      eval.input_is_parameter[i] = true;
      if (counted_params.insert(id).second) c.params += graph::element_count(v.shape);
    }
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i] == graph::kNoValue || ctx.moves_no_data) continue;
    eval.output_bytes[i] = ctx.value_bytes(node.outputs[i]);
    if (i < ctx.write_override.size() && ctx.write_override[i]) eval.output_bytes[i] = *ctx.write_override[i];
    c.bytes_written += eval.output_bytes[i];
  }
  return eval;
}

}  // namespace

}  // namespace ridge::cost
