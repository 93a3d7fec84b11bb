// Cost rules of recurrent layers, per time step and direction, for batch B, input size I and
// hidden size H (docs/cost-model.md):
//   LSTM: MACs 4H(I + H)B; elementwise 18HB (3 sigmoids x 4, 2 tanh, cell update 3, output 1)
//         plus 8HB bias adds when B is given.
//   GRU:  MACs 3H(I + H)B; elementwise 13HB (2 sigmoids x 4, tanh, reset 1, blend 3) + 6HB bias.
//   RNN:  MACs H(I + H)B; elementwise 1HB (tanh) + 2HB bias.
// Backward through time: data and weight gradients each cost the forward's MACs again.
#include "cost/registry.h"

namespace ridge::cost {
namespace {

template <int Gates, int Elementwise>
void recurrent(CostContext& ctx) {
  auto x = ctx.in_dims(0), r = ctx.in_dims(2);
  bool batch_major = ctx.node().get_int("layout", 0) != 0;
  int64_t seq = batch_major ? x[1] : x[0], batch = batch_major ? x[0] : x[1], input = x[2];
  int64_t dirs = r[0], hidden = r[2];
  int64_t steps = seq * dirs;
  ctx.macs = steps * Gates * hidden * (input + hidden) * batch;
  int64_t bias = ctx.has_input(3) ? 2 * Gates * hidden * batch * steps : 0;
  ctx.flops = 2 * ctx.macs + Elementwise * hidden * batch * steps + bias;
  ctx.backward_flops_data = 2 * ctx.macs + 2 * Elementwise * hidden * batch * steps;
  ctx.backward_flops_weight = 2 * ctx.macs + bias;
  ctx.saves_inputs = true;
  ctx.saves_output = true;
}

}  // namespace

void register_recurrent_costs(CostRegistry& r) {
  // One table row per op.
  // clang-format off
  r.add("recurrent", {{"LSTM", recurrent<4, 18>}, {"GRU", recurrent<3, 13>}, {"RNN", recurrent<1, 1>}});
  // clang-format on
}

}  // namespace ridge::cost
