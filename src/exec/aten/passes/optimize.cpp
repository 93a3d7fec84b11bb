#include "exec/aten/passes/optimize.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

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

// The graph being rewritten: its constants by value id, the nodes removed so far, the names that
// must survive, and an index of who reads each value. The index only grows (a node that stops
// reading a value is filtered out when asked), so a rewrite never rescans the node list.
struct Rewrite {
  Interpreter& interp;
  std::unique_ptr<graph::Graph> g;
  std::vector<at::Tensor> constants;
  std::set<std::string> pinned;
  std::vector<bool> removed;
  std::vector<std::vector<size_t>> readers;  // by value id
  std::map<size_t, Epilogue> fused;          // by node index: what joined the layer

  explicit Rewrite(Interpreter& interpreter)
      : interp(interpreter),
        g(std::make_unique<graph::Graph>(interpreter.graph())),
        constants(interpreter.constants(interpreter.graph())) {
    outer_names(*g, pinned);
    for (auto id : g->outputs) pinned.insert(g->value(id).name);
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
  // The live nodes that read `id`, each once, in node order.
  std::vector<size_t> consumers(ValueId id) const {
    std::vector<size_t> users;
    if (id == graph::kNoValue || static_cast<size_t>(id) >= readers.size()) return users;
    for (auto n : readers[static_cast<size_t>(id)]) {
      const auto& ins = g->nodes[n].inputs;
      if (!removed[n] && std::find(ins.begin(), ins.end(), id) != ins.end()) users.push_back(n);
    }
    std::sort(users.begin(), users.end());
    return users;
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
  bool is_pinned(ValueId id) const { return pinned.count(g->value(id).name) > 0; }
  // The only live reader of `value` when it has the op type `op` and `value` is not pinned.
  graph::Node* only_reader(ValueId value, const char* op) {
    if (is_pinned(value)) return nullptr;
    auto users = consumers(value);
    if (users.size() != 1 || g->nodes[users[0]].op_type != op) return nullptr;
    return &g->nodes[users[0]];
  }
  size_t index(const graph::Node& node) const { return static_cast<size_t>(&node - g->nodes.data()); }
};

// 1. Constant folding, in topological order so chains fold completely.
void fold_constants(Rewrite& w, OptimizeReport& report) {
  const auto& registry = KernelRegistry::instance();
  for (size_t n = 0; n < w.g->nodes.size(); ++n) {
    auto& node = w.g->nodes[n];
    if (!node.subgraphs().empty() || !node.is_default_domain() || !deterministic(node)) continue;
    const auto* row = registry.find(node.op_type);
    if (!row) continue;
    bool shape_query = node.op_type == "Shape" || node.op_type == "Size";
    KernelContext ctx{node, *w.g, w.interp, w.interp.opset(), {}, {}, {}};
    bool foldable = true;
    for (auto id : node.inputs) {
      if (id == graph::kNoValue) {
        ctx.inputs.emplace_back();
        continue;
      }
      const auto& v = w.g->value(id);
      if (w.is_const(id)) {
        ctx.inputs.push_back(w.constant(id));
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
      if (node.outputs[o] != graph::kNoValue) w.constants[static_cast<size_t>(node.outputs[o])] = ctx.outputs[o];
    w.removed[n] = true;
    ++report.folded_constants;
  }
}

// 2. Conv + BatchNormalization -> Conv with scaled weights and shifted bias.
void fold_batchnorms(Rewrite& w, OptimizeReport& report) {
  auto& g = *w.g;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    auto& conv = g.nodes[n];
    if (w.removed[n] || conv.op_type != "Conv" || !w.is_const(conv.input(1)) ||
        (conv.input(2) != graph::kNoValue && !w.is_const(conv.input(2))))
      continue;
    ValueId out = conv.outputs[0];
    if (w.is_pinned(out)) continue;
    auto users = w.consumers(out);
    if (users.size() != 1) continue;
    auto& bn = g.nodes[users[0]];
    if (bn.op_type != "BatchNormalization" || bn.input(0) != out || bn.get_int("training_mode", 0)) continue;
    bool constant_stats = true;
    for (size_t i = 1; i <= 4; ++i) constant_stats = constant_stats && w.is_const(bn.input(i));
    if (!constant_stats) continue;
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
    conv.outputs[0] = bn.outputs[0];
    w.removed[users[0]] = true;
    ++report.folded_batchnorms;
  }
}

// 2b. MatMul with a constant weight + Add of a constant bias -> one fully connected layer (the
// MatMul kernel takes the bias as a third input in optimized graphs).
void fuse_biases(Rewrite& w, OptimizeReport& report) {
  auto& g = *w.g;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    auto& mm = g.nodes[n];
    if (w.removed[n] || mm.op_type != "MatMul" || mm.inputs.size() != 2 || !w.is_const(mm.input(1))) continue;
    const auto& weight = w.constant(mm.input(1));
    ValueId out = mm.outputs[0];
    if (weight.dim() != 2 || w.is_pinned(out)) continue;
    auto users = w.consumers(out);
    if (users.size() != 1) continue;
    auto& add = g.nodes[users[0]];
    if (add.op_type != "Add" || add.inputs.size() != 2) continue;
    ValueId bias = add.input(0) == out ? add.input(1) : add.input(0);
    if (!w.is_const(bias)) continue;
    const auto& b = w.constant(bias);
    if (b.dim() != 1 || b.size(0) != weight.size(1) || b.scalar_type() != weight.scalar_type()) continue;
    w.set_input(n, 2, bias);
    mm.outputs[0] = add.outputs[0];
    w.removed[users[0]] = true;
    ++report.fused_biases;
  }
}

// 3. No-ops: Identity, inference Dropout, Cast to the same type.
void remove_noops(Rewrite& w, OptimizeReport& report) {
  auto& g = *w.g;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    auto& node = g.nodes[n];
    if (w.removed[n] || node.inputs.empty() || node.outputs.empty()) continue;
    bool noop = node.op_type == "Identity" ||
                (node.op_type == "Dropout" && (node.outputs.size() < 2 || node.outputs[1] == graph::kNoValue ||
                                               w.consumers(node.outputs[1]).empty()));
    if (node.op_type == "Cast" && node.input(0) != graph::kNoValue)
      noop = g.value(node.input(0)).dtype == static_cast<graph::DType>(node.get_int("to", 0));
    if (!noop || w.is_pinned(node.outputs[0])) continue;
    w.replace_uses(node.outputs[0], node.input(0));
    w.removed[n] = true;
    ++report.removed_noops;
  }
}

// Layers oneDNN applies post-ops to: convolutions and fully connected layers with constant weights.
bool fusable_layer(const Rewrite& w, const graph::Node& layer) {
  return layer.op_type == "Conv" || ((layer.op_type == "MatMul" || layer.op_type == "Gemm") &&
                                     layer.inputs.size() >= 2 && w.is_const(layer.input(1)));
}

// 3b. The Add of a residual connection that alone reads a layer's output (before or after its
// fused activation), when its other operand is computed (not a constant) and has the layer
// output's known shape: that operand becomes the layer's input 3 (onednn.h).
void fuse_residuals(Rewrite& w, OptimizeReport& report, bool after_activation) {
  auto& g = *w.g;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    auto& layer = g.nodes[n];
    const auto& epilogue = w.fused[n];
    bool has_activation = epilogue.activation.kind != Activation::Kind::kNone;
    if (w.removed[n] || !fusable_layer(w, layer) || epilogue.residual || has_activation != after_activation) continue;
    ValueId out = layer.outputs[0];
    auto* add = w.only_reader(out, "Add");
    if (!add) continue;
    ValueId other = add->input(0) == out ? add->input(1) : add->input(0);
    const auto &a = g.value(out), &b = g.value(other);
    if (other == out || w.is_const(other) || !a.has_shape || !b.has_shape || !graph::is_fully_known(a.shape) ||
        !graph::is_fully_known(b.shape) || graph::known_dims(a.shape) != graph::known_dims(b.shape) ||
        a.dtype != b.dtype)
      continue;
    layer.inputs.resize(Epilogue::kResidualInput, graph::kNoValue);
    w.set_input(n, Epilogue::kResidualInput, other);
    w.fused[n].residual = true;
    w.fused[n].residual_last = after_activation;
    layer.outputs[0] = add->outputs[0];
    w.removed[w.index(*add)] = true;
    ++report.fused_residuals;
  }
}

