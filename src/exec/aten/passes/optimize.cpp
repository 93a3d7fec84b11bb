#include "exec/aten/passes/optimize.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "exec/aten/interpreter.h"
#include "exec/aten/kernels/kernel.h"
#include "exec/aten/onednn/onednn.h"
#include "exec/optimization_plan.h"
#include "util/error.h"

namespace ridge::exec::aten {

using graph::ValueId;

std::string OptimizeReport::summary() const {
  return fmt::format(
      "optimized: {} constant nodes folded, {} BatchNorms folded into convolutions, {} bias adds fused into matrix "
      "products, {} residual adds and {} activations fused into layers, {} no-ops removed, {} weights prepacked, {} "
      "dead nodes dropped",
      folded_constants, folded_batchnorms, fused_biases, fused_residuals, fused_activations, removed_noops, prepacked,
      dead);
}

namespace {

// The graph being rewritten: its constants by value id, the nodes removed so far, and an index of who reads each
// value. The index only grows (a node that stops reading a value is filtered out when asked), so a rewrite never
// rescans the node list.
struct Rewrite {
  Interpreter& interp;
  std::unique_ptr<graph::Graph> g;
  std::vector<at::Tensor> constants;
  std::vector<bool> removed;
  std::vector<std::vector<size_t>> readers;  // by value id
  std::map<size_t, Epilogue> fused;          // by node index: what joined the layer

  explicit Rewrite(Interpreter& interpreter)
      : interp(interpreter),
        g(std::make_unique<graph::Graph>(interpreter.graph())),
        constants(interpreter.constants(interpreter.graph())) {
    removed.assign(g->nodes.size(), false);
    for (size_t n = 0; n < g->nodes.size(); ++n)
      for (auto in : g->nodes[n].inputs) note_reader(in, n);
  }

