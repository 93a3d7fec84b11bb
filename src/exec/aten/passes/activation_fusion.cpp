#include "exec/aten/passes/activation_fusion.h"

#include <cmath>

#include "exec/aten/interpreter.h"
#include "exec/aten/kernels/kernel.h"

namespace ridge::exec::aten {

namespace {

using graph::ValueId;

// Elementwise ops an activation chain may be made of.
bool pointwise(const graph::Node& node) {
  static const std::set<std::string> ops{"Add",  "Sub",     "Mul",  "Div",  "Pow",         "Tanh",
                                         "Erf",  "Sigmoid", "Relu", "Clip", "Neg",         "Exp",
                                         "Sqrt", "Max",     "Min",  "Abs",  "HardSigmoid", "HardSwish"};
  return node.is_default_domain() && ops.count(node.op_type) && node.outputs.size() == 1 && node.subgraphs().empty();
}

// Probe values: dense over where activations bend, plus far out on both sides.
at::Tensor probe() {
  auto dense = at::linspace(-10.0, 10.0, 4001, at::kDouble);
  auto far = at::tensor(std::vector<double>{-1e4, -100, -30, 30, 100, 1e4}, at::kDouble);
  return at::cat({dense, far});
}

// The functions oneDNN fuses, on the probe (in double precision).
std::vector<std::pair<Activation, at::Tensor>> candidates(const at::Tensor& x, const at::Tensor& observed) {
  using K = Activation::Kind;
  std::vector<std::pair<Activation, at::Tensor>> out;
  out.push_back({{K::kRelu}, at::relu(x)});
  // A clip's bounds are what it gives far out.
  double lo = observed.min().item<double>(), hi = observed.max().item<double>();
  if (std::isfinite(lo) && std::isfinite(hi) && lo < hi && (lo > -1e4 || hi < 1e4))
    out.push_back({{K::kClip, static_cast<float>(lo), static_cast<float>(hi)}, at::clamp(x, lo, hi)});
  out.push_back({{K::kSilu}, x * at::sigmoid(x)});
  out.push_back({{K::kGeluErf}, 0.5 * x * (1 + at::erf(x / std::sqrt(2.0)))});
  out.push_back({{K::kGeluTanh}, 0.5 * x * (1 + at::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)))});
  out.push_back({{K::kHardSwish}, x * at::clamp(x + 3, 0, 6) / 6});
  return out;
}

}  // namespace

std::optional<FusableActivation> find_fusable_activation(const graph::Graph& g, ValueId value,
                                                         const std::vector<bool>& removed,
                                                         const std::vector<at::Tensor>& constants,
                                                         const std::set<std::string>& pinned,
                                                         Interpreter& interpreter) {
  auto scalar_constant = [&](ValueId id) {
    if (id == graph::kNoValue) return true;
    if (static_cast<size_t>(id) >= constants.size() || !constants[static_cast<size_t>(id)].defined()) return false;
    const auto& t = constants[static_cast<size_t>(id)];
    return t.numel() == 1;
  };
  // Grow the chain: a node joins once every input is the value, a chain value or a scalar constant.
  std::set<ValueId> inside{value};
  std::vector<size_t> chain;
  std::vector<bool> in_chain(g.nodes.size(), false);
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const auto& node = g.nodes[n];
      if (removed[n] || in_chain[n] || !pointwise(node)) continue;
      bool reads_chain = false, admissible = true;
      for (auto in : node.inputs) {
        if (inside.count(in))
          reads_chain = true;
        else if (!scalar_constant(in))
          admissible = false;
      }
      if (!reads_chain || !admissible) continue;
      in_chain[n] = true;
      chain.push_back(n);
      inside.insert(node.outputs[0]);
      grew = true;
    }
  }
  if (chain.empty()) return std::nullopt;
  // Exactly one chain value may be read from outside it (or be pinned), and not the value itself.
  std::set<ValueId> exits;
  for (auto id : inside) {
    if (pinned.count(g.value(id).name)) exits.insert(id);
    for (size_t n = 0; n < g.nodes.size(); ++n)
      if (!removed[n] && !in_chain[n])
        for (auto in : g.nodes[n].inputs)
          if (in == id) exits.insert(id);
  }
  if (exits.size() != 1 || *exits.begin() == value) return std::nullopt;
  ValueId exit = *exits.begin();

  // Evaluate the chain on the probe with the executor's own kernels, in the order it grew (every
  // node after its inputs), in fp32 as the layer computes.
  auto x = probe();
  std::map<ValueId, at::Tensor> values{{value, x.to(at::kFloat)}};
  const auto& registry = KernelRegistry::instance();
  for (auto n : chain) {
    const auto& node = g.nodes[n];
    const auto* row = registry.find(node.op_type);
    if (!row) return std::nullopt;
    KernelContext ctx{node, g, interpreter, interpreter.opset(), {}, {}, {}};
    for (auto in : node.inputs)
      ctx.inputs.push_back(in == graph::kNoValue ? at::Tensor()
                           : values.count(in)    ? values.at(in)
                                                 : constants[static_cast<size_t>(in)]);
    ctx.outputs.resize(1);
    try {
      row->kernel(ctx);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (!ctx.outputs[0].defined() || ctx.outputs[0].sizes() != x.sizes()) return std::nullopt;
    values[node.outputs[0]] = ctx.outputs[0];
  }
  auto observed = values.at(exit).to(at::kDouble);
  if (!at::isfinite(observed).all().item<bool>()) return std::nullopt;
  for (auto& [activation, expected] : candidates(x, observed)) {
    // fp32 rounding of differently ordered arithmetic stays far below the gaps between these
    // functions (GELU's tanh and erf forms differ by up to 5e-4).
    auto error = (observed - expected).abs() - (1e-5 + 1e-5 * expected.abs());
    if (error.max().item<double>() <= 0) return FusableActivation{activation, chain, exit};
  }
  return std::nullopt;
}

}  // namespace ridge::exec::aten
