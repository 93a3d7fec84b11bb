// Matrix products: MatMul, Gemm, Einsum, Det, and the integer MatMul.
//
// fp32 products with a constant 2-D weight (fully connected layers) run on oneDNN's inner-product
// kernel, with the weight reordered into oneDNN's layout once and reused: on this class of CPU
// it ran these shapes about twice as fast as the BLAS ATen uses (docs/benchmarks.md). Training
// (gradients recorded) and autocast keep ATen's own path.
#include <ATen/autocast_mode.h>

#include "exec/aten/interpreter.h"
#include "exec/aten/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

// The weight (input `i`, a constant) as oneDNN's [N, K] inner-product weight, made once.
at::Tensor onednn_weight(C& c, size_t i, bool already_n_by_k) {
  auto what = already_n_by_k ? Interpreter::Derived::kLinearWeight : Interpreter::Derived::kLinearWeightTransposed;
  return c.interpreter.cached(&c.graph.value(c.node.inputs[i]), what, [&] {
    const auto& w = c.in(i);
    return (already_n_by_k ? w : w.t()).contiguous().to_mkldnn();
  });
}

at::Tensor onednn_bias(C& c, size_t i) {
  if (!c.has(i)) return {};
  return c.interpreter.cached(&c.graph.value(c.node.inputs[i]), Interpreter::Derived::kBias,
                              [&] { return c.in(i).contiguous().to_mkldnn(); });
}

bool onednn_applies(const C& c, const at::Tensor& x, size_t weight) {
  const auto& w = c.in(weight);
  return at::hasMKLDNN() && !at::GradMode::is_enabled() && !at::autocast::is_cpu_enabled() &&
         x.scalar_type() == at::kFloat && w.scalar_type() == at::kFloat && w.dim() == 2 && x.dim() >= 2 &&
         x.size(-1) == w.size(0) && c.is_constant(weight) && x.numel() > 0;
}

// x[..., K] x W[K, N] (+ bias[N]) on oneDNN.
at::Tensor onednn_linear(const at::Tensor& x, const at::Tensor& w_nk, const at::Tensor& bias) {
  int64_t k = x.size(-1);
  auto x2 = (x.is_mkldnn() ? x.to_dense() : x).reshape({-1, k}).contiguous().to_mkldnn();
  auto y = at::mkldnn_linear(x2, w_nk, bias).to_dense();
  auto shape = x.sizes().vec();
  shape.back() = w_nk.size(0);
  return y.reshape(shape);
}

void matmul(C& c) {
  const auto& x = c.in(0);
  // A third input is the bias optimized mode fused in from the Add that followed.
  bool fused_bias = c.inputs.size() > 2 && c.has(2);
  if (onednn_applies(c, x, 1) && (!fused_bias || (c.in(2).dim() == 1 && c.is_constant(2)))) {
    c.set(0, onednn_linear(x, onednn_weight(c, 1, false), fused_bias ? onednn_bias(c, 2) : at::Tensor()));
    return;
  }
  auto y = at::matmul(x, c.in(1));
  c.set(0, fused_bias ? y + c.in(2) : y);
}

void gemm(C& c) {
  at::Tensor a = c.in(0), b = c.in(1);
  bool trans_b = c.node.get_int("transB", 0) != 0;
  bool plain = !c.node.get_int("transA", 0) && c.node.get_float("alpha", 1.0) == 1.0 &&
               (!c.has(2) || (c.node.get_float("beta", 1.0) == 1.0 && c.in(2).dim() == 1 && c.is_constant(2) &&
                              c.in(2).size(0) == (trans_b ? b.size(0) : b.size(1))));
  if (plain && a.dim() == 2 && a.scalar_type() == at::kFloat && b.scalar_type() == at::kFloat && at::hasMKLDNN() &&
      !at::GradMode::is_enabled() && !at::autocast::is_cpu_enabled() && c.is_constant(1)) {
    c.set(0, onednn_linear(a, onednn_weight(c, 1, trans_b), onednn_bias(c, 2)));
    return;
  }
  if (c.node.get_int("transA", 0)) a = a.t();
  if (c.node.get_int("transB", 0)) b = b.t();
  double alpha = c.node.get_float("alpha", 1.0), beta = c.node.get_float("beta", 1.0);
  if (c.has(2) && beta != 0) {
    // addmm broadcasts C over the product, as Gemm's unidirectional broadcast does.
    c.set(0, at::addmm(c.in(2).to(a.scalar_type()), a, b, beta, alpha));
    return;
  }
  auto y = at::mm(a, b);
  c.set(0, alpha == 1.0 ? y : y * alpha);
}

void matmul_integer(C& c) {
  auto a = c.in(0).to(at::kInt), b = c.in(1).to(at::kInt);
  if (c.has(2)) a = a - c.in(2).to(at::kInt);
  if (c.has(3)) b = b - c.in(3).to(at::kInt);
  // ATen has no integer GEMM on the CPU; int32 products of 8-bit values are exact in double.
  c.set(0, at::matmul(a.to(at::kDouble), b.to(at::kDouble)).to(at::kInt));
}

void einsum(C& c) {
  std::vector<at::Tensor> operands(c.inputs.begin(), c.inputs.end());
  c.set(0, at::einsum(c.node.get_string("equation", ""), operands));
}

}  // namespace

void register_matmul_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("matmul", {
    {"MatMul", matmul},
    {"Gemm", gemm},
    {"MatMulInteger", matmul_integer},
    {"Einsum", einsum},
    {"Det", [](C& c) { c.set(0, at::linalg_det(c.in(0))); }},
  });
  // clang-format on
}

}  // namespace ridge::exec::aten
