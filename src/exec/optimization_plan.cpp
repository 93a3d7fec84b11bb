#include "exec/optimization_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include "exec/node_plan.h"
#include "exec/op_table.h"
#include "onnx/tensor_decode.h"
#include "util/error.h"

namespace ridge::exec {

namespace {

using graph::kNoValue;
using graph::ValueId;
using Role = OptimizationPlan::Role;

// Elementwise ops an activation chain may be made of, evaluated here in double precision on probe values (see
// Planner::identify): nothing but scalars beside the chain's own values, so no broadcasting.
const std::set<std::string>& pointwise_ops() {
  static const std::set<std::string> ops{"Add",     "Sub",  "Mul",         "Div",       "Pow",  "Tanh", "Erf",
                                         "Sigmoid", "Relu", "Clip",        "Neg",       "Exp",  "Sqrt", "Max",
                                         "Min",     "Abs",  "HardSigmoid", "HardSwish", "Swish"};
  return ops;
}

// Probe values: dense over where activations bend, plus far out on both sides.
std::vector<double> probe() {
  std::vector<double> x;
  for (int i = 0; i <= 4000; ++i) x.push_back(-10.0 + 20.0 * i / 4000);
  for (double far : {-1e4, -100.0, -30.0, 30.0, 100.0, 1e4}) x.push_back(far);
  return x;
}

// One operand of a chain node on the probe: the chain's values, or a scalar constant repeated.
using Column = std::vector<double>;

class Planner {
 public:
  Planner(const graph::Graph& g, std::string directory) : g_(g), directory_(std::move(directory)) {
    size_t count = g.nodes.size();
    plan_.leader.resize(count);
    plan_.role.assign(count, Role::kLayer);
    for (size_t n = 0; n < count; ++n) plan_.leader[n] = static_cast<int>(n);
    constant_.assign(g.values.size(), false);
    for (size_t v = 0; v < g.values.size(); ++v) constant_[v] = g.values[v].initializer != nullptr;
    alias_.resize(g.values.size());
    for (size_t v = 0; v < g.values.size(); ++v) alias_[v] = static_cast<ValueId>(v);
    aliased_by_.resize(g.values.size());
    output_.assign(count, kNoValue);
    for (size_t n = 0; n < count; ++n)
      if (!g.nodes[n].outputs.empty()) output_[n] = g.nodes[n].outputs[0];
    // Names read from enclosing scopes by any subgraph: those values must keep their names and nodes.
    auto names = subgraph_outer_reads(g);
    for (auto id : g.outputs) names.insert(g.value(id).name);
    for (size_t v = 0; v < g.values.size(); ++v)
      if (names.count(g.values[v].name)) pinned_.insert(static_cast<ValueId>(v));
  }

  OptimizationPlan run() {
    fold_constants();
    fold_batchnorms();
    fuse_biases();
    remove_noops();
    // What alone reads a layer's output joins it: a residual Add, an activation, then a residual Add after the
    // activation (YOLO's bottlenecks: Conv, SiLU, then the shortcut).
    fuse_residuals(false);
    fuse_activations();
    fuse_residuals(true);
    drop_dead();
    return plan_;
  }

 private:
  const graph::Graph& g_;
  std::string directory_;  // the model's, for initializers stored in files of their own
  mutable std::map<ValueId, std::shared_ptr<graph::ConstantData>> decoded_;
  OptimizationPlan plan_;
  std::vector<bool> constant_;
  std::vector<ValueId> alias_;                    // a removed no-op's output reads as its input
  std::vector<std::vector<ValueId>> aliased_by_;  // the values that read as this one
  std::vector<ValueId> output_;                   // each live layer's current output (moves as epilogues join)
  std::set<ValueId> pinned_;

