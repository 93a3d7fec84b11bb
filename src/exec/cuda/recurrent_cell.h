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
  const int64_t row = t * s.xw_time + b * s.xw_batch;
  const float* x = s.xw + row * gates * H;
  float* rec = s.pre ? s.pre + row * gates * H : nullptr;  // recorded for a training step's backward
  if (s.h_from) s.h_from[row * H + j] = h_prev;
  float h_new = 0.f;
  if (s.cell == RecurrentCell::kRnn) {
    const float* hr = s.hr + b * H;
    const float a = x[j] + hr[j] + recurrent_bias(s.wb, j) + recurrent_bias(s.rb, j);
    if (rec) rec[j] = a;
    h_new = recurrent_activate(s.f, recurrent_clipped(a, s.clip));
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
      const float az = x[j] + hr[j] + recurrent_bias(s.wb, j) + recurrent_bias(s.rb, j);
      const float ar = x[H + j] + hr[H + j] + recurrent_bias(s.wb, H + j) + recurrent_bias(s.rb, H + j);
      const float an = x[2 * H + j] + recurrent_bias(s.wb, 2 * H + j);
      const float hn = hr[2 * H + j] + recurrent_bias(s.rb, 2 * H + j);
      if (rec) rec[j] = az, rec[H + j] = ar, rec[2 * H + j] = an;
      if (s.hidden_n) s.hidden_n[row * H + j] = hn;
      z = recurrent_activate(s.f, recurrent_clipped(az, s.clip));
      float r = recurrent_activate(s.f, recurrent_clipped(ar, s.clip));
      candidate = an + r * hn;
    }
    float hh = recurrent_activate(s.g, recurrent_clipped(candidate, s.clip));
    h_new = (1.f - z) * hh + z * h_prev;
  } else {  // LSTM: gates i, o, f, c
    const float* hr = s.hr + b * 4 * H;
    float c_prev = s.c_prev[i];
    if (s.c_from) s.c_from[row * H + j] = c_prev;
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
    if (rec) rec[j] = gi, rec[H + j] = go, rec[2 * H + j] = gf, rec[3 * H + j] = gc;
    float out = recurrent_activate(s.f, recurrent_clipped(go, s.clip));
    h_new = out * recurrent_activate(s.h, c);
    s.c_next[i] = c;
  }
  s.h_next[i] = h_new;
  if (s.y) s.y[t * s.y_time + b * s.y_batch + j] = h_new;
}

// The derivative of activation `a` at x.
RIDGE_HOST_DEVICE inline float recurrent_derivative(const RecurrentActivation& a, float x) {
  switch (a.op) {
    case RecurrentActivationOp::kSigmoid: {
      float y = 1.f / (1.f + expf(-x));
      return y * (1.f - y);
    }
    case RecurrentActivationOp::kTanh: {
      float y = tanhf(x);
      return 1.f - y * y;
    }
    case RecurrentActivationOp::kRelu:
      return x > 0.f ? 1.f : 0.f;
    case RecurrentActivationOp::kLeakyRelu:
      return x >= 0.f ? 1.f : a.alpha;
    case RecurrentActivationOp::kHardSigmoid: {
      float y = a.alpha * x + a.beta;
      return y > 0.f && y < 1.f ? a.alpha : 0.f;
    }
    case RecurrentActivationOp::kSoftsign: {
      float d = 1.f + fabsf(x);
      return 1.f / (d * d);
    }
    case RecurrentActivationOp::kSoftplus:
      return 1.f / (1.f + expf(-x));
    case RecurrentActivationOp::kScaledTanh: {
      float y = tanhf(a.beta * x);
      return a.alpha * a.beta * (1.f - y * y);
    }
    case RecurrentActivationOp::kAffine:
      return a.alpha;
  }
  return 1.f;
}

// d activation(clip(x)) / dx: 0 where clip holds x at a bound (x outside [-clip, clip], as a clamp's gradient),
// else the activation's derivative at x.
RIDGE_HOST_DEVICE inline float recurrent_gate_derivative(const RecurrentActivation& a, float x, float clip) {
  if (clip > 0.f && (x > clip || x < -clip)) return 0.f;
  return recurrent_derivative(a, x);
}

