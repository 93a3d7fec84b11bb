#include "exec/optimized_graph.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <map>

#include "util/error.h"

namespace ridge::exec {

namespace {

using graph::kNoValue;
using graph::ValueId;
using Role = OptimizationPlan::Role;

// A new constant of the rewritten graph: an initializer without bytes (the backend supplies its values), so every
// rule that keeps constants alive (release plans, cached weight conversions) keeps it. Named after `name`, made unique
// ("NAME#2", ...): ONNX does not require node names to be unique, and two layers named alike must not share one.
ValueId new_constant(graph::Graph& g, std::string name, std::vector<int64_t> dims) {
  if (g.find(name))
    for (int k = 2;; ++k)
      if (auto candidate = fmt::format("{}#{}", name, k); !g.find(candidate)) {
        name = std::move(candidate);
        break;
      }
  auto id = g.intern(name);
  auto& v = g.value(id);
  v.dtype = graph::DType::kFloat32;
  v.has_shape = true;
  v.shape.clear();
  for (auto d : dims) v.shape.push_back(graph::Dim::known(d));
  auto ref = std::make_shared<graph::TensorRef>();
  ref->name = name;
  ref->dtype = v.dtype;
  ref->dims = std::move(dims);
  v.initializer = std::move(ref);
  return id;
}

std::vector<float> floats_of(const HostTensor& t, const char* what) {
  if (t.dtype != graph::DType::kFloat32)
    throw Error(
        fmt::format("folding a BatchNorm: the {} '{}' is {}, not fp32", what, t.name, graph::dtype_name(t.dtype)));
  std::vector<float> out(t.bytes.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), t.bytes.data(), out.size() * sizeof(float));
  return out;
}

HostTensor from_floats(std::string name, std::vector<int64_t> dims, const std::vector<float>& values) {
  HostTensor t{std::move(name), graph::DType::kFloat32, std::move(dims), std::vector<uint8_t>(values.size() * 4)};
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

}  // namespace

std::string OptimizedGraph::summary() const {
  auto text = fmt::format(
      "optimized: {} BatchNorms folded into convolutions, {} bias adds fused into matrix products, {} residual adds "
      "and {} activations fused into layers, {} no-ops removed, {} dead nodes dropped",
      folded_batchnorms, fused_biases, fused_residuals, fused_activations, removed_noops, dead);
  for (const auto& part : {views.summary(), attention.summary()})
    if (!part.empty()) text += ", " + part;
  return text;
}

OptimizedGraph optimized_graph(const graph::Graph& g, const OptimizationPlan& plan, const TakesEpilogue& takes) {
  OptimizedGraph out;
  out.graph = g;
  auto& og = out.graph;
  std::vector<bool> removed(g.nodes.size(), false);
  // No-ops: their readers read their input (through chains of no-ops).
  std::map<ValueId, ValueId> alias;
  auto resolve = [&alias](ValueId id) {
    for (auto it = alias.find(id); it != alias.end(); it = alias.find(id)) id = it->second;
    return id;
  };
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (plan.role[n] == Role::kNoop) {
      alias[g.nodes[n].outputs[0]] = g.nodes[n].input(0);
      removed[n] = true;
      ++out.removed_noops;
    } else if (plan.role[n] == Role::kDead) {
      removed[n] = true;
      ++out.dead;
    }
  }
  // Each layer's members, by role.
  std::map<size_t, std::vector<size_t>> chain;
  std::map<size_t, size_t> residual_add, bias_add;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (plan.leader[n] < 0 || plan.leader[n] == static_cast<int>(n)) continue;
    auto layer = static_cast<size_t>(plan.leader[n]);
    if (plan.role[n] == Role::kActivation) chain[layer].push_back(n);
    if (plan.role[n] == Role::kResidual) residual_add[layer] = n;
    if (plan.role[n] == Role::kBias) bias_add[layer] = n;
  }
  for (const auto& entry : plan.epilogues) {
    // Not a structured binding: the lambda below captures them (clang 14 cannot capture bindings).
    size_t n = entry.first;
    const auto& e = entry.second;
    const auto& original = g.nodes[n];
    auto choice = takes(original, e);
    ValueId output = og.nodes[n].outputs[0];
    // A MatMul's bias Add the backend does not take stays a node, and what follows it cannot join either.
    if (e.bias != kNoValue) {
      if (!choice.bias || !bias_add.count(n)) continue;
      auto& product = og.nodes[n];
      product.inputs.resize(3, kNoValue);
      product.inputs[2] = resolve(e.bias);
      removed[bias_add.at(n)] = true;
      output = g.nodes[bias_add.at(n)].outputs[0];
      ++out.fused_biases;
    }
    if (e.folds_batchnorm) {
      if (!choice.batchnorm) continue;
      const auto& bn = g.nodes[e.batchnorm];
      BatchNormFold f;
      f.conv_weight = resolve(original.input(1));
      f.conv_bias = original.input(2) == kNoValue ? kNoValue : resolve(original.input(2));
      f.scale = resolve(bn.input(1));
      f.shift = resolve(bn.input(2));
      f.mean = resolve(bn.input(3));
      f.var = resolve(bn.input(4));
      f.epsilon = bn.get_float("epsilon", 1e-5);
      const auto& w = g.value(f.conv_weight);
      if (!w.has_shape || !graph::is_fully_known(w.shape))
        throw Error(
            fmt::format("internal: folding '{}' into '{}': the weight's shape is unknown", bn.name, original.name));
      auto dims = graph::known_dims(w.shape);
      auto stem = original.name.empty() ? og.value(output).name : original.name;
      f.weight = new_constant(og, stem + "/folded_weight", dims);
      f.bias = new_constant(og, stem + "/folded_bias", {dims.at(0)});
      auto& conv = og.nodes[n];
      conv.inputs.resize(3, kNoValue);
      conv.inputs[1] = f.weight;
      conv.inputs[2] = f.bias;
      out.folds.push_back(f);
      removed[e.batchnorm] = true;
      output = bn.outputs[0];
      ++out.folded_batchnorms;
    }
    auto& conv = og.nodes[n];
    auto take_residual = [&] {
      auto add = residual_add.at(n);
      conv.inputs.resize(4, kNoValue);
      conv.inputs[3] = resolve(e.residual);
      removed[add] = true;
      output = g.nodes[add].outputs[0];
      ++out.fused_residuals;
    };
    bool taking = true;
    if (e.residual != kNoValue && !e.residual_last) {
      taking = choice.residual;
      if (taking) take_residual();
    }
    if (taking && e.activation != FusedActivation::kNone) {
      taking = choice.activation;
      if (taking) {
        for (auto c : chain.at(n)) removed[c] = true;
        // The chain's exit: what the residual Add after it reads besides the residual, else the epilogue's output.
        output = e.output;
        if (e.residual != kNoValue && e.residual_last) {
          const auto& add = g.nodes[residual_add.at(n)];
          output = resolve(add.input(0)) == resolve(e.residual) ? add.input(1) : add.input(0);
        }
        graph::Attribute a;
        a.name = kActivationAttribute;
        a.kind = graph::Attribute::Kind::kString;
        a.s = std::string(name(e.activation));
        conv.attributes.push_back(std::move(a));
        if (e.activation == FusedActivation::kClip)
          for (auto [attribute, value] : {std::pair{kClipMinAttribute, e.clip_min}, {kClipMaxAttribute, e.clip_max}}) {
            graph::Attribute bound;
            bound.name = attribute;
            bound.kind = graph::Attribute::Kind::kFloat;
            bound.f = value;
            conv.attributes.push_back(std::move(bound));
          }
        ++out.fused_activations;
      }
    }
    if (taking && e.residual != kNoValue && e.residual_last && choice.residual) take_residual();
    conv.outputs[0] = output;
  }
  std::vector<graph::Node> kept;
  for (size_t n = 0; n < og.nodes.size(); ++n) {
    if (removed[n]) continue;
    for (auto& in : og.nodes[n].inputs) in = resolve(in);
    kept.push_back(std::move(og.nodes[n]));
  }
  og.nodes = std::move(kept);
  og.link_and_sort();
  return out;
}

