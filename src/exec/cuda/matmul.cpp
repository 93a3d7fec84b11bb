// Gemm, MatMul and Einsum on cuBLAS (cublasGemmStridedBatchedEx): fp32 (FMA), tf32 (tensor cores,
// CUBLAS_COMPUTE_32F_FAST_TF32), fp16 and bf16 (inputs converted, fp32 output and accumulation).
// Row-major ONNX tensors are column-major transposes, so C^T = B^T A^T is what cuBLAS computes.
// In optimized mode a product may read its operands and write its output through strides (exec/product_views.h:
// attention's transposes and scaling absorbed), in one or a few strided batched calls (exec/cuda/product_plan.h).
// In optimized mode a product may carry its epilogue (exec/optimized_graph.h): a MatMul's bias as input 2 and an
// activation, applied to the fp32 output by one kernel after the product (kernels.h: epilogue). cuBLASLt's epilogues
// would save that pass too, but its GELU is the tanh approximation only, and the erf form is what the models export.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "exec/cuda/backward.h"
#include "exec/cuda/compute_type.h"
#include "exec/cuda/det_kernels.h"
#include "exec/cuda/einsum_plan.h"
#include "exec/cuda/epilogue.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/product_plan.h"
#include "exec/cuda/reduce_kernels.h"
#include "exec/cuda/reduce_plan.h"
#include "exec/cuda/training_kernels.h"
#include "exec/optimized_graph.h"
#include "exec/product_views.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

struct Product {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool trans_a = false, trans_b = false;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // elements between batch items (0: broadcast)
};

// A constant (weight) converted once and kept; an activation converted per run. The epilogue's activation, read
// from the node's attributes on the first run.
struct ProductState : NodeState {
  GpuTensor converted_b, converted_a;
  std::optional<LayerActivation> activation;
};

GpuTensor as_compute(KernelContext& ctx, const GpuTensor& t, size_t input, GpuTensor& kept) {
  auto type = compute_type(ctx.options.precision);
  if (t.dtype == type) return t;
  if (kept.defined()) return kept;
  auto out = ctx.scratch(type, t.dims);
  if (!cast(t.dtype, t.data(), type, out.data(), t.numel(), ctx.gpu.stream())) ctx.fail("cannot convert the operand");
  ctx.check_launch("cast");
  if (ctx.input_is_unchanging(input)) kept = out;
  return out;
}

// One cublasGemmStridedBatchedEx in cuBLAS's column-major terms (product_plan.h), accumulated in fp32 (TF32 tensor
// cores where the precision asks).
void launch(KernelContext& ctx, const GemmCall& c, const void* x, const void* y, cudaDataType in, void* out,
            cudaDataType out_type, float alpha, float beta, const char* what) {
  auto compute = ctx.options.precision == Precision::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  check(cublasGemmStridedBatchedEx(ctx.gpu.cublas(), c.trans_x ? CUBLAS_OP_T : CUBLAS_OP_N,
                                   c.trans_y ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(c.m), static_cast<int>(c.n),
                                   static_cast<int>(c.k), &alpha, x, in, static_cast<int>(c.ldx), c.stride_x, y, in,
                                   static_cast<int>(c.ldy), c.stride_y, &beta, out, out_type, static_cast<int>(c.ldc),
                                   c.stride_c, static_cast<int>(c.batch), compute, CUBLAS_GEMM_DEFAULT),
        what);
}

