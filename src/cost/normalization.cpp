// Cost rules of normalizations and softmax, in FLOPs per element (docs/cost-model.md):
//   BatchNormalization, inference: scale and shift folded from the statistics: 2 (mul, add);
//     training (batch statistics): mean 1, variance 2, normalize 2, affine 2 = 7.
//   LayerNorm / InstanceNorm / GroupNorm: mean 1, centre 1, square 1, variance 1, scale by
//     rstd 1, affine 2 = 7.  RMSNorm: square 1, sum 1, scale 1, gamma 1 = 4.
//   Softmax: max 1, subtract 1, exp 1, sum 1, divide 1 = 5.
#include "cost/registry.h"

namespace ridge::cost {
namespace {

template <int Fwd, int Bwd>
void per_element(CostContext& ctx) {
  int64_t n = ctx.out_elements();
  ctx.flops = Fwd * n;
  ctx.backward_flops_data = Bwd * n;
  ctx.backward_flops_weight = ctx.input_count() > 1 ? 2 * n : 0;  // gamma and beta gradients
  ctx.saves_inputs = true;
  ctx.gradient_outputs = 1;  // LayerNormalization's Mean and InvStdDev outputs are statistics, not differentiated
}

// Mean/variance inputs are running statistics, not trained parameters.
void batch_norm(CostContext& ctx) {
  int64_t n = ctx.out_elements();
  ctx.mark_not_parameter(3);
  ctx.mark_not_parameter(4);
  // Batch statistics in a training step, or where the node itself says so (a training-mode export).
  bool batch_statistics = ctx.training() || ctx.node().get_int("training_mode", 0) != 0;
  ctx.flops = (batch_statistics ? 7 : 2) * n;
  ctx.backward_flops_data = 9 * n;
  ctx.backward_flops_weight = 2 * n;
  ctx.saves_inputs = true;
  ctx.gradient_outputs = 1;  // a training-mode node's running mean and variance outputs are statistics
}

void softmax(CostContext& ctx) {
  int64_t n = ctx.out_elements();
  ctx.flops = 5 * n;
  ctx.backward_flops_data = 4 * n;  // y * (g - sum(g * y))
  ctx.saves_output = true;
}

void hardmax(CostContext& ctx) { ctx.flops = ctx.out_elements(); }

// LRN: a window of `size` channels: square and add per window element, then scale, pow, divide.
void lrn(CostContext& ctx) {
  int64_t n = ctx.out_elements();
  int64_t size = ctx.node().get_int("size", 1);
  ctx.flops = (2 * size + 3) * n;
  ctx.backward_flops_data = (2 * size + 5) * n;
  ctx.saves_inputs = true;
}

}  // namespace

void register_normalization_costs(CostRegistry& r) {
  // One table row per op.
  // clang-format off
  r.add("normalization", {{"BatchNormalization", batch_norm, kFusible},
         {"LayerNormalization", per_element<7, 9>, kFusible},
         {"InstanceNormalization", per_element<7, 9>, kFusible},
         {"GroupNormalization", per_element<7, 9>, kFusible},
         {"MeanVarianceNormalization", per_element<5, 7>, kFusible},
         {"RMSNormalization", per_element<4, 6>, kFusible},
         {"SimplifiedLayerNormalization", per_element<4, 6>, kFusible},
         {"LpNormalization", per_element<3, 5>, kFusible},
         {"LRN", lrn, kFusible},
         {"Softmax", softmax, kFusible},
         {"LogSoftmax", softmax, kFusible},
         {"Hardmax", hardmax, kNotDifferentiable}});
  // clang-format on
}

}  // namespace ridge::cost
