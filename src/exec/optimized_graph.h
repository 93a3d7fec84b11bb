#pragma once
// The graph a backend runs in optimized mode, built from the plan (exec/optimization_plan.h) and what the backend
// takes of each layer's epilogue: a BatchNormalization folded into two new values (the layer's weight and bias,
// which the backend computes with fold_batchnorm), a MatMul's bias as its input 2 (added to every row of the
// product), a residual Add as the layer's input 3, an activation as the layer's "ridge.activation" attribute; the
// nodes a layer took are gone, and so are no-ops (their readers read their input) and dead nodes. Nodes the plan
// folds into constants stay: each backend folds what it can (its node plan).
// A layer's epilogue is taken in the plan's order (BatchNorm or bias, residual, activation, residual after it) up to
// the first part the backend does not take, so what it runs is always a prefix of what the plan joined.
// libtorch-free.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "exec/attention_fusion.h"
#include "exec/host_tensor.h"
#include "exec/optimization_plan.h"
#include "exec/product_views.h"
#include "graph/graph.h"

namespace ridge::exec {

// What a backend takes of one layer's epilogue.
struct EpilogueChoice {
  bool batchnorm = false, residual = false, activation = false;
  bool bias = false;  // a MatMul's bias Add
};
using TakesEpilogue = std::function<EpilogueChoice(const graph::Node& layer, const OptimizationPlan::Epilogue&)>;

// The attribute naming the activation a layer computes in its epilogue (exec::name(FusedActivation)).
inline constexpr const char* kActivationAttribute = "ridge.activation";
// A clip's bounds, beside its activation attribute ("clip").
inline constexpr const char* kClipMinAttribute = "ridge.clip_min";
inline constexpr const char* kClipMaxAttribute = "ridge.clip_max";

// A BatchNormalization folded into the convolution before it: the new values, and where their inputs are (value
// ids of the rewritten graph, which keeps every value of the original at its id).
struct BatchNormFold {
  graph::ValueId weight = graph::kNoValue, bias = graph::kNoValue;            // new
  graph::ValueId conv_weight = graph::kNoValue, conv_bias = graph::kNoValue;  // conv_bias: kNoValue when none
  graph::ValueId scale = graph::kNoValue, shift = graph::kNoValue, mean = graph::kNoValue, var = graph::kNoValue;
  double epsilon = 1e-5;
};

struct OptimizedGraph {
  graph::Graph graph;
  std::vector<BatchNormFold> folds;
  int folded_batchnorms = 0, fused_biases = 0, fused_residuals = 0, fused_activations = 0, removed_noops = 0, dead = 0;
  ProductViews views;           // what a backend's absorb_product_views did after
  AttentionFusions attention;   // what a backend's fuse_attention did after that
  std::string summary() const;  // what was done, for a run's notes
};

// Throws ridge::Error if the rewritten graph is not a graph (an internal fault).
OptimizedGraph optimized_graph(const graph::Graph& g, const OptimizationPlan& plan, const TakesEpilogue& takes);

// The folded weight and bias, fp32: per output channel c, s = scale[c] / sqrt(var[c] + epsilon),
// w'[c, ...] = w[c, ...] * s, b'[c] = (b[c] - mean[c]) * s + shift[c] (b = 0 when the convolution has none).
// Throws ridge::Error on tensors that are not fp32 or whose sizes do not match the weight's output channels.
std::pair<HostTensor, HostTensor> fold_batchnorm(const HostTensor& weight, const HostTensor* bias,
                                                 const HostTensor& scale, const HostTensor& shift,
                                                 const HostTensor& mean, const HostTensor& var, double epsilon);

}  // namespace ridge::exec
