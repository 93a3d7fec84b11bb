#include "calib/shape_prediction.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "util/error.h"

namespace ridge::calib {
namespace {

using graph::kNoValue;
using graph::ValueId;

// A mirror of the executor's optimized mode (exec/aten/passes/optimize.cpp), without libtorch: the
// same passes in the same order, decided from the graph alone. Where the executor evaluates a
// chain numerically (activation_fusion.h), this recognises the single-node activations and SiLU.
class Planner {
 public:
  explicit Planner(const graph::Graph& g) : g_(g) {
    plan_.leader.resize(g.nodes.size());
    for (size_t n = 0; n < g.nodes.size(); ++n) plan_.leader[n] = static_cast<int>(n);
    constant_.assign(g.values.size(), false);
    for (size_t v = 0; v < g.values.size(); ++v) constant_[v] = g.values[v].initializer != nullptr;
    output_.assign(g.nodes.size(), kNoValue);
    for (size_t n = 0; n < g.nodes.size(); ++n)
      if (!g.nodes[n].outputs.empty()) output_[n] = g.nodes[n].outputs[0];
  }

  FusionPlan run() {
    fold_constants();
    fold_batchnorms();
    fuse_biases();
    remove_noops();
    fuse_residuals(false);
    fuse_activations();
    fuse_residuals(true);
    return plan_;
  }

 private:
  const graph::Graph& g_;
  FusionPlan plan_;
  std::vector<bool> constant_;
  std::vector<ValueId> output_;  // each live layer's current output (moves as epilogues fuse)
  std::set<int> with_activation_, with_residual_;

  bool alive(size_t n) const { return plan_.leader[n] == static_cast<int>(n); }
  bool is_const(ValueId id) const { return id != kNoValue && constant_[static_cast<size_t>(id)]; }
  // The live nodes reading `id` (a node fused away reads through its layer).
  std::vector<size_t> readers(ValueId id) const {
    std::vector<size_t> out;
    for (auto c : g_.value(id).consumers)
      if (alive(static_cast<size_t>(c))) out.push_back(static_cast<size_t>(c));
    return out;
  }
  bool pinned(ValueId id) const { return g_.value(id).is_graph_output; }
  void fuse(size_t member, size_t layer) {
    plan_.leader[member] = static_cast<int>(layer);
    if (!g_.nodes[member].outputs.empty()) output_[layer] = g_.nodes[member].outputs[0];
  }

  void fold_constants() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const auto& node = g_.nodes[n];
      if (!node.subgraphs().empty() || !node.is_default_domain() || node.op_type.rfind("Random", 0) == 0) continue;
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
      plan_.leader[n] = FusionPlan::kRemoved;
    }
  }

