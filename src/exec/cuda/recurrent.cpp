// RNN, GRU and LSTM on the GPU, as the CPU executor runs them (src/exec/aten/kernels/recurrent.cpp): X W^T for every
// step of a direction in one cuBLAS product, then per step h R^T (cuBLAS) and one kernel for the gates and the state
// (recurrent_kernels.h); GRU without linear_before_reset takes a second product per step for (r . h) R_h^T
// (recurrent_run.h has the order). Forward, reverse and bidirectional, both layouts, sequence lengths, initial states,
// clip, LSTM peepholes and input_forget, and ONNX's activation list. Products in the precision's math (fp16/bf16:
// weights converted once, the step's operand per step; fp32 accumulation and state). Their backward for a training
// step (recurrent_backward_run.h) recomputes the forward recording its gates, then runs the steps last first; its
// products are fp32 (TF32 in tf32) on the fp32 weights.
#include <fmt/format.h>

#include <utility>

#include "exec/cuda/backward.h"
#include "exec/cuda/compute_type.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/recurrent_backward_run.h"
#include "exec/cuda/recurrent_run.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

RecurrentActivation activation(const std::string& name, float alpha, float beta) {
  using Op = RecurrentActivationOp;
  static const std::pair<const char*, Op> kOps[] = {{"Sigmoid", Op::kSigmoid},
                                                    {"Tanh", Op::kTanh},
                                                    {"Relu", Op::kRelu},
                                                    {"LeakyRelu", Op::kLeakyRelu},
                                                    {"HardSigmoid", Op::kHardSigmoid},
                                                    {"Softsign", Op::kSoftsign},
                                                    {"Softplus", Op::kSoftplus},
                                                    {"ScaledTanh", Op::kScaledTanh},
                                                    {"Affine", Op::kAffine}};
  for (const auto& [text, op] : kOps)
    if (name == text) return {op, alpha, beta};
  throw Error("unsupported recurrent activation " + name);
}

}  // namespace

