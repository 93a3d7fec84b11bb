// Cost rules of reductions: reducing n inputs into m outputs takes n - m combining operations,
// plus per-element or per-output extras (abs, square, exp; mean's divide, L2's root, log).
#include <cmath>

#include "cost/registry.h"

namespace ridge::cost {
namespace {

// PerInput: extra FLOPs per input element; PerOutput: extra per output element.
template <int PerInput, int PerOutput>
void reduce(CostContext& ctx) {
  int64_t in = ctx.in_elements(0), out = ctx.out_elements();
  ctx.flops = (in - out) + PerInput * in + PerOutput * out;
  ctx.backward_flops_data = (1 + PerInput) * in;
  ctx.saves_inputs = PerInput > 0;
}

void topk(CostContext& ctx) {
  // A heap of k over the n elements of each slice: n log2(k + 1) comparisons.
  auto out_dims = ctx.out_dims(0);
  auto axis = ctx.node().get_int("axis", -1);
  if (axis < 0) axis += static_cast<int64_t>(out_dims.size());
  auto k = static_cast<double>(out_dims.at(static_cast<size_t>(axis)));
  auto n = static_cast<double>(ctx.in_elements(0));
  ctx.flops = static_cast<int64_t>(std::ceil(n * std::max(1.0, std::log2(k + 1))));
}

void cumsum(CostContext& ctx) {
  ctx.flops = ctx.out_elements();
  ctx.backward_flops_data = ctx.out_elements();
}

}  // namespace

void register_reduction_costs(CostRegistry& r) {
  // One table row per op.
  // clang-format off
  r.add("reduction", {{"ReduceSum", reduce<0, 0>}, {"ReduceMean", reduce<0, 1>}, {"ReduceMax", reduce<0, 0>},
         {"ReduceMin", reduce<0, 0>}, {"ReduceProd", reduce<0, 0>}, {"ReduceL1", reduce<1, 0>},
         {"ReduceL2", reduce<1, 1>}, {"ReduceSumSquare", reduce<1, 0>}, {"ReduceLogSum", reduce<0, 1>},
         {"ReduceLogSumExp", reduce<1, 1>}, {"ArgMax", reduce<0, 0>, kNotDifferentiable},
         {"ArgMin", reduce<0, 0>, kNotDifferentiable}, {"TopK", topk, kNotDifferentiable}, {"CumSum", cumsum}});
  // clang-format on
}

}  // namespace ridge::cost