// Element i = b x hidden + j of a backward step (recurrent_kernels.h: RecurrentBackStep).
RIDGE_HOST_DEVICE inline void recurrent_backward_element(const RecurrentBackStep& s, int64_t i) {
  const int64_t H = s.hidden;
  const int gates = s.cell == RecurrentCell::kRnn ? 1 : (s.cell == RecurrentCell::kGru ? 3 : 4);
  const bool lstm = s.cell == RecurrentCell::kLstm;
  int64_t b = i / H, j = i % H;
  int64_t len = s.lens ? static_cast<int64_t>(s.lens[b]) : s.seq;
  if (len > s.seq) len = s.seq;
  float dh = s.dh[i];
  float dc = lstm ? s.dc[i] : 0.f;
  float* packed = s.dgh_step + b * gates * H;
  if (s.step >= len) {  // past the row's end: its state passed through this step unchanged
    s.dh_prev[i] = dh;
    if (lstm) s.dc_prev[i] = dc;
    for (int g = 0; g < gates; ++g) packed[g * H + j] = 0.f;
    return;
  }
  int64_t t = s.reverse ? len - 1 - s.step : s.step;
  if (s.dy) dh += s.dy[t * s.y_time + b * s.y_batch + j];
  const int64_t row = t * s.row_time + b * s.row_batch;
  const float* pre = s.pre + row * gates * H;
  float* dgx = s.dgx_rows + row * gates * H;
  float* dgh = s.dgh_rows + row * gates * H;
  const float clip = s.clip;
  if (s.cell == RecurrentCell::kRnn) {
    float d = dh * recurrent_gate_derivative(s.f, pre[j], clip);
    dgx[j] = d;
    dgh[j] = d;
    packed[j] = d;
    s.dh_prev[i] = 0.f;
    return;
  }
  if (s.cell == RecurrentCell::kGru) {  // linear_before_reset: h = (1 - z) n + z h_prev, n = g(an + r hn)
    const float h_prev = s.h_from[row * H + j], hn = s.hidden_n[row * H + j];
    const float az = pre[j], ar = pre[H + j], an = pre[2 * H + j];
    const float z = recurrent_activate(s.f, recurrent_clipped(az, clip));
    const float r = recurrent_activate(s.f, recurrent_clipped(ar, clip));
    const float a = an + r * hn;
    const float n = recurrent_activate(s.g, recurrent_clipped(a, clip));
    const float dz = dh * (h_prev - n) * recurrent_gate_derivative(s.f, az, clip);
    const float da = dh * (1.f - z) * recurrent_gate_derivative(s.g, a, clip);
    const float dr = da * hn * recurrent_gate_derivative(s.f, ar, clip);
    dgx[j] = dz, dgx[H + j] = dr, dgx[2 * H + j] = da;
    dgh[j] = dz, dgh[H + j] = dr, dgh[2 * H + j] = da * r;
    packed[j] = dz, packed[H + j] = dr, packed[2 * H + j] = da * r;
    s.dh_prev[i] = dh * z;
    return;
  }
  // LSTM (i, o, f, c): c = f c_prev + i g(ac), h = o h(c)
  const float c_prev = s.c_from[row * H + j];
  const float ai = pre[j], ao = pre[H + j], af = pre[2 * H + j], ac = pre[3 * H + j];
  const float in = recurrent_activate(s.f, recurrent_clipped(ai, clip));
  const float out = recurrent_activate(s.f, recurrent_clipped(ao, clip));
  const float forget = recurrent_activate(s.f, recurrent_clipped(af, clip));
  const float cand = recurrent_activate(s.g, recurrent_clipped(ac, clip));
  const float c = forget * c_prev + in * cand;
  dc += dh * out * recurrent_derivative(s.h, c);
  const float d[4] = {dc * cand * recurrent_gate_derivative(s.f, ai, clip),
                      dh * recurrent_activate(s.h, c) * recurrent_gate_derivative(s.f, ao, clip),
                      dc * c_prev * recurrent_gate_derivative(s.f, af, clip),
                      dc * in * recurrent_gate_derivative(s.g, ac, clip)};
  for (int g = 0; g < 4; ++g) dgx[g * H + j] = d[g], dgh[g * H + j] = d[g], packed[g * H + j] = d[g];
  s.dh_prev[i] = 0.f;
  s.dc_prev[i] = dc * forget;
}

}  // namespace ridge::exec::cuda
