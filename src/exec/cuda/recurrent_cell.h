#pragma once
// One hidden unit of one batch row of a recurrent step (recurrent_kernels.h), on the GPU (one thread each,
// recurrent_kernels.cu) and on the host (the host-side tests run the GPU executor's recurrent layers through it,
// tests/cuda/test_recurrent_host.cpp). As the CPU executor computes a step (src/exec/aten/kernels/recurrent.cpp) and
// ONNX's operator definitions state it. C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"
#include "exec/cuda/recurrent_kernels.h"

namespace ridge::exec::cuda {

RIDGE_HOST_DEVICE inline float recurrent_activate(const RecurrentActivation& a, float x) {
  switch (a.op) {
    case RecurrentActivationOp::kSigmoid:
      return 1.f / (1.f + expf(-x));
    case RecurrentActivationOp::kTanh:
      return tanhf(x);
    case RecurrentActivationOp::kRelu:
      return x > 0.f ? x : 0.f;
    case RecurrentActivationOp::kLeakyRelu:
      return x >= 0.f ? x : a.alpha * x;
    case RecurrentActivationOp::kHardSigmoid:
      return fminf(fmaxf(a.alpha * x + a.beta, 0.f), 1.f);
    case RecurrentActivationOp::kSoftsign:
      return x / (1.f + fabsf(x));
    case RecurrentActivationOp::kSoftplus:
      return log1pf(expf(x));
    case RecurrentActivationOp::kScaledTanh:
      return a.alpha * tanhf(a.beta * x);
    case RecurrentActivationOp::kAffine:
      return a.alpha * x + a.beta;
  }
  return x;
}

RIDGE_HOST_DEVICE inline float recurrent_clipped(float x, float clip) {
  return clip > 0.f ? fminf(fmaxf(x, -clip), clip) : x;
}

RIDGE_HOST_DEVICE inline float recurrent_bias(const float* b, int64_t i) { return b ? b[i] : 0.f; }

// Element i = b x hidden + j of the step: batch row b, hidden unit j.
RIDGE_HOST_DEVICE inline void recurrent_element(const RecurrentStep& s, int64_t i) {
  const int64_t H = s.hidden;
  const int gates = s.cell == RecurrentCell::kRnn ? 1 : (s.cell == RecurrentCell::kGru ? 3 : 4);
  int64_t b = i / H, j = i % H;
  int64_t len = s.lens ? static_cast<int64_t>(s.lens[b]) : s.seq;
  if (len > s.seq) len = s.seq;
  bool active = s.step < len;
  float h_prev = s.h_prev[i];
  if (!active) {  // the row's sequence has ended: its state stays, its output (zeroed before) is not written
    if (s.phase == 1) return;
    s.h_next[i] = h_prev;
    if (s.cell == RecurrentCell::kLstm) s.c_next[i] = s.c_prev[i];
    return;
  }
  int64_t t = s.reverse ? len - 1 - s.step : s.step;
  const float* x = s.xw + (t * s.xw_time + b * s.xw_batch) * gates * H;
  float h_new = 0.f;
  if (s.cell == RecurrentCell::kRnn) {
    const float* hr = s.hr + b * H;
    h_new = recurrent_activate(
        s.f, recurrent_clipped(x[j] + hr[j] + recurrent_bias(s.wb, j) + recurrent_bias(s.rb, j), s.clip));
  } else if (s.cell == RecurrentCell::kGru) {
    if (s.phase == 1) {  // z and r; r . h_prev for the candidate's product
      const float* hr = s.hr + b * 2 * H;
      float z = recurrent_activate(
          s.f, recurrent_clipped(x[j] + hr[j] + recurrent_bias(s.wb, j) + recurrent_bias(s.rb, j), s.clip));
      float r = recurrent_activate(
          s.f,
          recurrent_clipped(x[H + j] + hr[H + j] + recurrent_bias(s.wb, H + j) + recurrent_bias(s.rb, H + j), s.clip));
      s.gate[i] = z;
      s.reset_hidden[i] = r * h_prev;
      return;
    }
    float z = 0.f, candidate = 0.f;
    if (s.phase == 2) {  // hr: (r . h_prev) R_h^T
      z = s.gate[i];
      candidate = x[2 * H + j] + recurrent_bias(s.wb, 2 * H + j) + s.hr[b * H + j] + recurrent_bias(s.rb, 2 * H + j);
    } else {  // linear_before_reset: r . (h_prev R_h^T + Rb_h)
      const float* hr = s.hr + b * 3 * H;
      z = recurrent_activate(
          s.f, recurrent_clipped(x[j] + hr[j] + recurrent_bias(s.wb, j) + recurrent_bias(s.rb, j), s.clip));
      float r = recurrent_activate(
          s.f,
          recurrent_clipped(x[H + j] + hr[H + j] + recurrent_bias(s.wb, H + j) + recurrent_bias(s.rb, H + j), s.clip));
      candidate =
          x[2 * H + j] + recurrent_bias(s.wb, 2 * H + j) + r * (hr[2 * H + j] + recurrent_bias(s.rb, 2 * H + j));
    }
    float hh = recurrent_activate(s.g, recurrent_clipped(candidate, s.clip));
    h_new = (1.f - z) * hh + z * h_prev;
  } else {  // LSTM: gates i, o, f, c
    const float* hr = s.hr + b * 4 * H;
    float c_prev = s.c_prev[i];
    auto pre = [&](int gate) {
      return x[gate * H + j] + hr[gate * H + j] + recurrent_bias(s.wb, gate * H + j) +
             recurrent_bias(s.rb, gate * H + j);
    };
    float gi = pre(0), go = pre(1), gf = pre(2), gc = pre(3);
    if (s.peephole) {
      gi += s.peephole[j] * c_prev;
      gf += s.peephole[2 * H + j] * c_prev;
    }
    float in = recurrent_activate(s.f, recurrent_clipped(gi, s.clip));
    float forget = s.input_forget ? 1.f - in : recurrent_activate(s.f, recurrent_clipped(gf, s.clip));
    float c = forget * c_prev + in * recurrent_activate(s.g, recurrent_clipped(gc, s.clip));
    if (s.peephole) go += s.peephole[H + j] * c;
    float out = recurrent_activate(s.f, recurrent_clipped(go, s.clip));
    h_new = out * recurrent_activate(s.h, c);
    s.c_next[i] = c;
  }
  s.h_next[i] = h_new;
  if (s.y) s.y[t * s.y_time + b * s.y_batch + j] = h_new;
}

}  // namespace ridge::exec::cuda
