// Matrix products: MatMul, Gemm, Einsum, Det, and the integer MatMul.
#include "exec/aten/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

void gemm(C& c) {
  at::Tensor a = c.in(0), b = c.in(1);
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
    {"MatMul", [](C& c) { c.set(0, at::matmul(c.in(0), c.in(1))); }},
    {"Gemm", gemm},
    {"MatMulInteger", matmul_integer},
    {"Einsum", einsum},
    {"Det", [](C& c) { c.set(0, at::linalg_det(c.in(0))); }},
  });
  // clang-format on
}

}  // namespace ridge::exec::aten