// The layer's epilogue, when optimized mode gave it one: Y = activation(Y + bias) over Y's rows of n (Y fp32, or the
// 16-bit type the run keeps activations in).
void apply_epilogue(KernelContext& ctx, GpuTensor& y, int64_t n, const GpuTensor* bias) {
  auto& state = ctx.cached<ProductState>();
  if (!state.activation) state.activation = layer_activation(ctx);
  if (!bias && state.activation->op == EpilogueOp::kNone) return;
  if (bias && (bias->dtype != graph::DType::kFloat32 || bias->numel() != n))
    ctx.fail(fmt::format("the fused bias has {} values for {} columns (fp32 expected)", bias->numel(), n));
  auto e = state.activation->epilogue();
  e.bias = bias ? bias->as<float>() : nullptr;
  e.channels = std::max<int64_t>(n, 1);
  e.type = element_type_of(y.dtype);
  epilogue(y.data(), y.numel(), e, ctx.gpu.stream());
  ctx.check_launch("the product's bias and activation");
}

// C (row-major [batch, m, n], fp32 or the 16-bit type the run keeps activations in: `c_type`) = alpha * op(A) op(B)
// + beta * C, accumulated in fp32 (cuBLAS writes a 16-bit C from its fp32 sums).
void multiply(KernelContext& ctx, const Product& p, const GpuTensor& a, const GpuTensor& b, void* c,
              graph::DType c_type, float alpha, float beta) {
  if (p.m == 0 || p.n == 0 || p.batch == 0) return;
  if (p.k == 0) {  // an empty sum: C = beta * C (cuBLAS refuses leading dims of 0); zero bits are 0 in every type
    if (beta == 0.f)
      check(
          cudaMemsetAsync(c, 0, static_cast<size_t>(graph::dtype_bytes(c_type, p.m * p.n * p.batch)), ctx.gpu.stream()),
          "an empty product");
    if (beta != 0.f && beta != 1.f) ctx.fail("an empty product (K = 0) with beta other than 0 or 1");
    return;
  }
  auto& state = ctx.cached<ProductState>();
  auto ca = as_compute(ctx, a, 0, state.converted_a);
  auto cb = as_compute(ctx, b, 1, state.converted_b);
  auto call = row_major_call(p.trans_a, p.trans_b, p.m, p.n, p.k, p.batch, p.stride_a, p.stride_b, p.stride_c);
  launch(ctx, call, cb.data(), ca.data(), cuda_type(ca.dtype), c, cuda_type(c_type), alpha, beta,
         "cublasGemmStridedBatchedEx");
}

void check_int(KernelContext& ctx, const Product& p) {
  constexpr int64_t kMax = (int64_t{1} << 31) - 1;
  if (p.m > kMax || p.n > kMax || p.k > kMax || p.batch > kMax) ctx.fail("a matrix dim above 2^31 - 1 (cuBLAS's int)");
}

void gemm(KernelContext& ctx) {
  const auto& a = ctx.activation(0);
  const auto& b = ctx.activation(1);
  if (a.dims.size() != 2 || b.dims.size() != 2) ctx.fail("Gemm takes 2-D A and B");
  Product p;
  p.trans_a = ctx.node.get_int("transA", 0) != 0;
  p.trans_b = ctx.node.get_int("transB", 0) != 0;
  p.m = p.trans_a ? a.dims[1] : a.dims[0];
  p.k = p.trans_a ? a.dims[0] : a.dims[1];
  p.n = p.trans_b ? b.dims[0] : b.dims[1];
  if ((p.trans_b ? b.dims[1] : b.dims[0]) != p.k) ctx.fail("A's and B's inner dims differ");
  check_int(ctx, p);
  auto alpha = static_cast<float>(ctx.node.get_float("alpha", 1.0));
  auto beta = static_cast<float>(ctx.node.get_float("beta", 1.0));
  auto& y = ctx.allocate_output(0);
  if (!ctx.has(2) || beta == 0.f) {
    multiply(ctx, p, a, b, y.data(), y.dtype, alpha, 0.f);
    apply_epilogue(ctx, y, p.n, nullptr);
    return;
  }
  const auto& c = ctx.float_input(2);  // fp32, as the weights
  if (y.dtype != graph::DType::kFloat32 && beta == 1.f && c.numel() == p.n && !c.dims.empty() && c.dims.back() == p.n) {
    // A 16-bit output with a bias per column (a classifier's): the product, then the bias in the epilogue's pass.
    multiply(ctx, p, a, b, y.data(), y.dtype, alpha, 0.f);
    apply_epilogue(ctx, y, p.n, &c);
    return;
  }
  // C broadcast into the output, which the product accumulates onto (in fp32, converted where the output is 16-bit).
  GpuTensor sum = y.dtype == graph::DType::kFloat32 ? y : ctx.scratch(graph::DType::kFloat32, y.dims);
  strided_copy(c.data(), broadcast_layout(c.dims, sum.dims), 0, sum.data(), sum.numel(), 4, ctx.gpu.stream());
  ctx.check_launch("broadcasting C");
  multiply(ctx, p, a, b, sum.data(), sum.dtype, alpha, beta);
  if (sum.data() != y.data()) {
    cast(sum.dtype, sum.data(), y.dtype, y.data(), y.numel(), ctx.gpu.stream());
    ctx.check_launch("cast");
  }
  apply_epilogue(ctx, y, p.n, nullptr);  // Gemm's bias is its C
}