RecurrentLayer describe_recurrent(const graph::Node& node, RecurrentCell cell,
                                  const std::vector<std::vector<int64_t>>& dims) {
  RecurrentLayer l;
  l.cell = cell;
  l.gates = cell == RecurrentCell::kRnn ? 1 : (cell == RecurrentCell::kGru ? 3 : 4);
  const std::vector<std::string> defaults = cell == RecurrentCell::kRnn ? std::vector<std::string>{"Tanh"}
                                            : cell == RecurrentCell::kGru
                                                ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  auto input = [&](size_t i) { return i < dims.size() ? dims[i] : std::vector<int64_t>{}; };
  auto numel = [](const std::vector<int64_t>& d) {
    int64_t n = 1;
    for (auto v : d) n *= v;
    return n;
  };
  const auto x = input(0), w = input(1), r = input(2);
  if (x.size() != 3 || w.size() != 3 || r.size() != 3) throw Error("X, W and R must be 3-D");
  l.batch_first = node.get_int("layout", 0) == 1;
  l.seq = x[l.batch_first ? 1 : 0];
  l.batch = x[l.batch_first ? 0 : 1];
  l.input = x[2];
  l.directions = w[0];
  l.hidden = r[2];
  if (w[1] != l.gates * l.hidden || w[2] != l.input || r[0] != l.directions || r[1] != l.gates * l.hidden)
    throw Error(fmt::format("W is [{}, {}, {}] and R [{}, {}, {}]: not {} gates of {} units over {} inputs", w[0], w[1],
                            w[2], r[0], r[1], r[2], l.gates, l.hidden, l.input));
  if (node.get_int("hidden_size", l.hidden) != l.hidden)
    throw Error(fmt::format("hidden_size {} but R has {} units", node.get_int("hidden_size", 0), l.hidden));
  l.direction = node.get_string("direction", "forward");
  if (l.direction != "forward" && l.direction != "reverse" && l.direction != "bidirectional")
    throw Error("unknown direction " + l.direction);
  if ((l.direction == "bidirectional") != (l.directions == 2) || l.directions < 1 || l.directions > 2)
    throw Error(fmt::format("direction {} with {} directions of weights", l.direction, l.directions));
  const auto bias = input(3), lens = input(4), h0 = input(5), c0 = input(6), peephole = input(7);
  if (!bias.empty() && numel(bias) != l.directions * 2 * l.gates * l.hidden)
    throw Error("B is not [directions, 2 x gates x hidden]");
  if (!lens.empty() && numel(lens) != l.batch) throw Error("sequence_lens is not [batch]");
  for (const auto* s : {&h0, &c0})
    if (!s->empty() && numel(*s) != l.directions * l.state())
      throw Error("an initial state is not [directions, batch, hidden]");
  if (!peephole.empty() && numel(peephole) != l.directions * 3 * l.hidden)
    throw Error("P is not [directions, 3 x hidden]");
  l.two_phase = cell == RecurrentCell::kGru && node.get_int("linear_before_reset", 0) == 0;
  l.input_forget = node.get_int("input_forget", 0) != 0;
  l.clip = static_cast<float>(node.get_float("clip", 0.0));
  // The activations of every direction, with the CPU executor's defaults and alpha/beta rule.
  l.per_direction = defaults.size();
  const auto* names = node.attribute("activations");
  const auto* alphas = node.attribute("activation_alpha");
  const auto* betas = node.attribute("activation_beta");
  std::vector<std::string> list = names ? names->strings : std::vector<std::string>{};
  if (list.empty())
    for (int64_t d = 0; d < l.directions; ++d) list.insert(list.end(), defaults.begin(), defaults.end());
  if (list.size() != defaults.size() * static_cast<size_t>(l.directions))
    throw Error(fmt::format("{} activations for {} directions of {} each", list.size(), l.directions, defaults.size()));
  for (size_t i = 0; i < list.size(); ++i) {
    float alpha = alphas && i < alphas->floats.size() ? alphas->floats[i] : (list[i] == "LeakyRelu" ? 0.01f : 1.f);
    float beta = betas && i < betas->floats.size() ? betas->floats[i] : 0.f;
    if (list[i] == "HardSigmoid" && !alphas) alpha = 0.2f;
    if (list[i] == "HardSigmoid" && !betas) beta = 0.5f;
    l.activations.push_back(activation(list[i], alpha, beta));
  }
  return l;
}

namespace {

struct RecurrentState : NodeState {
  GpuTensor w, r;  // W and R in the operand type, converted once (a constant weight)
};

// `t` in the operand type: itself in fp32 and tf32, else a converted copy (kept in `kept` for a constant weight).
GpuTensor operand(KernelContext& ctx, const GpuTensor& t, size_t input, GpuTensor* kept) {
  auto type = compute_type(ctx.options.precision);
  if (t.dtype == type) return t;
  if (kept && kept->defined()) return *kept;
  auto out = ctx.scratch(type, t.dims);
  if (!cast(t.dtype, t.data(), type, out.data(), t.numel(), ctx.gpu.stream())) ctx.fail("cannot convert the operand");
  ctx.check_launch("cast");
  if (kept && ctx.input_is_unchanging(input)) *kept = out;
  return out;
}

// recurrent_run.h's operations on the GPU.
struct GpuOps {
  KernelContext& ctx;
  graph::DType type;
  GpuTensor step_operand;  // the state converted for a 16-bit product

