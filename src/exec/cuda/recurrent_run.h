#pragma once
// A recurrent layer (RNN, GRU, LSTM) as the GPU executor runs it, apart from where its memory lives: what the node
// asks (attributes and dims, checked), and the order of products, steps and copies over its buffers. recurrent.cpp
// runs it with cuBLAS and the step kernel; the host-side tests run the same order with plain loops and the same
// per-element step (recurrent_cell.h) against the ONNX project's reference outputs, without a GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "exec/cuda/recurrent_kernels.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

struct RecurrentLayer {
  RecurrentCell cell = RecurrentCell::kLstm;
  int64_t gates = 4, seq = 0, batch = 0, input = 0, hidden = 0, directions = 1;
  bool batch_first = false;  // layout 1: X [batch, seq, input], Y [batch, seq, directions, hidden], states [batch,
                             // directions, hidden]
  std::string direction = "forward";
  // GRU without linear_before_reset: (r . h) R_h^T, a second product per step.
  bool two_phase = false;
  bool input_forget = false;
  float clip = 0.f;
  std::vector<RecurrentActivation> activations;  // per_direction for each direction in turn
  size_t per_direction = 1;

  bool reverse(int64_t d) const { return direction == "reverse" || (direction == "bidirectional" && d == 1); }
  int64_t state() const { return batch * hidden; }
  // Where direction d's [batch, hidden] state starts in an initial or final state tensor, and its rows' pitch.
  int64_t state_offset(int64_t d) const { return batch_first ? d * hidden : d * state(); }
  int64_t state_pitch() const { return batch_first ? directions * hidden : hidden; }
  // X's rows (and X W^T's, and a training step's records) hold time t of batch row b at t row_time() + b row_batch().
  int64_t row_time() const { return batch_first ? 1 : batch; }
  int64_t row_batch() const { return batch_first ? seq : 1; }
  // Y is [seq, directions, batch, hidden], or [batch, seq, directions, hidden] batch first: direction d starts at
  // y_offset(d), and time t of row b lies t y_time() + b y_batch() after it.
  int64_t y_offset(int64_t d) const { return batch_first ? d * hidden : d * state(); }
  int64_t y_time() const { return batch_first ? directions * hidden : directions * state(); }
  int64_t y_batch() const { return batch_first ? seq * directions * hidden : hidden; }
  // Direction d's k-th activation (f, g, h), or the default where the cell has fewer.
  RecurrentActivation activation(int64_t d, size_t k) const {
    return k < per_direction ? activations[static_cast<size_t>(d) * per_direction + k] : RecurrentActivation{};
  }
};

// The layer `node` asks for, from the dims of its inputs (empty where an optional input is absent: B, sequence_lens,
// initial_h, initial_c, P). Throws ridge::Error in one line for dims that do not fit together, a direction that does
// not match the weights, an activation ONNX's recurrent ops do not have.
RecurrentLayer describe_recurrent(const graph::Node& node, RecurrentCell cell,
                                  const std::vector<std::vector<int64_t>>& input_dims);

// The buffers of one run. Operands (x, w, r) are in the products' type (`element` bytes each); everything else fp32,
// lens int32. Optional inputs and unwanted outputs are null.
struct RecurrentBuffers {
  const void *x = nullptr, *w = nullptr, *r = nullptr;
  size_t element = 4;
  const float *bias = nullptr, *h0 = nullptr, *c0 = nullptr, *peephole = nullptr;
  const int32_t* lens = nullptr;
  float *y = nullptr, *y_h = nullptr, *y_c = nullptr;
  // Scratch: xw [seq x batch, gates x hidden], hr [batch, gates x hidden], h and c [batch, hidden] twice (c: LSTM),
  // gate and reset_hidden [batch, hidden] (two_phase).
  float *xw = nullptr, *hr = nullptr, *h[2] = {nullptr, nullptr}, *c[2] = {nullptr, nullptr};
  float *gate = nullptr, *reset_hidden = nullptr;
  // A training step's record (RecurrentStep's pre, hidden_n, h_from, c_from), each direction after the other:
  // [directions, seq x batch, gates x hidden] and [directions, seq x batch, hidden]; null: not recorded.
  float *pre = nullptr, *hidden_n = nullptr, *h_from = nullptr, *c_from = nullptr;
};