bool reads_through_views(const graph::Node& node) {
  for (const char* name : {kPermAAttribute, kPermBAttribute, kPermYAttribute, kAlphaAttribute})
    if (node.has(name)) return true;
  return false;
}

// A MatMul the optimized graph gave strides (exec/product_views.h): Y = alpha permute(A) permute(B), written through
// Y's permutation, in the calls product_plan.h plans for the dims this run has.
void strided_matmul(KernelContext& ctx) {
  const auto& a = ctx.activation(0);
  const auto& b = ctx.activation(1);
  auto& y = ctx.allocate_output(0);
  ProductLayout layout;
  try {
    layout = product_layout(a.dims, ctx.node.get_ints(kPermAAttribute), b.dims, ctx.node.get_ints(kPermBAttribute),
                            y.dims, ctx.node.get_ints(kPermYAttribute));
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
  if (y.numel() == 0) return;
  if (layout.k() == 0) {  // an empty sum: zero bits are 0 in every type
    check(cudaMemsetAsync(y.data(), 0, static_cast<size_t>(y.bytes()), ctx.gpu.stream()), "an empty product");
    return;
  }
  auto plan = plan_product_calls(layout, kMaxProductCalls);
  if (!plan)
    ctx.fail("internal: cuBLAS cannot read this product's strides (the optimized graph should not have made it)");
  auto& state = ctx.cached<ProductState>();
  auto ca = as_compute(ctx, a, 0, state.converted_a);
  auto cb = as_compute(ctx, b, 1, state.converted_b);
  auto in_bytes = graph::dtype_bytes(ca.dtype, 1), out_bytes = graph::dtype_bytes(y.dtype, 1);
  auto alpha = static_cast<float>(ctx.node.get_float(kAlphaAttribute, 1.0));
  const auto& c = plan->call;
  const auto* x = static_cast<const char*>((c.x_is_a ? ca : cb).data());
  const auto* w = static_cast<const char*>((c.x_is_a ? cb : ca).data());
  for (const auto& [off_a, off_b, off_y] : plan->offsets) {
    auto off_x = c.x_is_a ? off_a : off_b, off_w = c.x_is_a ? off_b : off_a;
    launch(ctx, c, x + off_x * in_bytes, w + off_w * in_bytes, cuda_type(ca.dtype),
           static_cast<char*>(y.data()) + off_y * out_bytes, cuda_type(y.dtype), alpha, 0.f,
           "cublasGemmStridedBatchedEx (strided views)");
  }
}

// MatMul with numpy semantics: 1-D operands promoted and their dim dropped, batch dims broadcast.
void matmul(KernelContext& ctx) {
  if (reads_through_views(ctx.node)) {
    strided_matmul(ctx);
    return;
  }
  auto a = ctx.activation(0);
  auto b = ctx.activation(1);
  if (a.dims.empty() || b.dims.empty()) ctx.fail("MatMul takes tensors of rank 1 or more");
  if (a.dims.size() == 1) a.dims.insert(a.dims.begin(), 1);
  if (b.dims.size() == 1) b.dims.push_back(1);
  Product p;
  p.m = a.dims[a.dims.size() - 2];
  p.k = a.dims.back();
  p.n = b.dims.back();
  if (b.dims[b.dims.size() - 2] != p.k)
    ctx.fail(fmt::format("inner dims {} and {} differ", p.k, b.dims[b.dims.size() - 2]));
  std::vector<int64_t> batch_a(a.dims.begin(), a.dims.end() - 2), batch_b(b.dims.begin(), b.dims.end() - 2);
  size_t rank = std::max(batch_a.size(), batch_b.size());
  batch_a.insert(batch_a.begin(), rank - batch_a.size(), 1);
  batch_b.insert(batch_b.begin(), rank - batch_b.size(), 1);
  std::vector<int64_t> batch(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (batch_a[i] != batch_b[i] && batch_a[i] != 1 && batch_b[i] != 1) ctx.fail("batch dims do not broadcast");
    batch[i] = std::max(batch_a[i], batch_b[i]);
  }
  int64_t count_a = 1, count_b = 1;
  for (size_t i = 0; i < rank; ++i) {
    count_a *= batch_a[i];
    count_b *= batch_b[i];
    p.batch *= batch[i];
  }
  auto& y = ctx.allocate_output(0);
  auto expand = [&](const GpuTensor& t, const std::vector<int64_t>& own, int64_t rows, int64_t cols) {
    std::vector<int64_t> from = own, to = batch;
    from.push_back(rows);
    from.push_back(cols);
    to.push_back(rows);
    to.push_back(cols);
    auto out = ctx.scratch(t.dtype, to);
    strided_copy(t.data(), broadcast_layout(from, to), 0, out.data(), out.numel(),
                 static_cast<int>(graph::dtype_bytes(t.dtype, 1)), ctx.gpu.stream());
    ctx.check_launch("broadcasting a MatMul operand");
    return out;
  };
  if (count_b == 1) {  // a weight: A's batch folds into its rows, one product
    p.m *= count_a;
    p.batch = 1;
  } else if (count_a == 1) {
    p.stride_b = p.k * p.n;
    p.stride_c = p.m * p.n;
  } else if (batch_a == batch_b) {
    p.stride_a = p.m * p.k;
    p.stride_b = p.k * p.n;
    p.stride_c = p.m * p.n;
  } else {  // both broadcast: expanded copies
    a = expand(a, batch_a, p.m, p.k);
    b = expand(b, batch_b, p.k, p.n);
    p.stride_a = p.m * p.k;
    p.stride_b = p.k * p.n;
    p.stride_c = p.m * p.n;
  }
  check_int(ctx, p);
  multiply(ctx, p, a, b, y.data(), y.dtype, 1.f, 0.f);
  apply_epilogue(ctx, y, p.n, ctx.has(2) ? &ctx.float_input(2) : nullptr);
}

// Row-major fp32 C[m, n] = alpha op(A)[m, k] op(B)[k, n] + beta C, `batch` times at the given strides (elements;
// 0: the same matrix for every item), in the precision's compute type: the backward's products (the forward's
// operands are in place: no conversion, no per-node cache).
void row_major_product(KernelContext& ctx, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                       const GpuTensor& a_fp32, const GpuTensor& b_fp32, float beta, float* c, int64_t batch = 1,
                       int64_t stride_a = 0, int64_t stride_b = 0, int64_t stride_c = 0) {
  Product p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.batch = batch;
  check_int(ctx, p);
  if (m == 0 || n == 0 || batch == 0) return;
  if (k == 0) {
    fill(c, m * n * batch, 0.f, ctx.gpu.stream());
    ctx.check_launch("an empty product");
    return;
  }
  // Mixed precision: the operands in the forward's 16-bit type (per call: weights change between steps), fp32
  // accumulation and an fp32 result, as autocast's backward products.
  // Converted per call, each operand into its own buffer: kept under input 0's index, B would be handed A's copy.
  GpuTensor kept_a, kept_b;
  auto a = as_compute(ctx, a_fp32, 0, kept_a), b = as_compute(ctx, b_fp32, 1, kept_b);
  launch(ctx, row_major_call(trans_a, trans_b, m, n, k, batch, stride_a, stride_b, stride_c), b.data(), a.data(),
         cuda_type(a.dtype), c, CUDA_R_32F, alpha, beta, "cublasGemmStridedBatchedEx (backward)");
}

// Einsum (einsum_plan.h): each operand copied dense in the order its step wants (not where it already is), the labels
// only it has and the output lacks summed by the reduction kernel; two operands' batched product on cuBLAS in the
// precision's compute type; the result reordered into the output. fp32 in and out.
// The plan, kept for the dims it was worked out for (the equation is parsed once, not every run).
struct EinsumState : NodeState {
  std::vector<std::vector<int64_t>> dims;
  EinsumPlan plan;
};

void einsum_op(KernelContext& ctx) {
  std::vector<std::vector<int64_t>> dims;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) dims.push_back(ctx.float_input(i).dims);
  auto& state = ctx.cached<EinsumState>();
  if (state.dims != dims || state.plan.stages.empty()) {
    state.plan = ctx.planned([&] { return einsum_plan(ctx.node.get_string("equation", ""), dims); });
    state.dims = dims;
  }
  const auto& plan = state.plan;
  auto& y = ctx.allocate_output(0, graph::DType::kFloat32, ctx.output_dims(0));
  if (y.numel() != plan.output_elements())
    ctx.fail(fmt::format("the output has {} elements, the equation makes {}", y.numel(), plan.output_elements()));
  if (y.numel() == 0) return;
  auto stream = ctx.gpu.stream();
  const bool one_step = !plan.product && !plan.reorders;  // one operand whose step writes the output itself
  std::vector<GpuTensor> results;
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const auto& s = plan.stages[i];
    GpuTensor t = ctx.float_input(i);
    if (s.copies) {
      auto dense = one_step && s.summed == 1 ? y : ctx.scratch(graph::DType::kFloat32, {s.kept_elements * s.summed});
      strided_copy(t.data(), s.copy, 0, dense.data(), s.kept_elements * s.summed, 4, stream);
      t = dense;
    }
    if (s.summed > 1) {
      auto sum = one_step ? y : ctx.scratch(graph::DType::kFloat32, {s.kept_elements});
      reduce(reduce_plan({s.kept_elements, s.summed}, {1}), ReduceOp::kSum, t.as<float>(), sum.as<float>(), nullptr,
             stream);
      t = sum;
    } else if (one_step && !s.copies) {  // the output is the operand as it is
      check(cudaMemcpyAsync(y.data(), t.data(), static_cast<size_t>(y.bytes()), cudaMemcpyDeviceToDevice, stream),
            "Einsum");
      t = y;
    }
    results.push_back(t);
  }
  GpuTensor result = results[0];
  if (plan.product) {
    result = plan.reorders ? ctx.scratch(graph::DType::kFloat32, {plan.batch * plan.m * plan.n}) : y;
    row_major_product(ctx, false, false, plan.m, plan.n, plan.k, 1.f, results[0], results[1], 0.f, result.as<float>(),
                      plan.batch, plan.m * plan.k, plan.k * plan.n, plan.m * plan.n);
  }
  if (plan.reorders) strided_copy(result.data(), plan.output, 0, y.data(), y.numel(), 4, stream);
  ctx.check_launch("Einsum");
}