  void note_reader(ValueId id, size_t n) {
    if (id == graph::kNoValue) return;
    if (readers.size() <= static_cast<size_t>(id)) readers.resize(static_cast<size_t>(id) + 1);
    auto& r = readers[static_cast<size_t>(id)];
    if (std::find(r.begin(), r.end(), n) == r.end()) r.push_back(n);
  }
  void set_input(size_t n, size_t i, ValueId id) {
    auto& ins = g->nodes[n].inputs;
    if (ins.size() <= i) ins.resize(i + 1, graph::kNoValue);
    ins[i] = id;
    note_reader(id, n);
  }
  void replace_uses(ValueId from, ValueId to) {
    if (from == graph::kNoValue || static_cast<size_t>(from) >= readers.size()) return;
    auto users = readers[static_cast<size_t>(from)];
    for (auto n : users)
      for (auto& in : g->nodes[n].inputs)
        if (in == from) {
          in = to;
          note_reader(to, n);
        }
  }
  bool is_const(ValueId id) const {
    return id != graph::kNoValue && static_cast<size_t>(id) < constants.size() &&
           constants[static_cast<size_t>(id)].defined();
  }
  const at::Tensor& constant(ValueId id) const { return constants[static_cast<size_t>(id)]; }
};

// 1. The nodes the plan folds, evaluated once now in topological order (chains fold completely); Shape and Size
// of a bound shape read it from a storage-less tensor.
void fold_constants(Rewrite& w, const OptimizationPlan& plan, OptimizeReport& report) {
  const auto& registry = KernelRegistry::instance();
  for (size_t n = 0; n < w.g->nodes.size(); ++n) {
    if (plan.role[n] != OptimizationPlan::Role::kFolded) continue;
    auto& node = w.g->nodes[n];
    const auto* row = registry.find(node.op_type);
    if (!row)
      throw Error(fmt::format("internal: optimized mode folds '{}' ({}) without a kernel", node.name, node.op_type));
    KernelContext ctx{node, *w.g, w.interp, w.interp.opset(), {}, {}, {}};
    for (auto id : node.inputs) {
      if (id == graph::kNoValue) {
        ctx.inputs.emplace_back();
      } else if (w.is_const(id)) {
        ctx.inputs.push_back(w.constant(id));
      } else {
        ctx.inputs.push_back(at::empty(graph::known_dims(w.g->value(id).shape), at::TensorOptions().device(at::kMeta)));
      }
    }
    ctx.outputs.resize(node.outputs.size());
    row->kernel(ctx);
    for (size_t o = 0; o < node.outputs.size(); ++o)
      if (node.outputs[o] != graph::kNoValue) w.constants[static_cast<size_t>(node.outputs[o])] = ctx.outputs[o];
    w.removed[n] = true;
    ++report.folded_constants;
  }
}

// 2. No-ops: their readers read their input.
void remove_noops(Rewrite& w, const OptimizationPlan& plan, OptimizeReport& report) {
  for (size_t n = 0; n < w.g->nodes.size(); ++n) {
    if (plan.role[n] != OptimizationPlan::Role::kNoop) continue;
    const auto& node = w.g->nodes[n];
    w.replace_uses(node.outputs[0], node.input(0));
    w.removed[n] = true;
    ++report.removed_noops;
  }
}

// 3. Conv + BatchNormalization -> Conv with scaled weights and shifted bias.
void fold_batchnorm(Rewrite& w, size_t n, size_t bn_index) {
  auto& g = *w.g;
  auto& conv = g.nodes[n];
  const auto& bn = g.nodes[bn_index];
  auto weight = w.constant(conv.input(1));
  auto inv = w.constant(bn.input(1)) / at::sqrt(w.constant(bn.input(4)) + bn.get_float("epsilon", 1e-5));
  std::vector<int64_t> shape(static_cast<size_t>(weight.dim()), 1);
  shape[0] = -1;
  auto new_w = (weight * inv.view(shape)).contiguous();
  auto old_b =
      conv.input(2) != graph::kNoValue ? w.constant(conv.input(2)) : at::zeros({weight.size(0)}, weight.options());
  auto new_b = (old_b - w.constant(bn.input(3))) * inv + w.constant(bn.input(2));
  ValueId w_id = g.intern(conv.name + "/folded_weight"), b_id = g.intern(conv.name + "/folded_bias");
  w.constants.resize(g.values.size());
  w.constants[static_cast<size_t>(w_id)] = new_w;
  w.constants[static_cast<size_t>(b_id)] = new_b;
  g.value(w_id).dtype = g.value(b_id).dtype = g.value(conv.input(1)).dtype;
  conv.inputs.resize(3);
  w.set_input(n, 1, w_id);
  w.set_input(n, 2, b_id);
}

Activation activation_of(const OptimizationPlan::Epilogue& e) {
  using K = Activation::Kind;
  switch (e.activation) {
    case FusedActivation::kRelu:
      return {K::kRelu};
    case FusedActivation::kClip:
      return {K::kClip, e.clip_min, e.clip_max};
    case FusedActivation::kSilu:
      return {K::kSilu};
    case FusedActivation::kGeluErf:
      return {K::kGeluErf};
    case FusedActivation::kGeluTanh:
      return {K::kGeluTanh};
    case FusedActivation::kHardSwish:
      return {K::kHardSwish};
    case FusedActivation::kNone:
      break;
  }
  return {};
}

// 4. What joined each layer: a folded BatchNorm (its weights), a MatMul's bias (its input 2), a residual Add (its
// input 3) and an activation (oneDNN's post-ops, in the order the graph had them); the layer now produces the last
// joined node's output.
void join_epilogues(Rewrite& w, const OptimizationPlan& plan, OptimizeReport& report) {
  for (const auto& [n, e] : plan.epilogues) {
    auto& layer = w.g->nodes[n];
    if (e.folds_batchnorm) {
      fold_batchnorm(w, n, e.batchnorm);
      ++report.folded_batchnorms;
    }
    if (e.bias != graph::kNoValue) {
      w.set_input(n, 2, e.bias);
      ++report.fused_biases;
    }
    if (e.residual != graph::kNoValue) {
      layer.inputs.resize(std::max(layer.inputs.size(), Epilogue::kResidualInput), graph::kNoValue);
      w.set_input(n, Epilogue::kResidualInput, e.residual);
      w.fused[n].residual = true;
      w.fused[n].residual_last = e.residual_last;
      ++report.fused_residuals;
    }
    if (e.activation != FusedActivation::kNone) {
      w.fused[n].activation = activation_of(e);
      ++report.fused_activations;
    }
    layer.outputs[0] = e.output;
  }
  for (size_t n = 0; n < w.g->nodes.size(); ++n) {
    auto role = plan.role[n];
    if (role == OptimizationPlan::Role::kBatchNorm || role == OptimizationPlan::Role::kBias ||
        role == OptimizationPlan::Role::kResidual || role == OptimizationPlan::Role::kActivation)
      w.removed[n] = true;
  }
}

// 4. Weight packing: fp32 convolutions and fully connected layers with constant weights run on
// oneDNN (onednn.h), which reorders each weight into its primitive's layout once, on first use.
void prepack_weights(Rewrite& w, OptimizeReport& report) {
  const auto& opts = w.interp.options();
  bool channels_last = opts.memory_format == MemoryFormat::kChannelsLast;
  for (size_t n = 0; n < w.g->nodes.size(); ++n) {
    auto& node = w.g->nodes[n];
    if (w.removed[n] || node.inputs.size() < 2 || !w.is_const(node.input(1))) continue;
    const auto& weight = w.constant(node.input(1));
    bool fp32 = opts.precision == Precision::kFp32 && weight.scalar_type() == at::kFloat;
    bool conv = node.op_type == "Conv" && weight.dim() == 4 && opts.conv_algo == ConvAlgo::kAuto;
    bool linear = (node.op_type == "MatMul" || node.op_type == "Gemm") && weight.dim() == 2;
    if (fp32 && (conv || linear)) {
      ++report.prepacked;
    } else if (node.op_type == "Conv" && channels_last && weight.dim() == 4) {
      w.constants[static_cast<size_t>(node.input(1))] = weight.contiguous(at::MemoryFormat::ChannelsLast);
      ++report.prepacked;
    }
  }
}

// 5. Dead nodes: nothing reads their outputs.
void drop_dead(Rewrite& w, const OptimizationPlan& plan, OptimizeReport& report) {
  for (size_t n = 0; n < w.g->nodes.size(); ++n)
    if (plan.role[n] == OptimizationPlan::Role::kDead) {
      w.removed[n] = true;
      ++report.dead;
    }
}

}  // namespace

OptimizeReport optimize(Interpreter& interp) {
  OptimizeReport report;
  // What to fold, remove and join is the plan's (exec/optimization_plan.h, which predictions read too); this pass
  // computes the values, the folded weights and the epilogues oneDNN runs.
  auto plan = plan_optimization(interp.graph(), interp.model().directory);
  Rewrite w(interp);
  fold_constants(w, plan, report);
  remove_noops(w, plan, report);
  join_epilogues(w, plan, report);
  prepack_weights(w, report);
  drop_dead(w, plan, report);

  std::vector<graph::Node> kept;
  std::unordered_map<ValueId, Epilogue> fusions;  // by the layer's output: node indices change below
  for (size_t n = 0; n < w.g->nodes.size(); ++n) {
    if (w.removed[n]) continue;
    auto it = w.fused.find(n);
    if (it != w.fused.end() && it->second.fused()) fusions.emplace(w.g->nodes[n].outputs[0], it->second);
    kept.push_back(std::move(w.g->nodes[n]));
  }
  w.g->nodes = std::move(kept);
  // Folded values are produced by no node now: they are constants of the new graph.
  w.g->link_and_sort();
  w.constants.resize(w.g->values.size());
  interp.replace_graph(std::move(w.g), std::move(w.constants), std::move(fusions));
  return report;
}

}  // namespace ridge::exec::aten
