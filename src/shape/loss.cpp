// Shape rules of loss ops (training graphs): NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.
#include <fmt/format.h>

#include "shape/registry.h"

namespace ridge::shape {
namespace {

// reduction "none" keeps the target's shape; "mean"/"sum" give a scalar.
std::vector<int64_t> loss_dims(InferenceContext& ctx, const std::vector<int64_t>& scores,
                               const std::vector<int64_t>& target) {
  if (scores.size() < 2 || target.size() != scores.size() - 1) ctx.fail("target must have the scores' rank minus one");
  for (size_t i = 0; i < target.size(); ++i)
    if (target[i] != scores[i == 0 ? 0 : i + 1]) ctx.fail("target dims do not match the scores' [N, d1, ...]");
  auto reduction = ctx.node().get_string("reduction", "mean");
  if (reduction == "none") return target;
  if (reduction != "mean" && reduction != "sum") ctx.fail("unknown reduction '" + reduction + "'");
  return {};
}

void nll_loss(InferenceContext& ctx) {
  ctx.require_inputs(2);
  ctx.set_output(0, ctx.in_dtype(0), loss_dims(ctx, ctx.in_dims(0), ctx.in_dims(1)));
}

void softmax_cross_entropy(InferenceContext& ctx) {
  ctx.require_inputs(2);
  ctx.set_output(0, ctx.in_dtype(0), loss_dims(ctx, ctx.in_dims(0), ctx.in_dims(1)));
  if (ctx.has_output(1)) ctx.pass_through(1, 0);  // log_prob
}

}  // namespace

void register_loss_shapes(ShapeRegistry& registry) {
  // One table row per op.
  // clang-format off
  registry.add("loss", {{"NegativeLogLikelihoodLoss", nll_loss}, {"SoftmaxCrossEntropyLoss", softmax_cross_entropy}});
  // clang-format on
}

}  // namespace ridge::shape