// Det over [*, M, M]: a thread per matrix (det_kernels.h); fp32.
void det_op(KernelContext& ctx) {
  const auto& a = ctx.float_input(0);
  if (a.dims.size() < 2 || a.dims[a.dims.size() - 1] != a.dims[a.dims.size() - 2])
    ctx.fail(fmt::format("Det of dims {}: square matrices [*, M, M] expected", fmt::join(a.dims, "x")));
  const int64_t m = a.dims.back(), matrices = a.numel() / std::max<int64_t>(m * m, 1);
  auto& y = ctx.allocate_output(0, graph::DType::kFloat32, {a.dims.begin(), a.dims.end() - 2});
  if (m == 0) {  // an empty matrix's determinant is 1 (numpy's and ATen's)
    fill(y.as<float>(), y.numel(), 1.f, ctx.gpu.stream());
    ctx.check_launch("Det");
    return;
  }
  if (matrices == 0) return;
  auto work = ctx.scratch(graph::DType::kFloat64, {std::max<int64_t>(a.numel(), 1)});
  det(a.as<float>(), matrices, m, y.as<float>(), work.as<double>(), ctx.gpu.stream());
  ctx.check_launch("Det");
}

// MatMul's backward, numpy semantics: dA = dY B^T, dB = A^T dY per batch item, each summed over the batch dims its
// operand was broadcast along. A 2-D (weight) B folds A's batch into rows, so dB sums over it in the product.
void matmul_backward(BackwardContext& bc) {
  auto& ctx = bc.forward;
  const auto& a = ctx.float_input(0);
  const auto& b = ctx.float_input(1);
  if (a.dims.size() < 2 || b.dims.size() < 2) ctx.fail("a 1-D MatMul operand has no GPU backward");
  const auto& dy = bc.dy(0);
  int64_t m = a.dims[a.dims.size() - 2], k = a.dims.back(), n = b.dims.back();
  std::vector<int64_t> batch(dy.dims.begin(), dy.dims.end() - 2);
  int64_t items = 1;
  for (auto d : batch) items *= d;
  if (m * k == 0 || k * n == 0) {  // an empty product: nothing flowed through it
    for (size_t i : {size_t{0}, size_t{1}})
      if (bc.wants(i)) {
        auto& g = bc.grad(i);
        check(cudaMemsetAsync(g.data(), 0, g.bytes(), ctx.gpu.stream()), "an empty product's gradient");
      }
    return;
  }
  int64_t count_a = a.numel() / (m * k), count_b = b.numel() / (k * n);
  auto stream = ctx.gpu.stream();
  // An operand as a dense tensor over the full batch: itself where it already is, else an expanded copy.
  auto full = [&](const GpuTensor& t, int64_t rows, int64_t cols) {
    std::vector<int64_t> dims = batch;
    dims.push_back(rows);
    dims.push_back(cols);
    if (t.dims == dims) return t;
    auto out = ctx.scratch(graph::DType::kFloat32, dims);
    strided_copy(t.data(), broadcast_layout(t.dims, dims), 0, out.data(), out.numel(), 4, stream);
    ctx.check_launch("broadcasting a MatMul operand");
    return out;
  };
  if (count_b == 1) {  // as the forward: A's batch folded into rows
    int64_t rows = m * count_a;
    if (bc.wants(0)) row_major_product(ctx, false, true, rows, k, n, 1.f, dy, b, 0.f, bc.grad(0).as<float>());
    if (bc.wants(1)) {
      auto a_full = count_a == items ? a : full(a, m, k);
      row_major_product(ctx, true, false, k, n, m * items, 1.f, a_full, dy, 0.f, bc.grad(1).as<float>());
    }
    return;
  }
  if (bc.wants(0)) {  // dA (full batch) = dY [m, n] x B^T [n, k]
    auto b_full = full(b, k, n);
    std::vector<int64_t> dims = batch;
    dims.push_back(m);
    dims.push_back(k);
    auto da = ctx.scratch(graph::DType::kFloat32, dims);
    row_major_product(ctx, false, true, m, k, n, 1.f, dy, b_full, 0.f, da.as<float>(), items, m * n, k * n, m * k);
    bc.set_reduced_grad(0, da);
  }
  if (bc.wants(1)) {  // dB (full batch) = A^T [k, m] x dY [m, n]
    auto a_full = full(a, m, k);
    std::vector<int64_t> dims = batch;
    dims.push_back(k);
    dims.push_back(n);
    auto db = ctx.scratch(graph::DType::kFloat32, dims);
    row_major_product(ctx, true, false, k, n, m, 1.f, a_full, dy, 0.f, db.as<float>(), items, m * k, m * n, k * n);
    bc.set_reduced_grad(1, db);
  }
}