  bool alive(size_t n) const { return plan_.leader[n] == static_cast<int>(n); }
  ValueId resolve(ValueId id) const {
    while (id != kNoValue && alias_[static_cast<size_t>(id)] != id) id = alias_[static_cast<size_t>(id)];
    return id;
  }
  ValueId in(const graph::Node& node, size_t i) const { return resolve(node.input(i)); }
  bool is_const(ValueId id) const { return id != kNoValue && constant_[static_cast<size_t>(id)]; }
  bool pinned(ValueId id) const {
    if (pinned_.count(id)) return true;
    for (auto a : aliased_by_[static_cast<size_t>(id)])
      if (pinned(a)) return true;
    return false;
  }
  // The live nodes reading `id` (through removed no-ops), each once, in node order.
  std::vector<size_t> readers(ValueId id) const {
    std::set<size_t> out;
    std::vector<ValueId> values{id};
    for (size_t i = 0; i < values.size(); ++i) {
      for (auto c : g_.value(values[i]).consumers)
        if (alive(static_cast<size_t>(c))) out.insert(static_cast<size_t>(c));
      for (auto a : aliased_by_[static_cast<size_t>(values[i])]) values.push_back(a);
    }
    return {out.begin(), out.end()};
  }
  void join(size_t member, size_t layer, Role role) {
    plan_.leader[member] = static_cast<int>(layer);
    plan_.role[member] = role;
    if (!g_.nodes[member].outputs.empty()) output_[layer] = g_.nodes[member].outputs[0];
    plan_.epilogues[layer].output = output_[layer];
  }
  void remove(size_t n, Role role) {
    plan_.leader[n] = OptimizationPlan::kRemoved;
    plan_.role[n] = role;
  }

  // 1. Nodes whose inputs are all constants, and Shape/Size of tensors whose shapes are bound, in topological
  // order so chains fold completely; never a random op, nor one the executor has no kernel for.
  void fold_constants() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const auto& node = g_.nodes[n];
      if (!node.subgraphs().empty() || !node.is_default_domain()) continue;
      const auto* row = find_op(node.op_type);
      if (!row || row->has(kRandom)) continue;
      bool shape_query = node.op_type == "Shape" || node.op_type == "Size";
      bool foldable = true;
      for (auto id : node.inputs) {
        if (id == kNoValue || is_const(id)) continue;
        const auto& v = g_.value(id);
        if (shape_query && v.has_shape && graph::is_fully_known(v.shape)) continue;
        foldable = false;
      }
      if (!foldable) continue;
      for (auto out : node.outputs)
        if (out != kNoValue) constant_[static_cast<size_t>(out)] = true;
      remove(n, Role::kFolded);
    }
  }

