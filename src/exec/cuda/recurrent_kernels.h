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
  // What a training step's backward needs (recurrent_backward_run.h), written when given, at the row of (t, b) in
  // X W^T's layout (xw_time, xw_batch): the gates' pre-activations before clip ([rows, gates x hidden]; GRU's
  // candidate without its hidden part), GRU's candidate hidden part h R_h^T + Rb_h ([rows, hidden]), and the state
  // the step started from (h, and c for LSTM, [rows, hidden]).
  float* pre = nullptr;
  float* hidden_n = nullptr;
  float* h_from = nullptr;
  float* c_from = nullptr;
};

void recurrent_step(const RecurrentStep& step, cudaStream_t stream);

// One step of a recurrent layer's backward, processed last step first (recurrent_backward_run.h), from what the
// forward recorded (RecurrentStep's pre, hidden_n, h_from, c_from) and the gradients flowing back: per batch row and
// hidden unit, the gradient of the state after the step (dh, dc: from the later steps or the final-state outputs)
// plus the output Y's at that step, into the gates' pre-activation gradients and the gradient of the state before.
// Gates are ONNX's (recurrent_kernels.h). Rows past their sequence length pass dh and dc through.
struct RecurrentBackStep {
  RecurrentCell cell = RecurrentCell::kLstm;
  int64_t batch = 0, hidden = 0, seq = 0, step = 0;
  bool reverse = false;
  int64_t row_time = 0, row_batch = 0;  // the row of (t, b) in the recorded buffers: t row_time + b row_batch
  const float* pre = nullptr;
  const float* hidden_n = nullptr;
  const float* h_from = nullptr;
  const float* c_from = nullptr;
  const int32_t* lens = nullptr;
  const float* dy = nullptr;  // Y's gradient for this direction (at t y_time + b y_batch), or null
  int64_t y_time = 0, y_batch = 0;
  const float* dh = nullptr;  // [batch, hidden]: the gradient of the state after this step
  const float* dc = nullptr;  // LSTM
  float* dh_prev = nullptr;   // [batch, hidden]: its part that does not pass through R (GRU's z h_prev; else 0)
  float* dc_prev = nullptr;   // LSTM
  // The pre-activations' gradients: for the input side (X W^T, W's bias) and the hidden side (h R^T, R's bias) at the
  // step's rows ([rows, gates x hidden], zero where a row is past its length, written by the caller), and the
  // hidden side again packed per batch row ([batch, gates x hidden], zeros for rows past their length) for this
  // step's product with R. LSTM and RNN: the two sides are equal and dgx_rows may be dgh_rows.
  float* dgx_rows = nullptr;
  float* dgh_rows = nullptr;
  float* dgh_step = nullptr;
  float clip = 0.f;
  RecurrentActivation f, g, h;
};

void recurrent_backward_step(const RecurrentBackStep& step, cudaStream_t stream);

}  // namespace ridge::exec::cuda
