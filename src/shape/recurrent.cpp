// Shape rules of recurrent layers: LSTM, GRU, RNN (layout 0: seq-major, 1: batch-major).
#include <fmt/format.h>

#include "shape/registry.h"

namespace ridge::shape {
namespace {

template <int Gates>
void recurrent(InferenceContext& ctx) {
  ctx.require_inputs(3);
  auto x = ctx.in_dims(0), w = ctx.in_dims(1), r = ctx.in_dims(2);
  if (x.size() != 3 || w.size() != 3 || r.size() != 3) ctx.fail("X, W and R must be 3-D");
  bool batch_major = ctx.node().get_int("layout", 0) != 0;
  int64_t seq = batch_major ? x[1] : x[0], batch = batch_major ? x[0] : x[1];
  int64_t hidden = ctx.node().get_int("hidden_size", r[2]);
  int64_t dirs = ctx.node().get_string("direction", "forward") == "bidirectional" ? 2 : 1;
  if (w[0] != dirs || w[1] != Gates * hidden || w[2] != x[2])
    ctx.fail(fmt::format("W is {}x{}x{}, expected {}x{}x{}", w[0], w[1], w[2], dirs, Gates * hidden, x[2]));
  if (r[0] != dirs || r[1] != Gates * hidden || r[2] != hidden) ctx.fail("R does not match hidden_size");
  auto type = ctx.in_dtype(0);
  if (batch_major) {
    ctx.set_output(0, type, {batch, seq, dirs, hidden});
    ctx.set_output(1, type, {batch, dirs, hidden});
    ctx.set_output(2, type, {batch, dirs, hidden});
  } else {
    ctx.set_output(0, type, {seq, dirs, batch, hidden});
    ctx.set_output(1, type, {dirs, batch, hidden});
    ctx.set_output(2, type, {dirs, batch, hidden});
  }
}

}  // namespace

void register_recurrent_shapes(ShapeRegistry& registry) {
  // One table row per op.
  // clang-format off
  registry.add("recurrent", {{"LSTM", recurrent<4>}, {"GRU", recurrent<3>}, {"RNN", recurrent<1>}});
  // clang-format on
}

}  // namespace ridge::shape