std::pair<HostTensor, HostTensor> fold_batchnorm(const HostTensor& weight, const HostTensor* bias,
                                                 const HostTensor& scale, const HostTensor& shift,
                                                 const HostTensor& mean, const HostTensor& var, double epsilon) {
  auto w = floats_of(weight, "weight");
  auto s = floats_of(scale, "scale");
  auto sh = floats_of(shift, "shift");
  auto m = floats_of(mean, "mean");
  auto v = floats_of(var, "variance");
  if (weight.dims.empty()) throw Error(fmt::format("folding a BatchNorm: the weight '{}' has no dims", weight.name));
  auto channels = static_cast<size_t>(weight.dims[0]);
  std::vector<float> b(channels, 0.f);
  if (bias) b = floats_of(*bias, "bias");
  for (const auto* t : {&s, &sh, &m, &v, &b})
    if (t->size() != channels)
      throw Error(fmt::format("folding a BatchNorm into '{}': {} values per channel for {} output channels",
                              weight.name, t->size(), channels));
  if (channels == 0 || w.size() % channels != 0)
    throw Error(
        fmt::format("folding a BatchNorm: the weight '{}' does not split into {} channels", weight.name, channels));
  size_t inner = w.size() / channels;
  std::vector<float> folded_b(channels);
  for (size_t c = 0; c < channels; ++c) {
    double k = static_cast<double>(s[c]) / std::sqrt(static_cast<double>(v[c]) + epsilon);
    for (size_t i = 0; i < inner; ++i) w[c * inner + i] = static_cast<float>(w[c * inner + i] * k);
    folded_b[c] = static_cast<float>((static_cast<double>(b[c]) - m[c]) * k + sh[c]);
  }
  return {from_floats(weight.name + "/folded", weight.dims, w),
          from_floats(weight.name + "/folded_bias", {static_cast<int64_t>(channels)}, folded_b)};
}

}  // namespace ridge::exec
