// Reductions, arg-reductions, softmax family, cumulative sum and top-k.
#include <fmt/format.h>

#include "exec/aten/kernels/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

// The reduced axes: the attribute (older opsets) or the second input; none given means all,
// unless noop_with_empty_axes asks for the identity (returned as an empty list with `noop`).
std::vector<int64_t> reduce_axes(const C& c, const at::Tensor& x, bool& noop) {
  std::vector<int64_t> axes = c.node.get_ints("axes");
  if (axes.empty() && c.has(1)) axes = c.ints(1);
  noop = false;
  if (axes.empty()) {
    if (c.node.get_int("noop_with_empty_axes", 0)) {
      noop = true;
      return axes;
    }
    for (int64_t d = 0; d < x.dim(); ++d) axes.push_back(d);
  }
  for (auto& a : axes) a = normalize_axis(a, x.dim(), c);
  return axes;
}

template <typename Reduce>
void reduce(C& c, Reduce fn) {
  const auto& x = c.in(0);
  bool noop = false;
  auto axes = reduce_axes(c, x, noop);
  if (noop) {
    c.set(0, x);
    return;
  }
  bool keep = c.node.get_int("keepdims", 1) != 0;
  if (x.dim() == 0) {
    c.set(0, fn(x.unsqueeze(0), std::vector<int64_t>{0}, false).to(x.scalar_type()));
    return;
  }
  c.set(0, fn(x, axes, keep).to(x.scalar_type()));  // ATen widens integer sums; ONNX keeps the type
}

at::Tensor prod(const at::Tensor& x, std::vector<int64_t> axes, bool keep) {
  std::sort(axes.rbegin(), axes.rend());
  at::Tensor y = x;
  for (auto a : axes) y = at::prod(y, a, keep);
  return y;
}

void arg_reduce(C& c, bool max) {
  const auto& x = c.in(0);
  int64_t axis = normalize_axis(c.node.get_int("axis", 0), x.dim(), c);
  bool keep = c.node.get_int("keepdims", 1) != 0, last = c.node.get_int("select_last_index", 0) != 0;
  auto src = last ? x.flip(axis) : x;
  auto idx = max ? at::argmax(src, axis, keep) : at::argmin(src, axis, keep);
  c.set(0, last ? x.size(axis) - 1 - idx : idx);
}

// Softmax-like ops. Before opset 13 the input is viewed as 2-D at `axis` (default 1).
template <typename Fn>
void softmax_like(C& c, Fn fn) {
  const auto& x = c.in(0);
  bool legacy = c.opset < 13;
  int64_t axis = normalize_axis(c.node.get_int("axis", legacy ? 1 : -1), x.dim(), c);
  if (!legacy) {
    c.set(0, fn(x, axis));
    return;
  }
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.size(d);
  c.set(0, fn(x.reshape({outer, -1}), 1).reshape(x.sizes()));
}

at::Tensor hardmax(const at::Tensor& x, int64_t axis) {
  auto idx = at::argmax(x, axis, true);
  return at::zeros_like(x).scatter_(axis, idx, 1.0);
}

void cumsum(C& c) {
  const auto& x = c.in(0);
  int64_t axis = normalize_axis(c.ints(1).at(0), x.dim(), c);
  bool exclusive = c.node.get_int("exclusive", 0) != 0, reverse = c.node.get_int("reverse", 0) != 0;
  auto src = reverse ? x.flip(axis) : x;
  auto y = at::cumsum(src, axis);
  if (exclusive) y = y - src;
  c.set(0, reverse ? y.flip(axis) : y);
}

void topk(C& c) {
  const auto& x = c.in(0);
  int64_t k = c.opset >= 10 ? c.ints(1).at(0) : c.node.get_int("k", 1);
  int64_t axis = normalize_axis(c.node.get_int("axis", -1), x.dim(), c);
  bool largest = c.node.get_int("largest", 1) != 0;
  // Stable order: equal values keep their lower index first, as ONNX requires.
  auto sorted = at::sort(x, /*stable=*/true, axis, largest);
  auto values = std::get<0>(sorted).narrow(axis, 0, k), indices = std::get<1>(sorted).narrow(axis, 0, k);
  c.set(0, values.contiguous());
  c.set(1, indices.contiguous());
}

}  // namespace

void register_reduction_kernels(KernelRegistry& r) {
  using V = std::vector<int64_t>;
  // clang-format off
  r.add("reduction", {
    {"ReduceSum", [](C& c) { reduce(c, [](const at::Tensor& x, V a, bool k) { return at::sum(x, a, k); }); }},
    {"ReduceMean", [](C& c) { reduce(c, [](const at::Tensor& x, V a, bool k) { return at::mean(x, a, k); }); }},
    {"ReduceMax", [](C& c) { reduce(c, [](const at::Tensor& x, V a, bool k) { return at::amax(x, a, k); }); }},
    {"ReduceMin", [](C& c) { reduce(c, [](const at::Tensor& x, V a, bool k) { return at::amin(x, a, k); }); }},
    {"ReduceProd", [](C& c) { reduce(c, prod); }},
    {"ReduceL1", [](C& c) { reduce(c, [](const at::Tensor& x, V a, bool k) { return at::sum(x.abs(), a, k); }); }},
    {"ReduceL2", [](C& c) {
       reduce(c, [](const at::Tensor& x, V a, bool k) { return at::sqrt(at::sum(x * x, a, k)).to(x.scalar_type()); });
     }},
    {"ReduceLogSum", [](C& c) { reduce(c, [](const at::Tensor& x, V a, bool k) { return at::log(at::sum(x, a, k)); }); }},
    {"ReduceLogSumExp", [](C& c) { reduce(c, [](const at::Tensor& x, V a, bool k) { return at::logsumexp(x, a, k); }); }},
    {"ReduceSumSquare", [](C& c) { reduce(c, [](const at::Tensor& x, V a, bool k) { return at::sum(x * x, a, k); }); }},
    {"ArgMax", [](C& c) { arg_reduce(c, true); }},
    {"ArgMin", [](C& c) { arg_reduce(c, false); }},
    {"Softmax", [](C& c) { softmax_like(c, [](const at::Tensor& x, int64_t a) { return at::softmax(x, a); }); }},
    {"LogSoftmax", [](C& c) { softmax_like(c, [](const at::Tensor& x, int64_t a) { return at::log_softmax(x, a); }); }},
    {"Hardmax", [](C& c) { softmax_like(c, hardmax); }},
    {"CumSum", cumsum},
    {"TopK", topk},
  });
  // clang-format on
}

}  // namespace ridge::exec::aten
