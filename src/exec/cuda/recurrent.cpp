// RNN, GRU and LSTM on the GPU, as the CPU executor runs them (src/exec/aten/kernels/recurrent.cpp): X W^T for every
// step of a direction in one cuBLAS product, then per step h R^T (cuBLAS) and one kernel for the gates and the state
// (recurrent_kernels.h); GRU without linear_before_reset takes a second product per step for (r . h) R_h^T.
// Forward, reverse and bidirectional, sequence lengths, initial states, clip, LSTM peepholes and input_forget, and
// ONNX's activation list. Products in the precision's math (fp16/bf16: weights converted once, the step's operand per
// step; fp32 accumulation and state). Either layout: [seq, batch, ...] (layout 0, what PyTorch exports) or batch
// first (layout 1), read and written through strides.
#include <fmt/format.h>

#include <utility>

#include "exec/cuda/op_kernel.h"
#include "exec/cuda/recurrent_kernels.h"
#include "sys/cuda/check.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

graph::DType operand_type(Precision p) {
  if (p == Precision::kFp16) return graph::DType::kFloat16;
  if (p == Precision::kBf16) return graph::DType::kBFloat16;
  return graph::DType::kFloat32;
}

cudaDataType_t cuda_type(graph::DType t) {
  if (t == graph::DType::kFloat16) return CUDA_R_16F;
  if (t == graph::DType::kBFloat16) return CUDA_R_16BF;
  return CUDA_R_32F;
}

struct RecurrentState : NodeState {
  GpuTensor w, r;  // W and R in the operand type, converted once (a constant weight)
};

// `t` in the operand type: itself in fp32 and tf32, else a converted copy (kept in `kept` for a constant weight).
GpuTensor operand(KernelContext& ctx, const GpuTensor& t, size_t input, GpuTensor* kept) {
  auto type = operand_type(ctx.options.precision);
  if (t.dtype == type) return t;
  if (kept && kept->defined()) return *kept;
  auto out = ctx.scratch(type, t.dims);
  if (!cast(t.dtype, t.data(), type, out.data(), t.numel(), ctx.gpu.stream())) ctx.fail("cannot convert the operand");
  ctx.check_launch("cast");
  if (kept && ctx.input_is_unchanging(input)) *kept = out;
  return out;
}

