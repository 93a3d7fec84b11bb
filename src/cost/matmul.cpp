// Cost rules of matrix products: MACs = output elements x the contracted size.
#include <fmt/format.h>

#include "cost/registry.h"
#include "shape/einsum.h"

namespace ridge::cost {
namespace {

void set_product(CostContext& ctx, int64_t macs, int64_t extra_flops) {
  ctx.macs = macs;
  ctx.flops = 2 * macs + extra_flops;
  ctx.backward_flops_data = 2 * macs;    // dA = dY . B^T (and dB = A^T . dY for a second activation)
  ctx.backward_flops_weight = 2 * macs;  // dW = X^T . dY
  ctx.saves_inputs = true;
}

void matmul(CostContext& ctx) {
  auto a = ctx.in_dims(0);
  int64_t k = a.back();
  set_product(ctx, ctx.out_elements() * k, 0);
  // When both operands are activations (attention), the data gradient covers both.
  if (!ctx.is_weight(0) && !ctx.is_weight(1)) {
    ctx.backward_flops_data = 4 * ctx.macs;
    ctx.backward_flops_weight = 0;
  }
}

void matmul_integer(CostContext& ctx) {
  ctx.macs = ctx.out_elements() * ctx.in_dims(0).back();
  ctx.flops = 2 * ctx.macs;
}

void qlinear_matmul(CostContext& ctx) {
  ctx.macs = ctx.out_elements() * ctx.in_dims(0).back();
  ctx.flops = 2 * ctx.macs + 2 * ctx.out_elements();
}

// Y = alpha * A' B' + beta * C: the scalings cost one FLOP per element unless they are 1.
void gemm(CostContext& ctx) {
  auto a = ctx.in_dims(0);
  int64_t k = ctx.node().get_int("transA", 0) ? a[0] : a[1];
  int64_t out = ctx.out_elements();
  int64_t extra = 0;
  if (ctx.node().get_float("alpha", 1.0) != 1.0) extra += out;
  if (ctx.has_input(2)) extra += out * (ctx.node().get_float("beta", 1.0) != 1.0 ? 2 : 1);
  set_product(ctx, out * k, extra);
  if (ctx.has_input(2)) ctx.backward_flops_weight += out;  // bias gradient: column sums
  if (!ctx.is_weight(0) && !ctx.is_weight(1)) {
    ctx.backward_flops_data = 4 * ctx.macs;
    ctx.backward_flops_weight = ctx.has_input(2) ? out : 0;
  }
}

// One operand: a reduction/transpose (one add per input element). Two or more: naive evaluation,
// one multiply-accumulate per point of the full label space per extra operand.
void einsum(CostContext& ctx) {
  std::vector<std::vector<int64_t>> dims;
  for (size_t i = 0; i < ctx.input_count(); ++i) dims.push_back(ctx.in_dims(i));
  auto spec =
      shape::parse_einsum(ctx.node().get_string("equation", ""), dims, fmt::format("node '{}'", ctx.node().name));
  if (dims.size() == 1) {
    ctx.flops = ctx.in_elements(0) - ctx.out_elements();
    return;
  }
  int64_t space = 1;
  for (const auto& [label, size] : spec.sizes) space = graph::checked_mul(space, size, "einsum size");
  set_product(ctx, space * static_cast<int64_t>(dims.size() - 1), 0);
}

// Det by LU decomposition: 2/3 M^3 FLOPs per matrix (plus M for the diagonal product).
void det(CostContext& ctx) {
  auto x = ctx.in_dims(0);
  int64_t m = x.back();
  int64_t matrices = ctx.out_elements();
  ctx.flops = matrices * (2 * m * m * m / 3 + m);
}

}  // namespace

void register_matmul_costs(CostRegistry& r) {
  // One table row per op.
  // clang-format off
  r.add("matmul", {{"MatMul", matmul}, {"Gemm", gemm}, {"Einsum", einsum},
         {"MatMulInteger", matmul_integer, kNotDifferentiable}, {"QLinearMatMul", qlinear_matmul, kNotDifferentiable},
         {"Det", det, kNotDifferentiable}});
  // clang-format on
}

}  // namespace ridge::cost
