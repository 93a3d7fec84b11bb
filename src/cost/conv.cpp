// Cost rules of convolutions. MACs = output elements x (input channels / group) x kernel size;
// a bias adds one FLOP per output element. Backward: the input gradient is a transposed
// convolution and the weight gradient a correlation, each with the forward's MACs.
#include "cost/registry.h"
#include "shape/constant_eval.h"

namespace ridge::cost {
namespace {

int64_t kernel_size(const std::vector<int64_t>& w) {
  return shape::product(std::vector<int64_t>(w.begin() + 2, w.end()));
}

void set_conv(CostContext& ctx, int64_t macs, bool has_bias) {
  int64_t out = ctx.out_elements();
  ctx.macs = macs;
  ctx.flops = 2 * macs + (has_bias ? out : 0);
  ctx.backward_flops_data = 2 * macs;
  ctx.backward_flops_weight = 2 * macs + (has_bias ? out : 0);
  ctx.saves_inputs = true;
}

void conv(CostContext& ctx) {
  auto w = ctx.in_dims(1);
  set_conv(ctx, ctx.out_elements() * w[1] * kernel_size(w), ctx.has_input(2));
}

void conv_transpose(CostContext& ctx) {
  auto w = ctx.in_dims(1);  // [C_in, C_out / group, k...]: every input element meets C_out/group x k weights
  set_conv(ctx, ctx.in_elements(0) * w[1] * kernel_size(w), ctx.has_input(2));
}

void qlinear_conv(CostContext& ctx) {
  auto w = ctx.in_dims(3);
  int64_t out = ctx.out_elements();
  ctx.macs = out * w[1] * kernel_size(w);
  ctx.flops = 2 * ctx.macs + (ctx.has_input(8) ? out : 0) + 2 * out;  // + requantize (scale, zero point)
}

}  // namespace

void register_conv_costs(CostRegistry& r) {
  // One table row per op.
  // clang-format off
  r.add("conv", {{"Conv", conv}, {"ConvInteger", conv, kNotDifferentiable}, {"ConvTranspose", conv_transpose},
         {"QLinearConv", qlinear_conv, kNotDifferentiable}});
  // clang-format on
}

}  // namespace ridge::cost
