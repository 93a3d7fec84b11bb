// Matrix products: MatMul, Gemm, Einsum, Det, and the integer MatMul.
//
// fp32 products with a constant 2-D weight (fully connected layers) run on oneDNN's inner-product
// primitive (onednn.h), with the weight reordered into the primitive's layout once: on this class
// of CPU it ran these shapes about twice as fast as the BLAS ATen uses (docs/benchmarks.md), and
// ATen's own oneDNN linear reorders the weight on every call. Training (gradients recorded) and
// autocast keep ATen's own path.
#include "exec/aten/interpreter.h"
#include "exec/aten/kernels/kernel.h"
#include "exec/aten/onednn/onednn.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

// A fully connected layer on oneDNN when the weight (input `weight`) is a constant 2-D fp32 matrix
// and the bias (input `bias`, if any) a constant vector of its width; null otherwise.
OnednnLinear* onednn_layer(C& c, const at::Tensor& x, size_t weight, bool n_by_k, size_t bias) {
  const auto& w = c.in(weight);
  if (!onednn_usable(x, w) || w.dim() != 2 || x.dim() < 2 || !c.is_constant(weight)) return nullptr;
  int64_t n = w.size(n_by_k ? 0 : 1), k = w.size(n_by_k ? 1 : 0);
  if (x.size(-1) != k) return nullptr;
  if (c.has(bias) && !(c.is_constant(bias) && c.in(bias).dim() == 1 && c.in(bias).size(0) == n &&
                       c.in(bias).scalar_type() == at::kFloat))
    return nullptr;
  return &c.interpreter.kernel_state<OnednnLinear>(&c.node, [&] {
    return std::make_shared<OnednnLinear>(w, n_by_k, c.has(bias) ? c.in(bias) : at::Tensor(),
                                          c.interpreter.epilogue(c.graph, c.node));
  });
}

// The residual optimized mode fused into the layer (undefined when none).
at::Tensor residual(const C& c, const Epilogue& epilogue) {
  return epilogue.residual ? c.in(Epilogue::kResidualInput) : at::Tensor();
}

void run_onednn(C& c, OnednnLinear& layer, const at::Tensor& x, const Epilogue& epilogue) {
  c.set(0, layer.run(x, residual(c, epilogue)));
  c.algorithm = "inner_product" + epilogue.suffix();
}

void matmul(C& c) {
  const auto& x = c.in(0);
  auto epilogue = c.interpreter.epilogue(c.graph, c.node);
  if (auto* layer = onednn_layer(c, x, 1, false, 2)) return run_onednn(c, *layer, x, epilogue);
  at::Tensor y;
  if (!c.is_constant(1) && OnednnBatchedMatmul::applies(x, c.in(1))) {
    y = c.interpreter.kernel_state<OnednnBatchedMatmul>(&c.node, [] { return std::make_shared<OnednnBatchedMatmul>(); })
            .run(x, c.in(1));
    c.algorithm = "matmul";
  } else {
    y = at::matmul(x, c.in(1));
  }
  // A third input is the bias optimized mode fused in from the Add that followed.
  if (c.has(2)) y = y + c.in(2);
  c.set(0, epilogue.apply(y, residual(c, epilogue)));
}

void gemm(C& c) {
  at::Tensor a = c.in(0), b = c.in(1);
  bool trans_b = c.node.get_int("transB", 0) != 0;
  bool plain = !c.node.get_int("transA", 0) && c.node.get_float("alpha", 1.0) == 1.0 &&
               (!c.has(2) || c.node.get_float("beta", 1.0) == 1.0);
  auto epilogue = c.interpreter.epilogue(c.graph, c.node);
  if (plain && a.dim() == 2)
    if (auto* layer = onednn_layer(c, a, 1, trans_b, 2)) return run_onednn(c, *layer, a, epilogue);
  if (c.node.get_int("transA", 0)) a = a.t();
  if (trans_b) b = b.t();
  double alpha = c.node.get_float("alpha", 1.0), beta = c.node.get_float("beta", 1.0);
  at::Tensor y;
  if (c.has(2) && beta != 0) {
    // addmm broadcasts C over the product, as Gemm's unidirectional broadcast does.
    y = at::addmm(c.in(2).to(a.scalar_type()), a, b, beta, alpha);
  } else {
    y = at::mm(a, b);
    if (alpha != 1.0) y = y * alpha;
  }
  c.set(0, epilogue.apply(y, residual(c, epilogue)));
}

void matmul_integer(C& c) {
  auto a = c.in(0).to(at::kInt), b = c.in(1).to(at::kInt);
  // A 1-D zero point of A is one per row ([M]; ONNX's), which broadcasting would read along K: made [M, 1].
  if (c.has(2)) a = a - (c.in(2).dim() == 1 && a.dim() >= 2 ? c.in(2).reshape({-1, 1}) : c.in(2)).to(at::kInt);
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