  // 2. Conv + BatchNormalization (inference statistics) -> Conv with scaled weights and a shifted bias.
  void fold_batchnorms() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const auto& conv = g_.nodes[n];
      if (!alive(n) || conv.op_type != "Conv" || !is_const(in(conv, 1)) ||
          (conv.input(2) != kNoValue && !is_const(in(conv, 2))) || pinned(output_[n]))
        continue;
      auto users = readers(output_[n]);
      if (users.size() != 1) continue;
      const auto& bn = g_.nodes[users[0]];
      if (bn.op_type != "BatchNormalization" || in(bn, 0) != output_[n] || bn.get_int("training_mode", 0)) continue;
      bool stats = true;
      for (size_t i = 1; i <= 4; ++i) stats = stats && is_const(in(bn, i));
      if (!stats) continue;
      join(users[0], n, Role::kBatchNorm);
      plan_.epilogues[n].batchnorm = users[0];
      plan_.epilogues[n].folds_batchnorm = true;
    }
  }

  // 2b. MatMul with a constant 2-D weight + Add of a constant bias of its column count -> a fully connected layer.
  void fuse_biases() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const auto& mm = g_.nodes[n];
      if (!alive(n) || mm.op_type != "MatMul" || mm.inputs.size() != 2 || !is_const(in(mm, 1))) continue;
      const auto& w = g_.value(in(mm, 1));
      if (!w.has_shape || w.shape.size() != 2 || pinned(output_[n])) continue;
      auto users = readers(output_[n]);
      if (users.size() != 1) continue;
      const auto& add = g_.nodes[users[0]];
      if (add.op_type != "Add" || add.inputs.size() != 2) continue;
      ValueId bias = in(add, 0) == output_[n] ? in(add, 1) : in(add, 0);
      const auto& b = g_.value(bias);
      if (!is_const(bias) || !b.has_shape || b.shape.size() != 1 || b.shape[0] != w.shape[1] || b.dtype != w.dtype)
        continue;
      join(users[0], n, Role::kBias);
      plan_.epilogues[n].bias = bias;
    }
  }

  // 3. No-ops: Identity, inference Dropout (its mask unread), Cast to the same type; their readers read the input.
  void remove_noops() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const auto& node = g_.nodes[n];
      if (!alive(n) || node.inputs.empty() || node.outputs.empty()) continue;
      bool noop = node.op_type == "Identity" ||
                  (node.op_type == "Dropout" &&
                   (node.outputs.size() < 2 || node.outputs[1] == kNoValue || readers(node.outputs[1]).empty()));
      if (node.op_type == "Cast" && node.input(0) != kNoValue)
        noop = g_.value(node.input(0)).dtype == static_cast<graph::DType>(node.get_int("to", 0));
      if (!noop || pinned(node.outputs[0]) || node.input(0) == kNoValue) continue;
      remove(n, Role::kNoop);
      auto out = static_cast<size_t>(node.outputs[0]);
      alias_[out] = in(node, 0);
      aliased_by_[static_cast<size_t>(alias_[out])].push_back(node.outputs[0]);
    }
  }

  // Layers oneDNN applies post-ops to: convolutions and fully connected layers with constant weights.
  bool fusable_layer(size_t n) const {
    const auto& layer = g_.nodes[n];
    return layer.op_type == "Conv" || ((layer.op_type == "MatMul" || layer.op_type == "Gemm") &&
                                       layer.inputs.size() >= 2 && is_const(in(layer, 1)));
  }

  // 3b. The Add of a residual connection that alone reads a layer's output (before or after its activation), its
  // other operand computed (not a constant) with the output's known shape and type.
  void fuse_residuals(bool after_activation) {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      if (!alive(n) || !fusable_layer(n)) continue;
      auto found = plan_.epilogues.find(n);
      if (found != plan_.epilogues.end() && (found->second.residual != kNoValue ||
                                             (found->second.activation != FusedActivation::kNone) != after_activation))
        continue;
      if (found == plan_.epilogues.end() && after_activation) continue;
      ValueId out = output_[n];
      if (pinned(out)) continue;
      auto users = readers(out);
      if (users.size() != 1 || g_.nodes[users[0]].op_type != "Add") continue;
      const auto& add = g_.nodes[users[0]];
      ValueId other = in(add, 0) == out ? in(add, 1) : in(add, 0);
      if (other == out || other == kNoValue || is_const(other)) continue;
      const auto &a = g_.value(out), &b = g_.value(other);
      if (!a.has_shape || !b.has_shape || !graph::is_fully_known(a.shape) || !graph::is_fully_known(b.shape) ||
          graph::known_dims(a.shape) != graph::known_dims(b.shape) || a.dtype != b.dtype)
        continue;
      join(users[0], n, Role::kResidual);
      plan_.epilogues[n].residual = other;
      plan_.epilogues[n].residual_last = after_activation;
    }
  }

  // A scalar constant's value: shape inference's, or the initializer's own (shape inference decodes only what a
  // shape depends on).
  std::optional<double> scalar(ValueId id) const {
    if (!is_const(id)) return std::nullopt;
    const auto& v = g_.value(id);
    auto c = v.constant;
    if (!c && v.initializer) {
      auto cached = decoded_.find(id);
      if (cached == decoded_.end()) {
        std::shared_ptr<graph::ConstantData> data;
        try {
          data = onnx::decode_constant(*v.initializer, directory_, 1);
        } catch (const Error&) {
          // Damaged bytes: not a scalar this plan can read (the executor reports the file when it loads it).
        }
        cached = decoded_.emplace(id, std::move(data)).first;
      }
      c = cached->second;
    }
    if (!c || c->size() != 1) return std::nullopt;
    return c->as_real(0);
  }

  // 3c. The activation: the largest chain of elementwise nodes (scalar constants their other operands) over the
  // layer's output, exactly one of its values read outside it (or pinned), evaluated on probe values and compared
  // with each function a layer's epilogue computes. Exporters write one function many ways (GELU alone: erf of
  // x / sqrt 2 or of x * (1 / sqrt 2), tanh of a Pow or of x * x * x, the 0.5 first or last), so the chain is
  // recognised by what it computes, not by its nodes.
  void fuse_activations() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      if (!alive(n) || !fusable_layer(n)) continue;
      auto found = plan_.epilogues.find(n);
      if (found != plan_.epilogues.end() && found->second.activation != FusedActivation::kNone) continue;
      identify(n, output_[n]);
    }
  }

  void identify(size_t layer, ValueId value) {
    const auto& ops = pointwise_ops();
    std::set<ValueId> inside{value};
    std::vector<size_t> chain;
    std::vector<bool> in_chain(g_.nodes.size(), false);
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t n = 0; n < g_.nodes.size(); ++n) {
        const auto& node = g_.nodes[n];
        if (!alive(n) || in_chain[n] || !node.is_default_domain() || !ops.count(node.op_type) ||
            node.outputs.size() != 1 || !node.subgraphs().empty())
          continue;
        bool reads_chain = false, admissible = true;
        for (size_t i = 0; i < node.inputs.size(); ++i) {
          auto id = in(node, i);
          if (inside.count(id))
            reads_chain = true;
          else if (id != kNoValue && !scalar(id))
            admissible = false;
        }
        if (!reads_chain || !admissible) continue;
        in_chain[n] = true;
        chain.push_back(n);
        inside.insert(node.outputs[0]);
        grew = true;
      }
    }
    if (chain.empty()) return;
    std::set<ValueId> exits;
    for (auto id : inside) {
      if (pinned(id)) exits.insert(id);
      for (auto reader : readers(id))
        if (!in_chain[reader]) exits.insert(id);
    }
    if (exits.size() != 1 || *exits.begin() == value) return;
    ValueId exit = *exits.begin();
    auto x = probe();
    std::map<ValueId, Column> values{{value, x}};
    for (auto n : chain) {
      auto y = evaluate(g_.nodes[n], values, x.size());
      if (!y) return;
      values[g_.nodes[n].outputs[0]] = std::move(*y);
    }
    const auto& observed = values.at(exit);
    for (double v : observed)
      if (!std::isfinite(v)) return;
    auto lo = *std::min_element(observed.begin(), observed.end());
    auto hi = *std::max_element(observed.begin(), observed.end());
    auto& epilogue = plan_.epilogues[layer];
    for (auto kind : {FusedActivation::kRelu, FusedActivation::kClip, FusedActivation::kSilu, FusedActivation::kGeluErf,
                      FusedActivation::kGeluTanh, FusedActivation::kHardSwish}) {
      // A clip's bounds are what it gives far out.
      if (kind == FusedActivation::kClip && !(lo < hi && (lo > -1e4 || hi < 1e4))) continue;
      bool same = true;
      for (size_t i = 0; i < x.size() && same; ++i) {
        double expected = reference(kind, x[i], lo, hi);
        // fp32 rounding of differently ordered arithmetic stays far below the gaps between these functions
        // (GELU's tanh and erf forms differ by up to 5e-4).
        same = std::fabs(observed[i] - expected) <= 1e-5 + 1e-5 * std::fabs(expected);
      }
      if (!same) continue;
      for (auto c : chain) {
        plan_.leader[c] = static_cast<int>(layer);
        plan_.role[c] = Role::kActivation;
      }
      output_[layer] = exit;
      epilogue.output = exit;
      epilogue.activation = kind;
      if (kind == FusedActivation::kClip) {
        epilogue.clip_min = static_cast<float>(lo);
        epilogue.clip_max = static_cast<float>(hi);
      }
      return;
    }
    if (epilogue.output == kNoValue) plan_.epilogues.erase(layer);  // nothing joined after all
  }

  static double reference(FusedActivation kind, double x, double lo, double hi) {
    switch (kind) {
      case FusedActivation::kRelu:
        return std::max(x, 0.0);
      case FusedActivation::kClip:
        return std::clamp(x, lo, hi);
      case FusedActivation::kSilu:
        return x / (1 + std::exp(-x));
      case FusedActivation::kGeluErf:
        return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
      case FusedActivation::kGeluTanh:
        return 0.5 * x * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
      case FusedActivation::kHardSwish:
        return x * std::clamp(x + 3, 0.0, 6.0) / 6;
      case FusedActivation::kNone:
        break;
    }
    return x;
  }

  // One chain node on the probe, as ONNX defines it; none when an operand is unknown.
  std::optional<Column> evaluate(const graph::Node& node, const std::map<ValueId, Column>& values, size_t size) const {
    std::vector<std::optional<Column>> operands;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      auto id = in(node, i);
      if (id == kNoValue) {
        operands.emplace_back();
        continue;
      }
      auto v = values.find(id);
      if (v != values.end()) {
        operands.emplace_back(v->second);
      } else if (auto s = scalar(id)) {
        operands.emplace_back(Column(size, *s));
      } else {
        return std::nullopt;
      }
    }
    if (operands.empty() || !operands[0]) return std::nullopt;
    const auto& op = node.op_type;
    auto unary = [&](auto f) {
      Column y(size);
      for (size_t i = 0; i < size; ++i) y[i] = f((*operands[0])[i]);
      return y;
    };
    auto binary = [&](auto f) -> std::optional<Column> {
      if (operands.size() < 2 || !operands[1]) return std::nullopt;
      Column y(size);
      for (size_t i = 0; i < size; ++i) y[i] = f((*operands[0])[i], (*operands[1])[i]);
      return y;
    };
    if (op == "Add") return binary([](double a, double b) { return a + b; });
    if (op == "Sub") return binary([](double a, double b) { return a - b; });
    if (op == "Mul") return binary([](double a, double b) { return a * b; });
    if (op == "Div") return binary([](double a, double b) { return a / b; });
    if (op == "Pow") return binary([](double a, double b) { return std::pow(a, b); });
    if (op == "Tanh") return unary([](double a) { return std::tanh(a); });
    if (op == "Erf") return unary([](double a) { return std::erf(a); });
    if (op == "Sigmoid") return unary([](double a) { return 1 / (1 + std::exp(-a)); });
    if (op == "Relu") return unary([](double a) { return std::max(a, 0.0); });
    if (op == "Neg") return unary([](double a) { return -a; });
    if (op == "Exp") return unary([](double a) { return std::exp(a); });
    if (op == "Sqrt") return unary([](double a) { return std::sqrt(a); });
    if (op == "Abs") return unary([](double a) { return std::fabs(a); });
    if (op == "HardSwish") return unary([](double a) { return a * std::clamp(a / 6 + 0.5, 0.0, 1.0); });
    if (op == "Swish") {
      double alpha = node.get_float("alpha", 1.0);
      return unary([=](double a) { return a / (1 + std::exp(-alpha * a)); });
    }
    if (op == "HardSigmoid") {
      double alpha = node.get_float("alpha", 0.2), beta = node.get_float("beta", 0.5);
      return unary([=](double a) { return std::clamp(alpha * a + beta, 0.0, 1.0); });
    }
    if (op == "Max" || op == "Min") {
      Column y = *operands[0];
      for (size_t k = 1; k < operands.size(); ++k) {
        if (!operands[k]) return std::nullopt;
        for (size_t i = 0; i < size; ++i)
          y[i] = op == "Max" ? std::max(y[i], (*operands[k])[i]) : std::min(y[i], (*operands[k])[i]);
      }
      return y;
    }
    if (op == "Clip") {
      // Opset 6 names the bounds as attributes, opset 11 on as optional inputs.
      double lo = node.get_float("min", -std::numeric_limits<double>::infinity());
      double hi = node.get_float("max", std::numeric_limits<double>::infinity());
      if (operands.size() > 1 && operands[1]) lo = (*operands[1])[0];
      if (operands.size() > 2 && operands[2]) hi = (*operands[2])[0];
      return unary([=](double a) { return std::min(std::max(a, lo), hi); });
    }
    return std::nullopt;
  }

  // 4. Dead nodes: nothing reads their outputs. A layer now reads its residual operand, which may be produced after
  // it in the list: liveness is propagated until it settles.
  void drop_dead() {
    std::set<ValueId> live(g_.outputs.begin(), g_.outputs.end());
    live.insert(pinned_.begin(), pinned_.end());
    std::vector<bool> used(g_.nodes.size(), false);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t n = g_.nodes.size(); n-- > 0;) {
        if (!alive(n) || used[n]) continue;
        const auto& node = g_.nodes[n];
        for (auto out : node.outputs) used[n] = used[n] || (out != kNoValue && live.count(out));
        if (output_[n] != kNoValue && live.count(output_[n])) used[n] = true;
        if (!used[n]) continue;
        for (size_t i = 0; i < node.inputs.size(); ++i) live.insert(in(node, i));
        auto e = plan_.epilogues.find(n);
        if (e != plan_.epilogues.end()) {
          live.insert(e->second.bias);
          live.insert(e->second.residual);
        }
        changed = true;
      }
    }
    for (size_t n = 0; n < g_.nodes.size(); ++n)
      if (alive(n) && !used[n]) remove(n, Role::kDead);
  }
};

}  // namespace

int OptimizationPlan::executed() const {
  int count = 0;
  for (size_t n = 0; n < leader.size(); ++n) count += leader[n] == static_cast<int>(n);
  return count;
}

OptimizationPlan plan_optimization(const graph::Graph& g, const std::string& model_directory) {
  return Planner(g, model_directory).run();
}

std::string_view name(FusedActivation activation) {
  switch (activation) {
    case FusedActivation::kRelu:
      return "relu";
    case FusedActivation::kClip:
      return "clip";
    case FusedActivation::kSilu:
      return "silu";
    case FusedActivation::kGeluErf:
      return "gelu_erf";
    case FusedActivation::kGeluTanh:
      return "gelu_tanh";
    case FusedActivation::kHardSwish:
      return "hardswish";
    case FusedActivation::kNone:
      break;
  }
  return "none";
}

}  // namespace ridge::exec