// Runs the layer. Ops provides:
//   product(a, b, c, rows, n, k)   C[rows, n] (fp32) = A[rows, k] B[n, k]^T, A and B row-major operands
//   operand(state, n)              an fp32 state as a product's operand (itself, or converted)
//   step(RecurrentStep)            every element of the step (recurrent_cell.h)
//   copy_rows(to, to_pitch, from, from_pitch, rows, width), fill(p, n, value)
template <class Ops>
void run_recurrent(const RecurrentLayer& l, const RecurrentBuffers& b, Ops& ops) {
  const int64_t state = l.state(), gh = l.gates * l.hidden;
  // With sequence lengths, a row's steps past its end are zeros; every other element is written.
  if (b.y && b.lens) ops.fill(b.y, l.seq * l.directions * state, 0.f);
  for (int64_t d = 0; d < l.directions; ++d) {
    const char* w_d = static_cast<const char*>(b.w) + static_cast<size_t>(d * gh * l.input) * b.element;
    const char* r_d = static_cast<const char*>(b.r) + static_cast<size_t>(d * gh * l.hidden) * b.element;
    ops.product(b.x, w_d, b.xw, l.seq * l.batch, gh, l.input);
    if (b.h0)
      ops.copy_rows(b.h[0], l.hidden, b.h0 + l.state_offset(d), l.state_pitch(), l.batch, l.hidden);
    else
      ops.fill(b.h[0], state, 0.f);
    const bool lstm = l.cell == RecurrentCell::kLstm;
    if (lstm && b.c0)
      ops.copy_rows(b.c[0], l.hidden, b.c0 + l.state_offset(d), l.state_pitch(), l.batch, l.hidden);
    else if (lstm)
      ops.fill(b.c[0], state, 0.f);
    RecurrentStep s;
    s.cell = l.cell;
    s.batch = l.batch;
    s.hidden = l.hidden;
    s.seq = l.seq;
    s.reverse = l.reverse(d);
    s.xw = b.xw;
    s.xw_time = l.row_time();
    s.xw_batch = l.row_batch();
    s.hr = b.hr;
    s.wb = b.bias ? b.bias + d * 2 * gh : nullptr;
    s.rb = b.bias ? s.wb + gh : nullptr;
    s.peephole = b.peephole ? b.peephole + d * 3 * l.hidden : nullptr;
    s.lens = b.lens;
    s.y = b.y ? b.y + l.y_offset(d) : nullptr;
    s.y_time = l.y_time();
    s.y_batch = l.y_batch();
    s.clip = l.clip;
    s.input_forget = l.input_forget;
    s.linear_before_reset = !l.two_phase;
    s.f = l.activation(d, 0), s.g = l.activation(d, 1), s.h = l.activation(d, 2);
    s.gate = b.gate;
    s.reset_hidden = b.reset_hidden;
    const int64_t rows = l.seq * l.batch;
    s.pre = b.pre ? b.pre + d * rows * gh : nullptr;
    s.hidden_n = b.hidden_n ? b.hidden_n + d * rows * l.hidden : nullptr;
    s.h_from = b.h_from ? b.h_from + d * rows * l.hidden : nullptr;
    s.c_from = b.c_from ? b.c_from + d * rows * l.hidden : nullptr;
    int cur = 0;
    for (int64_t step = 0; step < l.seq; ++step) {
      s.step = step;
      s.h_prev = b.h[cur];
      s.h_next = b.h[1 - cur];
      s.c_prev = lstm ? b.c[cur] : nullptr;
      s.c_next = lstm ? b.c[1 - cur] : nullptr;
      if (l.two_phase) {
        // z and r from R's first two gates' rows; then (r . h) against the candidate's rows.
        ops.product(ops.operand(b.h[cur], state), r_d, b.hr, l.batch, 2 * l.hidden, l.hidden);
        s.phase = 1;
        ops.step(s);
        ops.product(ops.operand(b.reset_hidden, state), r_d + static_cast<size_t>(2 * l.hidden * l.hidden) * b.element,
                    b.hr, l.batch, l.hidden, l.hidden);
        s.phase = 2;
      } else {
        ops.product(ops.operand(b.h[cur], state), r_d, b.hr, l.batch, gh, l.hidden);
        s.phase = 0;
      }
      ops.step(s);
      cur = 1 - cur;
    }
    if (b.y_h) ops.copy_rows(b.y_h + l.state_offset(d), l.state_pitch(), b.h[cur], l.hidden, l.batch, l.hidden);
    if (b.y_c) ops.copy_rows(b.y_c + l.state_offset(d), l.state_pitch(), b.c[cur], l.hidden, l.batch, l.hidden);
  }
}

}  // namespace ridge::exec::cuda
