// Shape rules of normalizations and softmax-style ops.
#include <fmt/format.h>

#include "shape/registry.h"

namespace ridge::shape {
namespace {

void batch_norm(InferenceContext& ctx) {
  ctx.require_inputs(5);
  auto x = ctx.in_dims(0);
  if (x.size() < 2) ctx.fail("input must have rank >= 2");
  for (size_t i = 1; i < 5; ++i) {
    auto p = ctx.in_dims(i);
    if (p.size() != 1 || p[0] != x[1]) ctx.fail(fmt::format("input {} must have {} elements (the channels)", i, x[1]));
  }
  ctx.pass_through(0, 0);
  for (size_t i = 1; i < ctx.output_count(); ++i) ctx.set_output(i, ctx.in_dtype(0), {x[1]});
}

// LayerNormalization: outputs Mean and InvStdDev keep the leading dims, ones after `axis`.
void layer_norm(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto x = ctx.in_dims(0);
  int64_t axis = ctx.axis(ctx.node().get_int("axis", -1), static_cast<int64_t>(x.size()));
  ctx.pass_through(0, 0);
  std::vector<int64_t> stats(x.begin(), x.begin() + axis);
  stats.resize(x.size(), 1);
  auto stash = static_cast<graph::DType>(ctx.node().get_int("stash_type", 1));
  for (size_t i = 1; i < ctx.output_count(); ++i) ctx.set_output(i, stash, stats);
}

void same_shape(InferenceContext& ctx) {
  ctx.require_inputs(1);
  ctx.pass_through(0, 0);
}

void softmax(InferenceContext& ctx) {
  ctx.require_inputs(1);
  int64_t default_axis = ctx.opset() >= 13 ? -1 : 1;
  ctx.axis(ctx.node().get_int("axis", default_axis), ctx.in_rank(0));
  ctx.pass_through(0, 0);
}

void group_norm(InferenceContext& ctx) {
  ctx.require_inputs(3);
  auto x = ctx.in_dims(0);
  int64_t groups = ctx.node().get_int("num_groups", 1);
  if (x.size() < 2 || groups <= 0 || x[1] % groups) ctx.fail("channels are not divisible by num_groups");
  ctx.pass_through(0, 0);
}

}  // namespace

void register_normalization_shapes(ShapeRegistry& registry) {
  // One table row per op.
  // clang-format off
  registry.add("normalization", {{"BatchNormalization", batch_norm}, {"LayerNormalization", layer_norm},
                {"SimplifiedLayerNormalization", layer_norm}, {"RMSNormalization", layer_norm},
                {"InstanceNormalization", same_shape}, {"GroupNormalization", group_norm}, {"LRN", same_shape},
                {"MeanVarianceNormalization", same_shape}, {"LpNormalization", same_shape},
                {"Softmax", softmax}, {"LogSoftmax", softmax}, {"Hardmax", softmax}});
  // clang-format on
}

}  // namespace ridge::shape
