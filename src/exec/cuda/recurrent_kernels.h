#pragma once
// One time step of ONNX's recurrent ops (RNN, GRU, LSTM) on the GPU, after cuBLAS has computed the step's products
// (recurrent.cpp): the gates' biases, activations, clip, peepholes and state update, one thread per batch row and
// hidden unit. fp32; C++17 for nvcc, as kernels.h.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace ridge::exec::cuda {

// ONNX's recurrent activations (the attribute "activations"), with activation_alpha and activation_beta.
enum class RecurrentActivationOp {
  kSigmoid,
  kTanh,
  kRelu,
  kLeakyRelu,    // alpha (default 0.01)
  kHardSigmoid,  // clamp(alpha x + beta, 0, 1) (defaults 0.2, 0.5)
  kSoftsign,
  kSoftplus,
  kScaledTanh,  // alpha tanh(beta x)
  kAffine,      // alpha x + beta
};

struct RecurrentActivation {
  RecurrentActivationOp op = RecurrentActivationOp::kSigmoid;
  float alpha = 1.f, beta = 0.f;
};

enum class RecurrentCell { kRnn, kGru, kLstm };

// One step s of one direction. Gates are laid out as ONNX has them: RNN one, GRU z, r, h, LSTM i, o, f, c, each
// `hidden` wide. Batch row b reads time t_b = s (forward) or len_b - 1 - s (reverse), and is active while s < len_b
// (len_b = seq without `lens`); an inactive row keeps its state and writes no output.
struct RecurrentStep {
  RecurrentCell cell = RecurrentCell::kLstm;
  int64_t batch = 0, hidden = 0, seq = 0, step = 0;
  bool reverse = false;
  // X W^T for this direction: time t of row b at xw + (t xw_time + b xw_batch) x gates x hidden, rows counted as
  // (batch, 1) for [seq, batch, ...] and (1, seq) for batch first
  const float* xw = nullptr;
  int64_t xw_time = 0, xw_batch = 0;
  const float* hr = nullptr;        // [batch, width]: h R^T for the gates the product covered (width: see `phase`)
  const float* wb = nullptr;        // [gates x hidden] or null
  const float* rb = nullptr;        // [gates x hidden] or null
  const float* peephole = nullptr;  // LSTM: [3 x hidden] (i, o, f) or null
  const int32_t* lens = nullptr;    // [batch] or null
  const float* h_prev = nullptr;    // [batch, hidden]
  const float* c_prev = nullptr;    // LSTM: [batch, hidden]
  float* h_next = nullptr;
  float* c_next = nullptr;
  float* y = nullptr;  // this direction's output: time t of row b at y + t y_time + b y_batch; or null
  int64_t y_time = 0, y_batch = 0;
  float clip = 0.f;  // > 0: pre-activations clamped to [-clip, clip]
  bool input_forget = false, linear_before_reset = false;
  RecurrentActivation f, g, h;  // RNN: f; GRU: f, g; LSTM: f, g, h
  // GRU without linear_before_reset multiplies (r . h_prev) by R_h, so a step is two launches: phase 1 (hr holds the
  // z and r products, [batch, 2 hidden]) writes z into `gate` and r . h_prev into `reset_hidden`; phase 2 (hr holds
  // (r . h_prev) R_h^T, [batch, hidden]) finishes the step. Every other step is phase 0 (hr [batch, gates x hidden]).
  int phase = 0;
  float* gate = nullptr;
  float* reset_hidden = nullptr;
};

void recurrent_step(const RecurrentStep& step, cudaStream_t stream);

}  // namespace ridge::exec::cuda
