// Shape rules of matrix products: MatMul (numpy semantics), Gemm, Einsum and quantized variants.
#include <fmt/format.h>

#include "shape/einsum.h"
#include "shape/registry.h"

namespace ridge::shape {
namespace {

std::vector<int64_t> matmul_dims(const InferenceContext& ctx, std::vector<int64_t> a, std::vector<int64_t> b) {
  if (a.empty() || b.empty()) ctx.fail("MatMul inputs must not be scalars");
  bool a_vector = a.size() == 1, b_vector = b.size() == 1;
  if (a_vector) a.insert(a.begin(), 1);
  if (b_vector) b.push_back(1);
  if (a.back() != b[b.size() - 2])
    ctx.fail(fmt::format("inner dimensions differ: {} vs {}", a.back(), b[b.size() - 2]));
  std::vector<int64_t> batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
  auto out = broadcast_dims(ctx, {batch_a, batch_b});
  if (!a_vector) out.push_back(a[a.size() - 2]);
  if (!b_vector) out.push_back(b.back());
  return out;
}

void matmul(InferenceContext& ctx) {
  ctx.require_inputs(2);
  ctx.set_output(0, ctx.in_dtype(0), matmul_dims(ctx, ctx.in_dims(0), ctx.in_dims(1)));
}

void matmul_integer(InferenceContext& ctx) {
  ctx.require_inputs(2);
  ctx.set_output(0, graph::DType::kInt32, matmul_dims(ctx, ctx.in_dims(0), ctx.in_dims(1)));
}

void qlinear_matmul(InferenceContext& ctx) {
  ctx.require_inputs(8);
  ctx.set_output(0, ctx.in_dtype(7), matmul_dims(ctx, ctx.in_dims(0), ctx.in_dims(3)));
}

void gemm(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto a = ctx.in_dims(0), b = ctx.in_dims(1);
  if (a.size() != 2 || b.size() != 2) ctx.fail("Gemm inputs must be matrices");
  bool ta = ctx.node().get_int("transA", 0) != 0, tb = ctx.node().get_int("transB", 0) != 0;
  int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
  int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (k != kb)
    ctx.fail(fmt::format("inner dimensions differ: {} vs {} ({}x{} times {}x{})", k, kb, a[0], a[1], b[0], b[1]));
  if (ctx.has_input(2)) broadcast_dims(ctx, {ctx.in_dims(2), {m, n}});
  ctx.set_output(0, ctx.in_dtype(0), {m, n});
}

void einsum(InferenceContext& ctx) {
  ctx.require_inputs(1);
  std::vector<std::vector<int64_t>> dims;
  for (size_t i = 0; i < ctx.input_count(); ++i) dims.push_back(ctx.in_dims(i));
  auto spec =
      parse_einsum(ctx.node().get_string("equation", ""), dims, fmt::format("node '{}' (Einsum)", ctx.node().name));
  ctx.set_output(0, ctx.in_dtype(0), spec.output_dims());
}

// Det: [..., M, M] -> [...].
void det(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto x = ctx.in_dims(0);
  if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2]) ctx.fail("input must be square matrices [..., M, M]");
  ctx.set_output(0, ctx.in_dtype(0), std::vector<int64_t>(x.begin(), x.end() - 2));
}

}  // namespace

void register_matmul_shapes(ShapeRegistry& registry) {
  // One table row per op.
  // clang-format off
  registry.add("matmul", {{"MatMul", matmul}, {"MatMulInteger", matmul_integer}, {"QLinearMatMul", qlinear_matmul},
                {"Gemm", gemm}, {"Einsum", einsum}, {"Det", det}});
  // clang-format on
}

}  // namespace ridge::shape