// 3c. An activation: the chain of elementwise nodes that alone reads the layer's output, when it
// computes ReLU, a clip (ReLU6), SiLU, HardSwish or either form of GELU, however the exporter
// wrote it (activation_fusion.h).
void fuse_activations(Rewrite& w, OptimizeReport& report) {
  auto& g = *w.g;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    auto& layer = g.nodes[n];
    if (w.removed[n] || !fusable_layer(w, layer) || w.fused[n].activation.kind != Activation::Kind::kNone) continue;
    auto found = find_fusable_activation(g, layer.outputs[0], w.removed, w.constants, w.pinned, w.interp);
    if (!found) continue;
    w.fused[n].activation = found->activation;
    layer.outputs[0] = found->output;
    for (auto node : found->nodes) w.removed[node] = true;
    ++report.fused_activations;
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

// 5. Dead nodes: nothing reads their outputs. Fused layers may now read values produced later
// in the list (a residual), so liveness is propagated until it settles, not in one backward walk.
void drop_dead(Rewrite& w, OptimizeReport& report) {
  auto& g = *w.g;
  std::set<ValueId> live(g.outputs.begin(), g.outputs.end());
  for (const auto& name : w.pinned)
    if (auto id = g.find(name)) live.insert(*id);
  std::vector<bool> used(g.nodes.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t n = g.nodes.size(); n-- > 0;) {
      if (w.removed[n] || used[n]) continue;
      const auto& node = g.nodes[n];
      for (auto out : node.outputs) used[n] = used[n] || (out != graph::kNoValue && live.count(out));
      if (!used[n]) continue;
      live.insert(node.inputs.begin(), node.inputs.end());
      changed = true;
    }
  }
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (!w.removed[n] && !used[n]) {
      w.removed[n] = true;
      ++report.dead;
    }
}

}  // namespace

OptimizeReport optimize(Interpreter& interp) {
  OptimizeReport report;
  Rewrite w(interp);
  fold_constants(w, report);
  fold_batchnorms(w, report);
  fuse_biases(w, report);
  remove_noops(w, report);
  // What alone reads a convolution's or fully connected layer's output joins it, and oneDNN
  // applies it as the layer's post-ops: a residual Add, an activation, then a residual Add after
  // the activation (YOLO's bottlenecks: Conv, SiLU, then the shortcut).
  fuse_residuals(w, report, false);
  fuse_activations(w, report);
  fuse_residuals(w, report, true);
  prepack_weights(w, report);
  drop_dead(w, report);

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