  // C[rows, n] (fp32, row-major) = A[rows, k] B[n, k]^T: ONNX stores W and R with a gate's unit per row, so a row of C
  // holds every gate of one batch row. Column-major, C^T = B A^T: B's rows are columns of its stored transpose.
  void product(const void* a, const void* b, float* c, int64_t rows, int64_t n, int64_t k) {
    if (rows == 0 || n == 0) return;
    if (k == 0) return fill(c, rows * n, 0.f);
    constexpr int64_t kMax = (int64_t{1} << 31) - 1;
    if (rows > kMax || n > kMax || k > kMax) ctx.fail("a recurrent product's dim is above 2^31 - 1 (cuBLAS's int)");
    float one = 1.f, zero = 0.f;
    auto compute = ctx.options.precision == Precision::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    check(cublasGemmEx(ctx.gpu.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(rows),
                       static_cast<int>(k), &one, b, cuda_type(type), static_cast<int>(k), a, cuda_type(type),
                       static_cast<int>(k), &zero, c, CUDA_R_32F, static_cast<int>(n), compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx (recurrent)");
  }
  const void* operand(const float* state, int64_t n) {
    if (type == graph::DType::kFloat32) return state;
    if (!cast(graph::DType::kFloat32, state, type, step_operand.data(), n, ctx.gpu.stream()))
      ctx.fail("cannot convert the hidden state");
    ctx.check_launch("cast");
    return step_operand.data();
  }
  void step(const RecurrentStep& s) {
    recurrent_step(s, ctx.gpu.stream());
    ctx.check_launch("the recurrent step");
  }
  // `rows` rows of `width` floats between tensors whose rows lie `to_pitch` and `from_pitch` floats apart.
  void copy_rows(float* to, int64_t to_pitch, const float* from, int64_t from_pitch, int64_t rows, int64_t width) {
    if (rows == 0 || width == 0) return;
    constexpr size_t kFloat = sizeof(float);
    check(cudaMemcpy2DAsync(to, static_cast<size_t>(to_pitch) * kFloat, from, static_cast<size_t>(from_pitch) * kFloat,
                            static_cast<size_t>(width) * kFloat, static_cast<size_t>(rows), cudaMemcpyDeviceToDevice,
                            ctx.gpu.stream()),
          "cudaMemcpy2DAsync (recurrent state)");
  }
  void fill(float* p, int64_t n, float value) {
    if (n == 0) return;
    cuda::fill(p, n, value, ctx.gpu.stream());
    ctx.check_launch("fill");
  }

  // recurrent_backward_run.h's products, fp32 (TF32 in tf32): C[rows, n] (+)= A[rows, k] B[k, n], all row-major. In
  // cuBLAS's column-major terms C^T = B^T A^T, and a row-major matrix is its transpose stored column-major.
  void product_nn(const float* a, const float* b, float* c, int64_t rows, int64_t n, int64_t k, bool accumulate) {
    gemm(CUBLAS_OP_N, CUBLAS_OP_N, n, rows, k, b, n, a, k, c, n, accumulate);
  }
  // C[m, n] = A[k, m]^T B[k, n]: C^T = B^T A, A's column-major view transposed.
  void product_tn(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, n, m, k, b, n, a, m, c, n, false);
  }
  void backward_step(const RecurrentBackStep& s) {
    recurrent_backward_step(s, ctx.gpu.stream());
    ctx.check_launch("the recurrent backward step");
  }
  void gemm(cublasOperation_t op_a, cublasOperation_t op_b, int64_t m, int64_t n, int64_t k, const float* a,
            int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
      if (!accumulate) fill(c, m * n, 0.f);
      return;
    }
    constexpr int64_t kMax = (int64_t{1} << 31) - 1;
    if (m > kMax || n > kMax || k > kMax) ctx.fail("a recurrent gradient's dim is above 2^31 - 1 (cuBLAS's int)");
    float one = 1.f, beta = accumulate ? 1.f : 0.f;
    auto compute = ctx.options.precision == Precision::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    check(cublasGemmEx(ctx.gpu.cublas(), op_a, op_b, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                       &one, a, CUDA_R_32F, static_cast<int>(lda), b, CUDA_R_32F, static_cast<int>(ldb), &beta, c,
                       CUDA_R_32F, static_cast<int>(ldc), compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx (recurrent backward)");
  }
};

// A training step's record of the forward (RecurrentBuffers' pre, hidden_n, h_from, c_from).
struct Record {
  float *pre = nullptr, *hidden_n = nullptr, *h_from = nullptr, *c_from = nullptr;
};

// The layer's forward: into the node's outputs (`outputs`), and into `record` when given. The backward runs it again
// with a record and no outputs rather than have every inference run keep what only training reads (PyTorch's cuDNN
// RNN keeps a reserve space from its forward instead).
void run(KernelContext& ctx, RecurrentCell cell, bool outputs = true, const Record* record = nullptr) {
  std::vector<std::vector<int64_t>> dims;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) dims.push_back(ctx.has(i) ? ctx.in(i).dims : std::vector<int64_t>{});
  auto l = describe_recurrent(ctx.node, cell, dims);
  RecurrentBuffers b;
  auto type = compute_type(ctx.options.precision);
  auto& kept = ctx.cached<RecurrentState>();
  auto x = operand(ctx, ctx.float_input(0), 0, nullptr);
  auto w = operand(ctx, ctx.float_input(1), 1, &kept.w);
  auto r = operand(ctx, ctx.float_input(2), 2, &kept.r);
  b.x = x.data();
  b.w = w.data();
  b.r = r.data();
  b.element = static_cast<size_t>(graph::dtype_bytes(type, 1));
  auto optional = [&](size_t i) { return ctx.has(i) ? ctx.float_input(i).as<float>() : nullptr; };
  b.bias = optional(3);
  if (ctx.has(4)) {
    if (ctx.in(4).dtype != graph::DType::kInt32) ctx.fail("sequence_lens must be int32");
    b.lens = ctx.in(4).as<int32_t>();
  }
  b.h0 = optional(5);
  const bool lstm = cell == RecurrentCell::kLstm;
  if (lstm) b.c0 = optional(6), b.peephole = optional(7);
  if (outputs && ctx.wants_output(0)) b.y = ctx.allocate_output(0).as<float>();
  if (outputs && ctx.wants_output(1)) b.y_h = ctx.allocate_output(1).as<float>();
  if (outputs && lstm && ctx.wants_output(2)) b.y_c = ctx.allocate_output(2).as<float>();
  if (record) b.pre = record->pre, b.hidden_n = record->hidden_n, b.h_from = record->h_from, b.c_from = record->c_from;
  // Scratch of at least one element: the allocator hands out no block for none.
  std::vector<GpuTensor> held;
  auto scratch = [&](graph::DType t, int64_t n) {
    held.push_back(ctx.scratch(t, {n > 0 ? n : 1}));
    return held.back().data();
  };
  auto fp32 = [&](int64_t n) { return static_cast<float*>(scratch(graph::DType::kFloat32, n)); };
  const int64_t state = l.state();
  b.xw = fp32(l.seq * l.batch * l.gates * l.hidden);
  b.hr = fp32(l.batch * l.gates * l.hidden);
  b.h[0] = fp32(state), b.h[1] = fp32(state);
  if (lstm) b.c[0] = fp32(state), b.c[1] = fp32(state);
  if (l.two_phase) b.gate = fp32(state), b.reset_hidden = fp32(state);
  GpuOps ops{ctx, type, {}};
  if (type != graph::DType::kFloat32) ops.step_operand = ctx.scratch(type, {state > 0 ? state : 1});
  run_recurrent(l, b, ops);
}

void rnn(KernelContext& ctx) { run(ctx, RecurrentCell::kRnn); }
void gru(KernelContext& ctx) { run(ctx, RecurrentCell::kGru); }
void lstm(KernelContext& ctx) { run(ctx, RecurrentCell::kLstm); }

// The gradients of X, W, R, B and the initial states (recurrent_backward_run.h has the order).
void backward(BackwardContext& bc, RecurrentCell cell) {
  auto& ctx = bc.forward;
  std::vector<std::vector<int64_t>> dims;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) dims.push_back(ctx.has(i) ? ctx.in(i).dims : std::vector<int64_t>{});
  auto l = describe_recurrent(ctx.node, cell, dims);
  if (auto why = recurrent_backward_refusal(l, ctx.has(7)); !why.empty()) ctx.fail(why);
  const bool lstm = cell == RecurrentCell::kLstm, gru = cell == RecurrentCell::kGru;
  const int64_t rows = l.seq * l.batch, gh = l.gates * l.hidden, state = l.state();
  std::vector<GpuTensor> held;
  auto fp32 = [&](int64_t n) {
    held.push_back(ctx.scratch(graph::DType::kFloat32, {n > 0 ? n : 1}));
    return held.back().as<float>();
  };
  GpuOps ops{ctx, compute_type(ctx.options.precision), {}};
  Record record;
  record.pre = fp32(l.directions * rows * gh);
  record.h_from = fp32(l.directions * rows * l.hidden);
  ops.fill(record.h_from, l.directions * rows * l.hidden, 0.f);  // rows past their length stay 0 in dR's product
  if (gru) record.hidden_n = fp32(l.directions * rows * l.hidden);
  if (lstm) record.c_from = fp32(l.directions * rows * l.hidden);
  run(ctx, cell, false, &record);