  void fold_batchnorms() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const auto& conv = g_.nodes[n];
      if (!alive(n) || conv.op_type != "Conv" || !is_const(conv.input(1)) ||
          (conv.input(2) != kNoValue && !is_const(conv.input(2))) || pinned(output_[n]))
        continue;
      auto users = readers(output_[n]);
      if (users.size() != 1) continue;
      const auto& bn = g_.nodes[users[0]];
      if (bn.op_type != "BatchNormalization" || bn.input(0) != output_[n] || bn.get_int("training_mode", 0)) continue;
      bool stats = true;
      for (size_t i = 1; i <= 4; ++i) stats = stats && is_const(bn.input(i));
      if (stats) fuse(users[0], n);
    }
  }

  void fuse_biases() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const auto& mm = g_.nodes[n];
      if (!alive(n) || mm.op_type != "MatMul" || mm.inputs.size() != 2 || !is_const(mm.input(1))) continue;
      const auto& w = g_.value(mm.input(1));
      if (!w.has_shape || w.shape.size() != 2 || pinned(output_[n])) continue;
      auto users = readers(output_[n]);
      if (users.size() != 1) continue;
      const auto& add = g_.nodes[users[0]];
      if (add.op_type != "Add" || add.inputs.size() != 2) continue;
      ValueId bias = add.input(0) == output_[n] ? add.input(1) : add.input(0);
      const auto& b = g_.value(bias);
      if (is_const(bias) && b.has_shape && b.shape.size() == 1 && b.shape[0] == w.shape[1]) fuse(users[0], n);
    }
  }

  void remove_noops() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const auto& node = g_.nodes[n];
      if (!alive(n) || node.inputs.empty() || node.outputs.empty() || pinned(node.outputs[0])) continue;
      bool noop = node.op_type == "Identity" ||
                  (node.op_type == "Dropout" && (node.outputs.size() < 2 || node.outputs[1] == kNoValue ||
                                                 g_.value(node.outputs[1]).consumers.empty()));
      if (node.op_type == "Cast" && node.input(0) != kNoValue)
        noop = g_.value(node.input(0)).dtype == static_cast<graph::DType>(node.get_int("to", 0));
      if (noop) plan_.leader[n] = FusionPlan::kRemoved;
    }
  }

  bool fusable_layer(size_t n) const {
    const auto& layer = g_.nodes[n];
    return layer.op_type == "Conv" || ((layer.op_type == "MatMul" || layer.op_type == "Gemm") &&
                                       layer.inputs.size() >= 2 && is_const(layer.input(1)));
  }

  void fuse_residuals(bool after_activation) {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      if (!alive(n) || !fusable_layer(n) || with_residual_.count(static_cast<int>(n)) ||
          with_activation_.count(static_cast<int>(n)) != static_cast<size_t>(after_activation))
        continue;
      ValueId out = output_[n];
      auto users = readers(out);
      if (users.size() != 1 || g_.nodes[users[0]].op_type != "Add") continue;
      const auto& add = g_.nodes[users[0]];
      ValueId other = add.input(0) == out ? add.input(1) : add.input(0);
      if (other == out || other == kNoValue || is_const(other)) continue;
      const auto &a = g_.value(out), &b = g_.value(other);
      if (!a.has_shape || !b.has_shape || !graph::is_fully_known(a.shape) || !graph::is_fully_known(b.shape) ||
          graph::known_dims(a.shape) != graph::known_dims(b.shape) || a.dtype != b.dtype)
        continue;
      fuse(users[0], n);
      with_residual_.insert(static_cast<int>(n));
    }
  }

  bool scalar_const(ValueId id) const {
    if (!is_const(id)) return false;
    const auto& v = g_.value(id);
    if (!v.has_shape || !graph::is_fully_known(v.shape)) return false;
    for (auto d : graph::known_dims(v.shape))
      if (d != 1) return false;
    return true;
  }

  // The executor evaluates the elementwise chain after a layer numerically and fuses it when it
  // computes an activation oneDNN has (activation_fusion.h): exporters' GELU forms. Without running
  // it, the chain is recognised by structure: elementwise nodes over the layer's output and scalar
  // constants that alone read that output, one value leaving the chain, with an Erf or a Tanh in it and the
  // output itself multiplied in (x * Phi(x)): a Tanh alone (BERT's pooler) is no activation oneDNN fuses.
  bool fuse_gelu_chain(size_t n, ValueId out) {
    static const std::set<std::string> elementwise{"Div", "Mul", "Add", "Sub", "Erf", "Tanh", "Pow", "Sqrt"};
    std::set<ValueId> values{out};
    std::vector<size_t> chain;
    for (bool grew = true; grew;) {
      grew = false;
      for (auto v : std::vector<ValueId>(values.begin(), values.end()))
        for (auto reader : readers(v)) {
          if (std::find(chain.begin(), chain.end(), reader) != chain.end()) continue;
          const auto& node = g_.nodes[reader];
          if (!elementwise.count(node.op_type) || node.outputs.empty()) continue;
          bool inside = true;
          for (auto in : node.inputs) inside = inside && (values.count(in) || scalar_const(in));
          if (!inside) continue;
          chain.push_back(reader);
          values.insert(node.outputs[0]);
          grew = true;
        }
    }
    bool transcendental = false, times_input = false;
    for (auto c : chain) {
      const auto& node = g_.nodes[c];
      transcendental = transcendental || node.op_type == "Erf" || node.op_type == "Tanh";
      times_input = times_input || (node.op_type == "Mul" && (node.input(0) == out || node.input(1) == out));
    }
    if (!transcendental || !times_input) return false;
    std::vector<ValueId> leaving;
    for (auto v : values) {
      bool outside = pinned(v);
      for (auto reader : readers(v)) outside = outside || std::find(chain.begin(), chain.end(), reader) == chain.end();
      if (outside) leaving.push_back(v);
    }
    if (leaving.size() != 1 || leaving[0] == out) return false;
    for (auto c : chain) plan_.leader[c] = static_cast<int>(n);
    output_[n] = leaving[0];
    return true;
  }

  void fuse_activations() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      if (!alive(n) || !fusable_layer(n) || with_activation_.count(static_cast<int>(n))) continue;
      ValueId out = output_[n];
      if (pinned(out)) continue;
      auto users = readers(out);
      const std::string single = users.size() == 1 ? g_.nodes[users[0]].op_type : "";
      if (single == "Relu" || single == "Clip" || single == "HardSwish" || single == "Gelu") {
        fuse(users[0], n);
        with_activation_.insert(static_cast<int>(n));
      } else if (fuse_gelu_chain(n, out)) {
        with_activation_.insert(static_cast<int>(n));
      } else if (users.size() == 2) {  // SiLU: x * Sigmoid(x)
        size_t sig = g_.nodes[users[0]].op_type == "Sigmoid" ? users[0] : users[1];
        size_t mul = sig == users[0] ? users[1] : users[0];
        if (g_.nodes[sig].op_type != "Sigmoid" || g_.nodes[mul].op_type != "Mul") continue;
        auto sig_readers = readers(g_.nodes[sig].outputs[0]);
        if (sig_readers.size() != 1 || sig_readers[0] != mul) continue;
        fuse(sig, n);
        fuse(mul, n);
        with_activation_.insert(static_cast<int>(n));
      }
    }
  }
};

}  // namespace