// C[rows, n] (fp32, row-major) = A[rows, k] B[n, k]^T, both operands row-major in `type`: ONNX stores W and R with a
// gate's unit per row, so a row of C holds every gate of one batch row.
void product(KernelContext& ctx, const void* a, const void* b, graph::DType type, float* c, int64_t rows, int64_t n,
             int64_t k) {
  if (rows == 0 || n == 0) return;
  if (k == 0) {
    fill(c, rows * n, 0.f, ctx.gpu.stream());
    ctx.check_launch("an empty product");
    return;
  }
  constexpr int64_t kMax = (int64_t{1} << 31) - 1;
  if (rows > kMax || n > kMax || k > kMax) ctx.fail("a recurrent product's dim is above 2^31 - 1 (cuBLAS's int)");
  float one = 1.f, zero = 0.f;
  auto compute = ctx.options.precision == Precision::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  // Column-major, C^T = B A^T: B's rows are columns of its stored transpose.
  check(cublasGemmEx(ctx.gpu.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(rows),
                     static_cast<int>(k), &one, b, cuda_type(type), static_cast<int>(k), a, cuda_type(type),
                     static_cast<int>(k), &zero, c, CUDA_R_32F, static_cast<int>(n), compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx (recurrent)");
}

RecurrentActivation activation(const KernelContext& ctx, const std::string& name, float alpha, float beta) {
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
  ctx.fail("unsupported recurrent activation " + name);
}

// The activations of every direction, with the defaults and the alpha/beta rule of the CPU executor.
std::vector<RecurrentActivation> activations(const KernelContext& ctx, const std::vector<std::string>& defaults,
                                             int64_t directions) {
  const auto* names = ctx.node.attribute("activations");
  const auto* alphas = ctx.node.attribute("activation_alpha");
  const auto* betas = ctx.node.attribute("activation_beta");
  std::vector<std::string> list = names ? names->strings : std::vector<std::string>{};
  if (list.empty())
    for (int64_t d = 0; d < directions; ++d) list.insert(list.end(), defaults.begin(), defaults.end());
  if (list.size() != defaults.size() * static_cast<size_t>(directions))
    ctx.fail(fmt::format("{} activations for {} directions of {} each", list.size(), directions, defaults.size()));
  std::vector<RecurrentActivation> out;
  for (size_t i = 0; i < list.size(); ++i) {
    float alpha = alphas && i < alphas->floats.size() ? alphas->floats[i] : (list[i] == "LeakyRelu" ? 0.01f : 1.f);
    float beta = betas && i < betas->floats.size() ? betas->floats[i] : 0.f;
    if (list[i] == "HardSigmoid" && !alphas) alpha = 0.2f;
    if (list[i] == "HardSigmoid" && !betas) beta = 0.5f;
    out.push_back(activation(ctx, list[i], alpha, beta));
  }
  return out;
}

// `rows` rows of `width` floats between tensors whose rows lie `to_pitch` and `from_pitch` floats apart: a direction's
// state [batch, hidden] out of or into [directions, batch, hidden] (pitch hidden) or batch first [batch, directions,
// hidden] (pitch directions x hidden).
void copy_rows(KernelContext& ctx, float* to, int64_t to_pitch, const float* from, int64_t from_pitch, int64_t rows,
               int64_t width) {
  if (rows == 0 || width == 0) return;
  constexpr size_t kFloat = sizeof(float);
  check(cudaMemcpy2DAsync(to, static_cast<size_t>(to_pitch) * kFloat, from, static_cast<size_t>(from_pitch) * kFloat,
                          static_cast<size_t>(width) * kFloat, static_cast<size_t>(rows), cudaMemcpyDeviceToDevice,
                          ctx.gpu.stream()),
        "cudaMemcpy2DAsync (recurrent state)");
}

void run_recurrent(KernelContext& ctx, RecurrentCell cell) {
  const int64_t gates = cell == RecurrentCell::kRnn ? 1 : (cell == RecurrentCell::kGru ? 3 : 4);
  const std::vector<std::string> defaults = cell == RecurrentCell::kRnn ? std::vector<std::string>{"Tanh"}
                                            : cell == RecurrentCell::kGru
                                                ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  const bool batch_first = ctx.node.get_int("layout", 0) == 1;
  const auto& x = ctx.float_input(0);
  const auto& w = ctx.float_input(1);
  const auto& r = ctx.float_input(2);
  if (x.dims.size() != 3 || w.dims.size() != 3 || r.dims.size() != 3) ctx.fail("X, W and R must be 3-D");
  const int64_t seq = x.dims[batch_first ? 1 : 0], batch = x.dims[batch_first ? 0 : 1], input = x.dims[2];
  const int64_t directions = w.dims[0], hidden = r.dims[2];
  if (w.dims[1] != gates * hidden || w.dims[2] != input || r.dims[0] != directions || r.dims[1] != gates * hidden)
    ctx.fail(fmt::format("W is [{}, {}, {}] and R [{}, {}, {}]: not {} gates of {} units over {} inputs", w.dims[0],
                         w.dims[1], w.dims[2], r.dims[0], r.dims[1], r.dims[2], gates, hidden, input));
  auto direction = ctx.node.get_string("direction", "forward");
  if ((direction == "bidirectional") != (directions == 2) || directions < 1 || directions > 2)
    ctx.fail(fmt::format("direction {} with {} directions of weights", direction, directions));
  auto acts = activations(ctx, defaults, directions);
  const auto* bias = ctx.has(3) ? &ctx.float_input(3) : nullptr;
  if (bias && bias->numel() != directions * 2 * gates * hidden) ctx.fail("B is not [directions, 2 x gates x hidden]");
  const int32_t* lens = nullptr;
  if (ctx.has(4)) {
    const auto& l = ctx.in(4);
    if (l.dtype != graph::DType::kInt32 || l.numel() != batch) ctx.fail("sequence_lens must be int32 [batch]");
    lens = l.as<int32_t>();
  }
  const auto* h0 = ctx.has(5) ? &ctx.float_input(5) : nullptr;
  const bool lstm = cell == RecurrentCell::kLstm;
  const auto* c0 = lstm && ctx.has(6) ? &ctx.float_input(6) : nullptr;
  const auto* peephole = lstm && ctx.has(7) ? &ctx.float_input(7) : nullptr;
  const int64_t state = batch * hidden;
  for (const auto* t : {h0, c0})
    if (t && t->numel() != directions * state) ctx.fail("an initial state is not [directions, batch, hidden]");
  if (peephole && peephole->numel() != directions * 3 * hidden) ctx.fail("P is not [directions, 3 x hidden]");

  auto stream = ctx.gpu.stream();
  float* y = nullptr;
  if (ctx.wants_output(0)) {
    auto& out = ctx.allocate_output(0);
    y = out.as<float>();
    // With sequence lengths, a row's steps past its end are zeros; every other element is written.
    if (lens && out.bytes() > 0) check(cudaMemsetAsync(y, 0, out.bytes(), stream), "cudaMemsetAsync (Y)");
  }
  float* y_h = ctx.wants_output(1) ? ctx.allocate_output(1).as<float>() : nullptr;
  float* y_c = lstm && ctx.wants_output(2) ? ctx.allocate_output(2).as<float>() : nullptr;

  auto type = operand_type(ctx.options.precision);
  auto& kept = ctx.cached<RecurrentState>();
  auto w_op = operand(ctx, w, 1, &kept.w);
  auto r_op = operand(ctx, r, 2, &kept.r);
  auto x_op = operand(ctx, x, 0, nullptr);
  const size_t element = static_cast<size_t>(graph::dtype_bytes(type, 1));
  const bool two_phase = cell == RecurrentCell::kGru && ctx.node.get_int("linear_before_reset", 0) == 0;
  // Scratch of at least one element: the allocator hands out no block for none.
  auto scratch = [&](graph::DType t, int64_t n) { return ctx.scratch(t, {n > 0 ? n : 1}); };
  auto xw = scratch(graph::DType::kFloat32, seq * batch * gates * hidden);
  auto hr = scratch(graph::DType::kFloat32, batch * gates * hidden);
  GpuTensor h[2] = {scratch(graph::DType::kFloat32, state), scratch(graph::DType::kFloat32, state)};
  GpuTensor c[2];
  if (lstm) c[0] = scratch(graph::DType::kFloat32, state), c[1] = scratch(graph::DType::kFloat32, state);
  GpuTensor gate, reset_hidden, step_operand;
  if (two_phase) gate = scratch(graph::DType::kFloat32, state), reset_hidden = scratch(graph::DType::kFloat32, state);
  if (type != graph::DType::kFloat32) step_operand = scratch(type, state);
  // The step's operand in the product's type: the fp32 state itself, or its 16-bit copy.
  auto as_operand = [&](const GpuTensor& fp32) -> const void* {
    if (type == graph::DType::kFloat32) return fp32.data();
    if (!cast(graph::DType::kFloat32, fp32.data(), type, step_operand.data(), state, stream))
      ctx.fail("cannot convert the hidden state");
    ctx.check_launch("cast");
    return step_operand.data();
  };

  const float clip = static_cast<float>(ctx.node.get_float("clip", 0.0));
  // Where direction d's state starts in [directions, batch, hidden] or [batch, directions, hidden], and its rows'
  // pitch.
  const int64_t state_pitch = batch_first ? directions * hidden : hidden;
  auto state_offset = [&](int64_t d) { return batch_first ? d * hidden : d * state; };
  const size_t per_direction = defaults.size();
  for (int64_t d = 0; d < directions; ++d) {
    const bool reverse = direction == "reverse" || (direction == "bidirectional" && d == 1);
    const char* w_d = static_cast<const char*>(w_op.data()) + static_cast<size_t>(d * gates * hidden * input) * element;
    const char* r_d =
        static_cast<const char*>(r_op.data()) + static_cast<size_t>(d * gates * hidden * hidden) * element;
    product(ctx, x_op.data(), w_d, type, xw.as<float>(), seq * batch, gates * hidden, input);
    if (h0)
      copy_rows(ctx, h[0].as<float>(), hidden, h0->as<float>() + state_offset(d), state_pitch, batch, hidden);
    else
      fill(h[0].as<float>(), state, 0.f, stream);
    if (lstm) {
      if (c0)
        copy_rows(ctx, c[0].as<float>(), hidden, c0->as<float>() + state_offset(d), state_pitch, batch, hidden);
      else
        fill(c[0].as<float>(), state, 0.f, stream);
    }
    ctx.check_launch("the initial state");
    RecurrentStep s;
    s.cell = cell;
    s.batch = batch;
    s.hidden = hidden;
    s.seq = seq;
    s.reverse = reverse;
    s.xw = xw.as<float>();
    s.xw_time = batch_first ? 1 : batch;
    s.xw_batch = batch_first ? seq : 1;
    s.hr = hr.as<float>();
    s.wb = bias ? bias->as<float>() + d * 2 * gates * hidden : nullptr;
    s.rb = bias ? s.wb + gates * hidden : nullptr;
    s.peephole = peephole ? peephole->as<float>() + d * 3 * hidden : nullptr;
    s.lens = lens;
    // Y is [seq, directions, batch, hidden], or [batch, seq, directions, hidden] batch first.
    s.y = y ? y + (batch_first ? d * hidden : d * state) : nullptr;
    s.y_time = batch_first ? directions * hidden : directions * state;
    s.y_batch = batch_first ? seq * directions * hidden : hidden;
    s.clip = clip;
    s.input_forget = ctx.node.get_int("input_forget", 0) != 0;
    s.linear_before_reset = !two_phase;
    s.f = acts[static_cast<size_t>(d) * per_direction];
    if (per_direction > 1) s.g = acts[static_cast<size_t>(d) * per_direction + 1];
    if (per_direction > 2) s.h = acts[static_cast<size_t>(d) * per_direction + 2];
    s.gate = two_phase ? gate.as<float>() : nullptr;
    s.reset_hidden = two_phase ? reset_hidden.as<float>() : nullptr;
    int cur = 0;
    for (int64_t step = 0; step < seq; ++step) {
      s.step = step;
      s.h_prev = h[cur].as<float>();
      s.h_next = h[1 - cur].as<float>();
      s.c_prev = lstm ? c[cur].as<float>() : nullptr;
      s.c_next = lstm ? c[1 - cur].as<float>() : nullptr;
      if (two_phase) {
        // z and r from the first two gates' rows of R; then (r . h) against the candidate's rows.
        product(ctx, as_operand(h[cur]), r_d, type, hr.as<float>(), batch, 2 * hidden, hidden);
        s.phase = 1;
        recurrent_step(s, stream);
        ctx.check_launch("the GRU's gates");
        product(ctx, as_operand(reset_hidden), r_d + static_cast<size_t>(2 * hidden * hidden) * element, type,
                hr.as<float>(), batch, hidden, hidden);
        s.phase = 2;
      } else {
        product(ctx, as_operand(h[cur]), r_d, type, hr.as<float>(), batch, gates * hidden, hidden);
        s.phase = 0;
      }
      recurrent_step(s, stream);
      ctx.check_launch("the recurrent step");
      cur = 1 - cur;
    }
    if (y_h) copy_rows(ctx, y_h + state_offset(d), state_pitch, h[cur].as<float>(), hidden, batch, hidden);
    if (y_c) copy_rows(ctx, y_c + state_offset(d), state_pitch, c[cur].as<float>(), hidden, batch, hidden);
  }
}

void rnn(KernelContext& ctx) { run_recurrent(ctx, RecurrentCell::kRnn); }
void gru(KernelContext& ctx) { run_recurrent(ctx, RecurrentCell::kGru); }
void lstm(KernelContext& ctx) { run_recurrent(ctx, RecurrentCell::kLstm); }

}  // namespace

void register_recurrent_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("recurrent", {{"RNN", rnn}, {"GRU", gru}, {"LSTM", lstm}});
  // clang-format on
}

}  // namespace ridge::exec::cuda
