// Cost rules of loss ops, per target element t and score element s:
//   NegativeLogLikelihoodLoss: pick and negate 1 per t, class weight 1 per t when given, and the
//     reduction (t - 1 adds, + 1 divide for mean, + t weight sums when weighted).
//   SoftmaxCrossEntropyLoss: a log-softmax over the scores (5 per s) plus the NLL above.
// Backward: NLL scatters one value per t; softmax cross entropy is softmax(s) - onehot: 6 per s.
#include "cost/registry.h"

namespace ridge::cost {
namespace {

int64_t nll_flops(CostContext& ctx, int64_t targets) {
  bool weighted = ctx.has_input(2);
  auto reduction = ctx.node().get_string("reduction", "mean");
  int64_t flops = targets * (weighted ? 2 : 1);
  if (reduction != "none") flops += (targets - 1) + (reduction == "mean" ? 1 + (weighted ? targets : 0) : 0);
  return flops;
}

void nll_loss(CostContext& ctx) {
  int64_t targets = ctx.in_elements(1);
  ctx.flops = nll_flops(ctx, targets);
  ctx.backward_flops_data = targets;
  ctx.override_read(0, ctx.in_elements(0) > 0 ? ctx.in_bytes(0) / ctx.in_elements(0) * targets : 0);  // picked scores
}

void softmax_cross_entropy(CostContext& ctx) {
  int64_t scores = ctx.in_elements(0);
  ctx.flops = 5 * scores + nll_flops(ctx, ctx.in_elements(1));
  ctx.backward_flops_data = 6 * scores;
  ctx.saves_output = true;
}

}  // namespace

void register_loss_costs(CostRegistry& r) {
  // One table row per op.
  // clang-format off
  r.add("loss", {{"NegativeLogLikelihoodLoss", nll_loss}, {"SoftmaxCrossEntropyLoss", softmax_cross_entropy}});
  // clang-format on
}

}  // namespace ridge::cost