  RecurrentGradBuffers g;
  g.x = ctx.float_input(0).as<float>();
  g.w = ctx.float_input(1).as<float>();
  g.r = ctx.float_input(2).as<float>();
  g.pre = record.pre, g.hidden_n = record.hidden_n, g.h_from = record.h_from, g.c_from = record.c_from;
  if (ctx.has(4)) g.lens = ctx.in(4).as<int32_t>();
  auto output_grad = [&](size_t i) -> const float* {
    return i < bc.output_grads.size() && bc.output_grads[i].defined() ? bc.output_grads[i].as<float>() : nullptr;
  };
  g.dy = output_grad(0), g.dy_h = output_grad(1), g.dy_c = lstm ? output_grad(2) : nullptr;
  auto wanted = [&](size_t i) { return ctx.has(i) && bc.wants(i) ? bc.grad(i).as<float>() : nullptr; };
  g.dx = wanted(0), g.dw = wanted(1), g.dr = wanted(2), g.db = wanted(3), g.dh0 = wanted(5);
  if (lstm) g.dc0 = wanted(6);
  g.dgx_rows = fp32(rows * gh);
  g.dgh_rows = gru ? fp32(rows * gh) : g.dgx_rows;
  g.dgh_step = fp32(l.batch * gh);
  g.dh[0] = fp32(state), g.dh[1] = fp32(state);
  if (lstm) g.dc[0] = fp32(state), g.dc[1] = fp32(state);
  auto* ones = fp32(rows);
  ops.fill(ones, rows, 1.f);
  g.ones = ones;
  run_recurrent_backward(l, g, ops);
}

// The refusal before the first step, from the node's attributes and its inputs' inferred dims.
std::string refusal(const graph::Graph& g, const graph::Node& node, RecurrentCell cell) {
  std::vector<std::vector<int64_t>> dims;
  for (auto id : node.inputs) {
    dims.emplace_back();
    if (id == graph::kNoValue) continue;
    for (const auto& d : g.value(id).shape) dims.back().push_back(d.value);
  }
  auto l = describe_recurrent(node, cell, dims);
  return recurrent_backward_refusal(l, dims.size() > 7 && !dims[7].empty());
}

std::string rnn_refusal(const graph::Graph& g, const graph::Node& n) { return refusal(g, n, RecurrentCell::kRnn); }
std::string gru_refusal(const graph::Graph& g, const graph::Node& n) { return refusal(g, n, RecurrentCell::kGru); }
std::string lstm_refusal(const graph::Graph& g, const graph::Node& n) { return refusal(g, n, RecurrentCell::kLstm); }

void rnn_backward(BackwardContext& b) { backward(b, RecurrentCell::kRnn); }
void gru_backward(BackwardContext& b) { backward(b, RecurrentCell::kGru); }
void lstm_backward(BackwardContext& b) { backward(b, RecurrentCell::kLstm); }

}  // namespace

std::string recurrent_backward_refusal(const RecurrentLayer& l, bool peepholes) {
  if (peepholes) return "the GPU training step does not differentiate an LSTM's peepholes (input P)";
  if (l.input_forget) return "the GPU training step does not differentiate an LSTM with input_forget";
  if (l.two_phase)
    return "the GPU training step differentiates GRU with linear_before_reset = 1 only (as PyTorch's GRU exports)";
  return "";
}

void register_recurrent_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("recurrent", {{"RNN", rnn}, {"GRU", gru}, {"LSTM", lstm}});
  // clang-format on
}

void register_recurrent_backward(BackwardRegistry& r) {
  r.add("recurrent", {{"RNN", rnn_backward, {}, rnn_refusal},
                      {"GRU", gru_backward, {}, gru_refusal},
                      {"LSTM", lstm_backward, {}, lstm_refusal}});
}

}  // namespace ridge::exec::cuda
