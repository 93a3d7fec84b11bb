#pragma once
// A recurrent layer's backward (RNN, GRU, LSTM) as the GPU's training step runs it, apart from where its memory lives:
// from the forward's record (recurrent_run.h's RecurrentBuffers: pre, hidden_n, h_from, c_from) and the gradients of
// Y, Y_h and Y_c, the gradients of X, W, R, B and the initial states. Per direction, steps last first: one kernel per
// step for every unit's gate gradients (recurrent_cell.h: recurrent_backward_element), then the state's gradient
// through R (a product per step); after the steps, W's, R's and B's gradients and X's as one product each over every
// step's rows. recurrent.cpp runs it with cuBLAS; the host-side tests run the same order with plain loops against the
// CPU executor's gradients (libtorch's autograd), without a GPU.
//
// What it does not differentiate (recurrent_backward_refusal, checked before the first training step): LSTM peepholes
// and input_forget, and GRU without linear_before_reset.
#include <cstdint>
#include <string>

#include "exec/cuda/recurrent_kernels.h"
#include "exec/cuda/recurrent_run.h"

namespace ridge::exec::cuda {

// Why the GPU training step cannot differentiate layer `l` (with LSTM peepholes: `peepholes`), in one line; "" when
// it can.
std::string recurrent_backward_refusal(const RecurrentLayer& l, bool peepholes);

struct RecurrentGradBuffers {
  // The forward's fp32 operands (X, W, R), its record (as RecurrentBuffers holds it) and sequence lengths.
  const float *x = nullptr, *w = nullptr, *r = nullptr;
  const float *pre = nullptr, *hidden_n = nullptr, *h_from = nullptr, *c_from = nullptr;
  const int32_t* lens = nullptr;
  // The outputs' gradients, in their outputs' layouts; null where none reached them.
  const float *dy = nullptr, *dy_h = nullptr, *dy_c = nullptr;
  // The gradients wanted, in their inputs' layouts (B: [directions, 2 x gates x hidden]); null: not wanted.
  float *dx = nullptr, *dw = nullptr, *dr = nullptr, *db = nullptr, *dh0 = nullptr, *dc0 = nullptr;
  // Scratch: dgx_rows and dgh_rows [seq x batch, gates x hidden] (the same buffer but for GRU), dgh_step
  // [batch, gates x hidden], dh and dc [batch, hidden] twice (dc: LSTM), ones [seq x batch] of 1.
  float *dgx_rows = nullptr, *dgh_rows = nullptr, *dgh_step = nullptr;
  float *dh[2] = {nullptr, nullptr}, *dc[2] = {nullptr, nullptr};
  const float* ones = nullptr;
};

// Runs the backward. Ops provides, besides recurrent_run.h's copy_rows and fill:
//   product_nn(a, b, c, rows, n, k, accumulate)  C[rows, n] (+)= A[rows, k] B[k, n]
//   product_tn(a, b, c, m, n, k)                 C[m, n] = A[k, m]^T B[k, n]
//   backward_step(RecurrentBackStep)             every element of the step (recurrent_cell.h)
// All row-major fp32.
template <class Ops>
void run_recurrent_backward(const RecurrentLayer& l, const RecurrentGradBuffers& g, Ops& ops) {
  const int64_t state = l.state(), gh = l.gates * l.hidden, rows = l.seq * l.batch;
  const bool lstm = l.cell == RecurrentCell::kLstm;
  for (int64_t d = 0; d < l.directions; ++d) {
    const float* w_d = g.w + d * gh * l.input;
    const float* r_d = g.r + d * gh * l.hidden;
    ops.fill(g.dgx_rows, rows * gh, 0.f);
    if (g.dgh_rows != g.dgx_rows) ops.fill(g.dgh_rows, rows * gh, 0.f);
    // The state after the last step receives the final-state outputs' gradients.
    if (g.dy_h)
      ops.copy_rows(g.dh[0], l.hidden, g.dy_h + l.state_offset(d), l.state_pitch(), l.batch, l.hidden);
    else
      ops.fill(g.dh[0], state, 0.f);
    if (lstm && g.dy_c)
      ops.copy_rows(g.dc[0], l.hidden, g.dy_c + l.state_offset(d), l.state_pitch(), l.batch, l.hidden);
    else if (lstm)
      ops.fill(g.dc[0], state, 0.f);
    RecurrentBackStep s;
    s.cell = l.cell;
    s.batch = l.batch;
    s.hidden = l.hidden;
    s.seq = l.seq;
    s.reverse = l.reverse(d);
    s.row_time = l.row_time();
    s.row_batch = l.row_batch();
    s.pre = g.pre + d * rows * gh;
    s.hidden_n = g.hidden_n ? g.hidden_n + d * rows * l.hidden : nullptr;
    s.h_from = g.h_from + d * rows * l.hidden;
    s.c_from = g.c_from ? g.c_from + d * rows * l.hidden : nullptr;
    s.lens = g.lens;
    s.dy = g.dy ? g.dy + l.y_offset(d) : nullptr;
    s.y_time = l.y_time();
    s.y_batch = l.y_batch();
    s.dgx_rows = g.dgx_rows;
    s.dgh_rows = g.dgh_rows;
    s.dgh_step = g.dgh_step;
    s.clip = l.clip;
    s.f = l.activation(d, 0), s.g = l.activation(d, 1), s.h = l.activation(d, 2);
    int cur = 0;
    for (int64_t step = l.seq - 1; step >= 0; --step) {
      s.step = step;
      s.dh = g.dh[cur];
      s.dc = lstm ? g.dc[cur] : nullptr;
      s.dh_prev = g.dh[1 - cur];
      s.dc_prev = lstm ? g.dc[1 - cur] : nullptr;
      ops.backward_step(s);
      // The state before the step also fed h R^T: its gradient takes dG_h R.
      ops.product_nn(g.dgh_step, r_d, g.dh[1 - cur], l.batch, l.hidden, gh, true);
      cur = 1 - cur;
    }
    if (g.dh0) ops.copy_rows(g.dh0 + l.state_offset(d), l.state_pitch(), g.dh[cur], l.hidden, l.batch, l.hidden);
    if (lstm && g.dc0)
      ops.copy_rows(g.dc0 + l.state_offset(d), l.state_pitch(), g.dc[cur], l.hidden, l.batch, l.hidden);
    // Every step's rows at once: X's rows are X W^T's, and h_from holds the state each row's step read (zeros for
    // rows past their length, whose gate gradients are zero too).
    if (g.dw) ops.product_tn(g.dgx_rows, g.x, g.dw + d * gh * l.input, gh, l.input, rows);
    if (g.dr) ops.product_tn(g.dgh_rows, s.h_from, g.dr + d * gh * l.hidden, gh, l.hidden, rows);
    if (g.db) {
      ops.product_tn(g.dgx_rows, g.ones, g.db + d * 2 * gh, gh, 1, rows);
      ops.product_tn(g.dgh_rows, g.ones, g.db + d * 2 * gh + gh, gh, 1, rows);
    }
    if (g.dx) ops.product_nn(g.dgx_rows, w_d, g.dx, rows, l.input, gh, d > 0);
  }
}

}  // namespace ridge::exec::cuda
