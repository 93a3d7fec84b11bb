#include "exec/aten/passes/optimize.h"

#include <fmt/format.h>

#include <set>

#include "exec/aten/interpreter.h"
#include "exec/aten/kernels/kernel.h"
#include "exec/aten/onednn/onednn.h"
#include "exec/aten/passes/activation_fusion.h"
#include "exec/op_table.h"

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

bool deterministic(const graph::Node& node) {
  const auto* row = find_op(node.op_type);
  return row && !row->has(kRandom);
}

// Names read from enclosing scopes by any subgraph: those values must keep their names and nodes.
void outer_names(const graph::Graph& g, std::set<std::string>& names) {
  for (const auto& node : g.nodes)
    for (const auto* sub : node.subgraphs()) {
      for (const auto& v : sub->values)
        if (v.from_outer_scope) names.insert(v.name);
      outer_names(*sub, names);
    }
}

void replace_uses(graph::Graph& g, ValueId from, ValueId to) {
  for (auto& node : g.nodes)
    for (auto& in : node.inputs)
      if (in == from) in = to;
}

}  // namespace

OptimizeReport optimize(Interpreter& interp) {
  OptimizeReport report;
  auto g = std::make_unique<graph::Graph>(interp.graph());
  auto constants = interp.constants(interp.graph());
  std::set<std::string> pinned;
  outer_names(*g, pinned);
  for (auto id : g->outputs) pinned.insert(g->value(id).name);
  std::vector<bool> removed(g->nodes.size(), false);
  const auto& registry = KernelRegistry::instance();

  // 1. Constant folding, in topological order so chains fold completely.
  for (size_t n = 0; n < g->nodes.size(); ++n) {
    auto& node = g->nodes[n];
    if (!node.subgraphs().empty() || !node.is_default_domain() || !deterministic(node)) continue;
    const auto* row = registry.find(node.op_type);
    if (!row) continue;
    bool shape_query = node.op_type == "Shape" || node.op_type == "Size";
    KernelContext ctx{node, *g, interp, interp.opset(), {}, {}, {}};
    bool foldable = true;
    for (auto id : node.inputs) {
      if (id == graph::kNoValue) {
        ctx.inputs.emplace_back();
        continue;
      }
      const auto& v = g->value(id);
      if (constants[static_cast<size_t>(id)].defined()) {
        ctx.inputs.push_back(constants[static_cast<size_t>(id)]);
      } else if (shape_query && v.has_shape && graph::is_fully_known(v.shape)) {
        // Only the shape is read: a storage-less tensor carries it.
        ctx.inputs.push_back(at::empty(graph::known_dims(v.shape), at::TensorOptions().device(at::kMeta)));
      } else {
        foldable = false;
        break;
      }
    }
    if (!foldable) continue;
    ctx.outputs.resize(node.outputs.size());
    row->kernel(ctx);
    for (size_t o = 0; o < node.outputs.size(); ++o)
      if (node.outputs[o] != graph::kNoValue) constants[static_cast<size_t>(node.outputs[o])] = ctx.outputs[o];
    removed[n] = true;
    ++report.folded_constants;
  }
  auto is_const = [&](ValueId id) { return id != graph::kNoValue && constants[static_cast<size_t>(id)].defined(); };
  auto consumers = [&](ValueId id) {
    std::vector<size_t> users;
    for (size_t n = 0; n < g->nodes.size(); ++n)
      if (!removed[n])
        for (auto in : g->nodes[n].inputs)
          if (in == id) {
            users.push_back(n);
            break;
          }
    return users;
  };

  // 2. Conv + BatchNormalization -> Conv with scaled weights and shifted bias.
  for (size_t n = 0; n < g->nodes.size(); ++n) {
    auto& conv = g->nodes[n];
    if (removed[n] || conv.op_type != "Conv" || !is_const(conv.input(1)) ||
        (conv.input(2) != graph::kNoValue && !is_const(conv.input(2))))
      continue;
    ValueId out = conv.outputs[0];
    if (pinned.count(g->value(out).name)) continue;
    auto users = consumers(out);
    if (users.size() != 1) continue;
    auto& bn = g->nodes[users[0]];
    if (bn.op_type != "BatchNormalization" || bn.input(0) != out || bn.get_int("training_mode", 0)) continue;
    bool constant_stats = true;
    for (size_t i = 1; i <= 4; ++i) constant_stats = constant_stats && is_const(bn.input(i));
    if (!constant_stats) continue;
    auto at_ = [&](ValueId id) { return constants[static_cast<size_t>(id)]; };
    auto w = at_(conv.input(1));
    auto inv = at_(bn.input(1)) / at::sqrt(at_(bn.input(4)) + bn.get_float("epsilon", 1e-5));
    std::vector<int64_t> shape(static_cast<size_t>(w.dim()), 1);
    shape[0] = -1;
    auto new_w = (w * inv.view(shape)).contiguous();
    auto old_b = conv.input(2) != graph::kNoValue ? at_(conv.input(2)) : at::zeros({w.size(0)}, w.options());
    auto new_b = (old_b - at_(bn.input(3))) * inv + at_(bn.input(2));
    ValueId w_id = g->intern(conv.name + "/folded_weight"), b_id = g->intern(conv.name + "/folded_bias");
    constants.resize(g->values.size());
    constants[static_cast<size_t>(w_id)] = new_w;
    constants[static_cast<size_t>(b_id)] = new_b;
    g->value(w_id).dtype = g->value(b_id).dtype = g->value(conv.input(1)).dtype;
    conv.inputs.resize(3);
    conv.inputs[1] = w_id;
    conv.inputs[2] = b_id;
    conv.outputs[0] = bn.outputs[0];
    removed[users[0]] = true;
    ++report.folded_batchnorms;
  }

  // 2b. MatMul with a constant weight + Add of a constant bias -> one fully connected layer (the
  // MatMul kernel takes the bias as a third input in optimized graphs).
  for (size_t n = 0; n < g->nodes.size(); ++n) {
    auto& mm = g->nodes[n];
    if (removed[n] || mm.op_type != "MatMul" || mm.inputs.size() != 2 || !is_const(mm.input(1))) continue;
    const auto& w = constants[static_cast<size_t>(mm.input(1))];
    ValueId out = mm.outputs[0];
    if (w.dim() != 2 || pinned.count(g->value(out).name)) continue;
    auto users = consumers(out);
    if (users.size() != 1) continue;
    auto& add = g->nodes[users[0]];
    if (add.op_type != "Add" || add.inputs.size() != 2) continue;
    ValueId bias = add.input(0) == out ? add.input(1) : add.input(0);
    if (!is_const(bias)) continue;
    const auto& b = constants[static_cast<size_t>(bias)];
    if (b.dim() != 1 || b.size(0) != w.size(1) || b.scalar_type() != w.scalar_type()) continue;
    mm.inputs.push_back(bias);
    mm.outputs[0] = add.outputs[0];
    removed[users[0]] = true;
    ++report.fused_biases;
  }

  // 3. No-ops.
  for (size_t n = 0; n < g->nodes.size(); ++n) {
    auto& node = g->nodes[n];
    if (removed[n] || node.inputs.empty() || node.outputs.empty()) continue;
    bool noop = node.op_type == "Identity" ||
                (node.op_type == "Dropout" &&
                 (node.outputs.size() < 2 || node.outputs[1] == graph::kNoValue || consumers(node.outputs[1]).empty()));
    if (node.op_type == "Cast" && node.input(0) != graph::kNoValue)
      noop = g->value(node.input(0)).dtype == static_cast<graph::DType>(node.get_int("to", 0));
    if (!noop || pinned.count(g->value(node.outputs[0]).name)) continue;
    replace_uses(*g, node.outputs[0], node.input(0));
    removed[n] = true;
    ++report.removed_noops;
  }

  // 3b. Epilogues: what alone reads a convolution's or fully connected layer's output joins it, and
  // oneDNN applies it as the layer's post-ops (onednn.h).
  auto only_reader = [&](ValueId value, const char* op) -> graph::Node* {
    if (pinned.count(g->value(value).name)) return nullptr;
    auto users = consumers(value);
    if (users.size() != 1 || g->nodes[users[0]].op_type != op) return nullptr;
    return &g->nodes[users[0]];
  };
  auto other_input = [](const graph::Node& node, ValueId one) {
    return node.input(0) == one ? node.input(1) : node.input(0);
  };
  auto node_index = [&](const graph::Node* node) { return static_cast<size_t>(node - g->nodes.data()); };
  auto fusable = [&](const graph::Node& layer) {
    return layer.op_type == "Conv" || ((layer.op_type == "MatMul" || layer.op_type == "Gemm") &&
                                       layer.inputs.size() >= 2 && is_const(layer.input(1)));
  };
  // The Add of a residual connection, when its other operand is computed (not a constant) and has
  // the layer output's known shape: that operand becomes the layer's input 3.
  auto fuse_residual = [&](graph::Node& layer, bool after_activation) {
    ValueId out = layer.outputs[0];
    auto* add = only_reader(out, "Add");
    if (!add) return;
    ValueId other = other_input(*add, out);
    const auto &a = g->value(out), &b = g->value(other);
    if (other == out || is_const(other) || !a.has_shape || !b.has_shape || !graph::is_fully_known(a.shape) ||
        !graph::is_fully_known(b.shape) || graph::known_dims(a.shape) != graph::known_dims(b.shape) ||
        a.dtype != b.dtype)
      return;
    layer.inputs.resize(Epilogue::kResidualInput, graph::kNoValue);
    layer.inputs.push_back(other);
    Epilogue::mark_residual(layer, after_activation);
    layer.outputs[0] = add->outputs[0];
    removed[node_index(add)] = true;
    ++report.fused_residuals;
  };
  for (size_t n = 0; n < g->nodes.size(); ++n)
    if (!removed[n] && fusable(g->nodes[n]) && !g->nodes[n].has("ridge_residual") &&
        !g->nodes[n].has("ridge_activation"))
      fuse_residual(g->nodes[n], false);
  // Then an activation: the chain of elementwise nodes that alone reads the layer's output, when it
  // computes ReLU, a clip (ReLU6), SiLU, HardSwish or either form of GELU, however the exporter
  // wrote it (activation_fusion.h).
  for (size_t n = 0; n < g->nodes.size(); ++n) {
    auto& layer = g->nodes[n];
    if (removed[n] || !fusable(layer) || layer.has("ridge_activation")) continue;
    auto found = find_fusable_activation(*g, layer.outputs[0], removed, constants, pinned, interp);
    if (!found) continue;
    found->activation.annotate(layer);
    layer.outputs[0] = found->output;
    for (auto node : found->nodes) removed[node] = true;
    ++report.fused_activations;
  }
  // And a residual Add after the activation (YOLO's bottlenecks: Conv, SiLU, then the shortcut).
  for (size_t n = 0; n < g->nodes.size(); ++n)
    if (!removed[n] && fusable(g->nodes[n]) && !g->nodes[n].has("ridge_residual") &&
        g->nodes[n].has("ridge_activation"))
      fuse_residual(g->nodes[n], true);

  // 4. Weight packing: fp32 convolutions and fully connected layers with constant weights run on
  // oneDNN (onednn.h), which reorders each weight into its primitive's layout once, on first use.
  const auto& opts = interp.options();
  bool channels_last = opts.memory_format == MemoryFormat::kChannelsLast;
  for (size_t n = 0; n < g->nodes.size(); ++n) {
    auto& node = g->nodes[n];
    if (removed[n] || node.inputs.size() < 2 || !is_const(node.input(1))) continue;
    const auto& w = constants[static_cast<size_t>(node.input(1))];
    bool fp32 = opts.precision == Precision::kFp32 && w.scalar_type() == at::kFloat;
    bool conv = node.op_type == "Conv" && w.dim() == 4 && opts.conv_algo == ConvAlgo::kAuto;
    bool linear = (node.op_type == "MatMul" || node.op_type == "Gemm") && w.dim() == 2;
    if (fp32 && (conv || linear)) {
      ++report.prepacked;
    } else if (node.op_type == "Conv" && channels_last && w.dim() == 4) {
      constants[static_cast<size_t>(node.input(1))] = w.contiguous(at::MemoryFormat::ChannelsLast);
      ++report.prepacked;
    }
  }

  // 5. Dead nodes: nothing reads their outputs. Fused layers may now read values produced later
  // in the list (a residual), so liveness is propagated until it settles, not in one backward walk.
  std::set<ValueId> live(g->outputs.begin(), g->outputs.end());
  for (const auto& name : pinned)
    if (auto id = g->find(name)) live.insert(*id);
  std::vector<bool> used(g->nodes.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t n = g->nodes.size(); n-- > 0;) {
      if (removed[n] || used[n]) continue;
      const auto& node = g->nodes[n];
      for (auto out : node.outputs) used[n] = used[n] || (out != graph::kNoValue && live.count(out));
      if (!used[n]) continue;
      live.insert(node.inputs.begin(), node.inputs.end());
      changed = true;
    }
  }
  for (size_t n = 0; n < g->nodes.size(); ++n)
    if (!removed[n] && !used[n]) {
      removed[n] = true;
      ++report.dead;
    }

  std::vector<graph::Node> kept;
  for (size_t n = 0; n < g->nodes.size(); ++n)
    if (!removed[n]) kept.push_back(std::move(g->nodes[n]));
  g->nodes = std::move(kept);
  // Folded values are produced by no node now: they are constants of the new graph.
  g->link_and_sort();
  constants.resize(g->values.size());
  interp.replace_graph(std::move(g), std::move(constants));
  return report;
}

}  // namespace ridge::exec::aten