int FusionPlan::executed() const {
  int count = 0;
  for (size_t n = 0; n < leader.size(); ++n) count += leader[n] == static_cast<int>(n);
  return count;
}

// The cost is not consulted yet: the executor's rewrites depend on the graph alone.
FusionPlan plan_fusion(const graph::Graph& g, const cost::ModelCost&) { return Planner(g).run(); }

FusionPlan no_fusion(const graph::Graph& g) {
  FusionPlan plan;
  for (size_t n = 0; n < g.nodes.size(); ++n) plan.leader.push_back(static_cast<int>(n));
  return plan;
}

FusionPlan gpu_plan(const graph::Graph& g) {
  FusionPlan plan = no_fusion(g);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& node = g.nodes[n];
    bool folded = !node.outputs.empty();
    for (auto id : node.outputs)
      if (id != graph::kNoValue && !g.value(id).constant) folded = false;
    if (folded) plan.leader[n] = FusionPlan::kRemoved;
  }
  return plan;
}

FusionPlan plan_for(const std::string& executor, const std::string& mode, const graph::Graph& g,
                    const cost::ModelCost& cost) {
  // PyTorch's timings are fitted over the same layers the GPU executor runs (calib/torch_timings.h).
  if (executor == "cuda" || executor == "pytorch") return gpu_plan(g);
  return mode == "optimized" ? plan_fusion(g, cost) : no_fusion(g);
}

LayerFeatures layer_features(const graph::Graph& g, const cost::ModelCost& cost, const FusionPlan& plan, int leader,
                             int threads) {
  auto l = static_cast<size_t>(leader);
  auto f = features_of(g, g.nodes[l], cost.nodes[l]);
  f.threads = threads;
  for (size_t n = 0; n < plan.leader.size(); ++n) {
    if (n == l || plan.leader[n] != leader) continue;
    const auto& member = g.nodes[n];
    const auto& c = cost.nodes[n];
    f.fused_ops += 1;
    // A folded BatchNormalization costs nothing at run time (it is in the weights); an epilogue
    // (bias, activation) is computed on the output in registers; a residual reads its operand.
    if (member.op_type != "BatchNormalization") f.flops += static_cast<double>(c.flops);
    if (member.op_type == "Add" && c.activation_bytes_read > 0)
      f.bytes += static_cast<double>(c.activation_bytes_read) / 2;
  }
  return f;
}