// Y = alpha A' B' + beta C with A' = op(A) [M, K], B' = op(B) [K, N]: dA' = alpha dY B'^T, dB' = alpha A'^T dY
// (transposed back where A or B is stored transposed), dC = beta dY summed over C's broadcast dims.
void gemm_backward(BackwardContext& bc) {
  auto& ctx = bc.forward;
  const auto& a = ctx.float_input(0);
  const auto& b = ctx.float_input(1);
  const auto& dy = bc.dy(0);
  bool ta = ctx.node.get_int("transA", 0) != 0, tb = ctx.node.get_int("transB", 0) != 0;
  int64_t m = ta ? a.dims[1] : a.dims[0], k = ta ? a.dims[0] : a.dims[1], n = tb ? b.dims[0] : b.dims[1];
  auto alpha = static_cast<float>(ctx.node.get_float("alpha", 1.0));
  auto beta = static_cast<float>(ctx.node.get_float("beta", 1.0));
  if (bc.wants(0)) {
    auto* da = bc.grad(0).as<float>();
    if (!ta)
      row_major_product(ctx, false, !tb, m, k, n, alpha, dy, b, 0.f, da);  // [M, N] x op(B)^T [N, K]
    else
      row_major_product(ctx, tb, true, k, m, n, alpha, b, dy, 0.f, da);  // op(B) [K, N] x dY^T [N, M]
  }
  if (bc.wants(1)) {
    auto* db = bc.grad(1).as<float>();
    if (!tb)
      row_major_product(ctx, !ta, false, k, n, m, alpha, a, dy, 0.f, db);  // op(A)^T [K, M] x dY [M, N]
    else
      row_major_product(ctx, true, ta, n, k, m, alpha, dy, a, 0.f, db);  // dY^T [N, M] x op(A) [M, K]
  }
  if (ctx.has(2) && bc.wants(2)) {
    if (beta == 0.f) {  // the forward never read C
      auto& dc = bc.grad(2);
      fill(dc.as<float>(), dc.numel(), 0.f, ctx.gpu.stream());
      ctx.check_launch("a zero gradient");
      return;
    }
    auto reduced = reduce_to(ctx, dy, ctx.in(2).dims);
    if (beta != 1.f) {
      auto scaled = ctx.scratch(graph::DType::kFloat32, reduced.dims);
      scale(reduced.as<float>(), scaled.as<float>(), reduced.numel(), beta, ctx.gpu.stream());
      ctx.check_launch("scaling C's gradient");
      reduced = scaled;
    }
    bc.set_grad(2, reduced);
  }
}

}  // namespace

void register_matmul_backward(BackwardRegistry& registry) {
  registry.add("matmul", {{"Gemm", gemm_backward}, {"MatMul", matmul_backward}});
}

void register_matmul_kernels(KernelRegistry& registry) {
  // Both operands in a run's 16-bit activations (a weight converted once); Gemm's C and a fused bias stay fp32.
  constexpr StorageInputs kAB = storage_input(0) | storage_input(1);
  registry.add("matmul", {{"Gemm", gemm, kAB}, {"MatMul", matmul, kAB}, {"Einsum", einsum_op}, {"Det", det_op}});
}

}  // namespace ridge::exec::cuda
