// Cost rules of pooling. A window of k elements costs k-1 comparisons (max) or k-1 additions and
// one division (average) per output element; global pools use the whole spatial extent.
#include "cost/registry.h"
#include "shape/constant_eval.h"

namespace ridge::cost {
namespace {

template <bool Average>
void windowed(CostContext& ctx) {
  int64_t k = shape::product(ctx.node().get_ints("kernel_shape"));
  int64_t out = ctx.out_elements();
  ctx.flops = (Average ? k : k - 1) * out;
  ctx.backward_flops_data = Average ? k * out : out;  // spread g/k over the window; route g to the max
  ctx.saves_output = !Average;                        // max positions
}

void lp_pool(CostContext& ctx) {
  int64_t k = shape::product(ctx.node().get_ints("kernel_shape"));
  ctx.flops = (3 * k) * ctx.out_elements();  // |x|^p, add, then the root
  ctx.backward_flops_data = 3 * k * ctx.out_elements();
  ctx.saves_inputs = true;
}

template <bool Average>
void global(CostContext& ctx) {
  int64_t out = ctx.out_elements();
  int64_t window = out > 0 ? ctx.in_elements(0) / out : 0;
  ctx.flops = (Average ? window : window - 1) * out;
  ctx.backward_flops_data = Average ? ctx.in_elements(0) : out;
  ctx.saves_output = !Average;
}

}  // namespace

void register_pooling_costs(CostRegistry& r) {
  // One table row per op.
  // clang-format off
  r.add("pooling", {{"MaxPool", windowed<false>}, {"AveragePool", windowed<true>}, {"LpPool", lp_pool},
         {"GlobalAveragePool", global<true>}, {"GlobalMaxPool", global<false>}, {"GlobalLpPool", global<true>}});
  // clang-format on
}

}  // namespace ridge::cost