Ceilings ceilings_of(const hw::Roofline& r, const std::string& precision) {
  Ceilings c;
  c.precision = precision;
  auto vector = r.peak_flops.find(precision);
  if (vector == r.peak_flops.end()) throw Error(fmt::format("device '{}' has no {} ceiling", r.device_id, precision));
  c.vector_flops = vector->second.value;
  auto gemm = r.peak_flops.find(precision + "_gemm");
  c.matrix_flops = gemm != r.peak_flops.end() ? gemm->second.value : c.vector_flops;
  auto dram = r.bandwidth.find("dram");
  if (dram == r.bandwidth.end() || dram->second.value <= 0)
    throw Error(fmt::format("device '{}' has no DRAM bandwidth", r.device_id));
  c.dram_bytes_per_s = dram->second.value;
  return c;
}

void apply(roofline::Prediction& p, const graph::Graph& g, const cost::ModelCost& cost, const ShapeModel& model,
           const CalibratedOptions& options) {
  if (cost.training)
    throw Error("the calibration covers inference: predict a training step without it (a device file without one)");
  if (p.nodes.size() < g.nodes.size() || cost.nodes.size() != g.nodes.size())
    throw Error("calibrated prediction: the prediction is not of this graph");
  auto plan = plan_for(options.executor, options.mode, g, cost);
  double batch = p.throughput * p.time_s;
  std::set<std::string> unsampled;
  p.time_s = 0;
  p.compute_bound_s = p.memory_bound_s = p.overhead_bound_s = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    auto& np = p.nodes[n];
    np.roofline_s = std::max(np.compute_s, np.memory_s);
    int leader = plan.leader[n];
    if (leader != static_cast<int>(n)) {
      np.time_s = 0;
      np.overhead_s = 0;
      np.fused_into =
          leader == FusionPlan::kRemoved ? "(removed: folded or no-op)" : g.nodes[static_cast<size_t>(leader)].name;
      continue;
    }
    if (!np.predicted) continue;  // named as unpredicted already
    auto f = layer_features(g, cost, plan, leader, options.threads);
    auto t = model.predict_s(f, options.mode);
    if (!t) {
      unsampled.insert(std::string(name(f.kind)));
      np.note = fmt::format("no calibration sample of kind {}: roofline bound", name(f.kind));
      // The roofline time, as predict made it (a board's power limit is applied again to the calibrated whole).
      np.time_s = np.roofline_s / np.efficiency + np.overhead_s;
    } else {
      np.time_s = *t;
      np.estimated = true;
      // An eager GPU node whose launch takes the host longer than the device's work is bound by that overhead.
      if (model.host_bound(f, options.mode)) np.bound = roofline::Bound::kOverhead;
      np.efficiency = np.roofline_s > 0 ? std::min(1.0, np.roofline_s / *t) : 1;
      if (np.bound == roofline::Bound::kNone) np.bound = roofline::Bound::kOverhead;  // a view still dispatches
    }
    p.time_s += np.time_s;
    switch (np.bound) {
      case roofline::Bound::kCompute:
        p.compute_bound_s += np.time_s;
        break;
      case roofline::Bound::kMemory:
        p.memory_bound_s += np.time_s;
        break;
      case roofline::Bound::kOverhead:
        p.overhead_bound_s += np.time_s;
        break;
      default:
        break;
    }
  }
  p.framework_overhead_s = model.framework_overhead_s(options.mode, options.threads, plan.executed());
  p.overhead_excluded_s = 0;  // an estimate now: the fitted framework time stands for the overhead
  p.time_s += p.framework_overhead_s;
  p.throughput = p.time_s > 0 ? batch / p.time_s : 0;
  p.calibrated = true;
  p.calibration_model = options.model_file;
  p.exec_mode = options.mode;
  p.threads = options.threads;
  p.predicts = model.executor() == "pytorch" ? (model.framework().empty() ? "PyTorch" : model.framework())
               : model.executor() == "cuda"  ? "the GPU executor"
                                             : "";
  auto all = model.validation().find("all");
  if (all != model.validation().end())
    p.validation = roofline::ValidationError{all->second.points, all->second.median_abs, all->second.p90_abs,
                                             all->second.within_10, model.on_gpu() ? "runs" : "layers"};
  if (!unsampled.empty())
    p.notes.push_back(fmt::format("no calibration sample of kind {}: those nodes keep their roofline bound",
                                  fmt::join(unsampled, ", ")));
}

}  // namespace ridge::calib
