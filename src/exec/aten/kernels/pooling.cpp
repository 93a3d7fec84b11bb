// Pooling: max and average (padding, ceil mode, dilations), global pools, Lp pools, MaxUnpool.
#include <fmt/format.h>

#include <cmath>

#include "exec/aten/kernels/kernel.h"
#include "shape/spatial.h"
#include "util/error.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

struct Window {
  std::vector<int64_t> kernel, stride, dilation, pad_begin, pad_end;
  bool ceil = false;
};

Window window(const C& c, const at::Tensor& x) {
  Window w;
  // The window as shape inference resolves it (shape::resolve_window): one rule for every executor.
  shape::Window resolved;
  try {
    resolved = shape::resolve_window(c.node, std::vector<int64_t>(x.sizes().begin() + 2, x.sizes().end()),
                                     c.node.get_ints("kernel_shape"));
  } catch (const Error& e) {
    c.fail(e.what());
  }
  w.kernel = std::move(resolved.kernel);
  w.stride = std::move(resolved.strides);
  w.dilation = std::move(resolved.dilations);
  w.pad_begin = std::move(resolved.pads_begin);
  w.pad_end = std::move(resolved.pads_end);
  w.ceil = c.node.get_int("ceil_mode", 0) != 0;
  return w;
}

at::Tensor pad(const at::Tensor& x, const Window& w, double value) {
  std::vector<int64_t> p;
  for (size_t i = w.kernel.size(); i-- > 0;) p.insert(p.end(), {w.pad_begin[i], w.pad_end[i]});
  return at::constant_pad_nd(x, p, value);
}

// Output length of one axis per ONNX (floor or ceil), and the ATen call on an input padded so
// that every window ONNX counts lies inside it.
int64_t out_len(int64_t padded, int64_t k, int64_t s, int64_t d, bool ceil) {
  double span = static_cast<double>(padded - ((k - 1) * d + 1)) / static_cast<double>(s);
  int64_t n = static_cast<int64_t>(ceil ? std::ceil(span) : std::floor(span)) + 1;
  // A ceil-mode window must start inside the (padded) input.
  if (ceil && (n - 1) * s >= padded) --n;
  return n;
}

// Extends the padded input at the end so ceil-mode windows are whole; `fill` marks the extension.
at::Tensor extend_for_ceil(const at::Tensor& x, const Window& w, double fill) {
  std::vector<int64_t> p;
  for (size_t i = w.kernel.size(); i-- > 0;) {
    int64_t len = x.size(static_cast<int64_t>(i) + 2);
    int64_t n = out_len(len, w.kernel[i], w.stride[i], w.dilation[i], w.ceil);
    int64_t need = (n - 1) * w.stride[i] + (w.kernel[i] - 1) * w.dilation[i] + 1;
    p.insert(p.end(), {0, std::max<int64_t>(0, need - len)});
  }
  return at::constant_pad_nd(x, p, fill);
}

at::Tensor max_pool(const at::Tensor& x, const Window& w) {
  std::vector<int64_t> zero(w.kernel.size(), 0);
  switch (x.dim()) {
    case 3:
      return at::max_pool1d(x, w.kernel, w.stride, zero, w.dilation, false);
    case 4:
      return at::max_pool2d(x, w.kernel, w.stride, zero, w.dilation, false);
    case 5:
      return at::max_pool3d(x, w.kernel, w.stride, zero, w.dilation, false);
  }
  throw std::runtime_error("max pooling needs 1 to 3 spatial axes");
}

// Sum over each window (dilation 1): average pooling with divisor 1.
at::Tensor window_sum(const at::Tensor& x, const Window& w) {
  std::vector<int64_t> zero(w.kernel.size(), 0);
  switch (x.dim()) {
    case 3:
      return at::avg_pool2d(x.unsqueeze(2), {1, w.kernel[0]}, {1, w.stride[0]}, {0, 0}, false, true, 1).squeeze(2);
    case 4:
      return at::avg_pool2d(x, w.kernel, w.stride, zero, false, true, 1);
    case 5:
      return at::avg_pool3d(x, w.kernel, w.stride, zero, false, true, 1);
  }
  throw std::runtime_error("average pooling needs 1 to 3 spatial axes");
}

// Whether ATen's own padding (symmetric, at most half the kernel) gives ONNX's result; oneDNN-layout
// inputs take that path and stay in their layout.
bool aten_pads(const Window& w, const at::Tensor& x) {
  bool ok = w.pad_begin == w.pad_end && x.dim() == 4 && at::isFloatingType(x.scalar_type());
  for (size_t i = 0; i < w.kernel.size(); ++i) ok = ok && 2 * w.pad_begin[i] <= w.kernel[i];
  return ok;
}

void max_pool_kernel(C& c) {
  at::Tensor x = c.in(0);
  Window w = window(c, x);
  double lowest = -INFINITY;
  if (aten_pads(w, x) && !c.wants_output(1)) {
    c.set(0, at::max_pool2d(x, w.kernel, w.stride, w.pad_begin, w.dilation, w.ceil));
    return;
  }
  if (c.wants_output(1)) {
    if (x.dim() != 4 || w.pad_begin != w.pad_end || w.ceil)
      c.fail("the Indices output needs 2-D, symmetric, floor-mode pooling");
    auto [y, idx] = at::max_pool2d_with_indices(x, w.kernel, w.stride, w.pad_begin, w.dilation, false);
    int64_t hw = x.size(2) * x.size(3);
    auto offsets = at::arange(x.size(0) * x.size(1), at::kLong).view({x.size(0), x.size(1), 1, 1}) * hw;
    if (c.node.get_int("storage_order", 0)) {  // column-major positions within each plane
      auto row = at::div(idx, x.size(3), "floor"), col = idx - row * x.size(3);
      idx = col * x.size(2) + row;
    }
    c.set(0, y);
    c.set(1, idx + offsets);
    return;
  }
  // Integers are pooled as floats (exact for the 8- and 16-bit types ONNX pools).
  auto source = at::isFloatingType(x.scalar_type()) ? x : x.to(at::kFloat);
  auto padded = extend_for_ceil(pad(source, w, lowest), w, lowest);
  c.set(0, max_pool(padded, w).to(x.scalar_type()));
}

void average_pool(C& c) {
  at::Tensor x = c.in(0);
  Window w = window(c, x);
  for (auto d : w.dilation)
    if (d != 1) c.fail("dilated average pooling is not supported");
  bool include_pad = c.node.get_int("count_include_pad", 0) != 0;
  if (aten_pads(w, x) && !w.ceil) {
    c.set(0, at::avg_pool2d(x, w.kernel, w.stride, w.pad_begin, false, include_pad));
    return;
  }
  auto sums = window_sum(extend_for_ceil(pad(x, w, 0), w, 0), w);
  // Divisor: how many elements of each window count (the padding too when count_include_pad).
  std::vector<int64_t> plane(x.sizes().begin(), x.sizes().end());
  plane[0] = plane[1] = 1;
  auto counted = pad(at::ones(plane, x.options()), w, include_pad ? 1 : 0);
  auto divisor = window_sum(extend_for_ceil(counted, w, 0), w);
  c.set(0, sums / divisor);
}

void lp_pool(C& c) {
  const auto& x = c.in(0);
  Window w = window(c, x);
  // window_sum pools without dilation (ATen has no dilated average pooling): refused, not computed as undilated.
  for (auto d : w.dilation)
    if (d != 1) c.fail("dilated Lp pooling is not supported on the CPU (the GPU runs it)");
  double p = static_cast<double>(c.node.get_int("p", 2));
  auto sums = window_sum(extend_for_ceil(pad(x.abs().pow(p), w, 0), w, 0), w);
  c.set(0, sums.pow(1.0 / p));
}

std::vector<int64_t> spatial_axes(const at::Tensor& x) {
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < x.dim(); ++d) axes.push_back(d);
  return axes;
}

// MaxUnpool as ONNX's reference computes it: X's elements written at their indices into the unpooled dims (the flat
// index over the whole tensor, as MaxPool's indices are), zeros elsewhere, that block in the leading corner of
// output_shape where it is larger. An index outside the unpooled tensor is refused by name.
void max_unpool(C& c) {
  const auto& x = c.in(0);
  auto indices = c.in(1).to(at::kLong).contiguous();
  std::vector<int64_t> dims;
  try {
    dims = shape::unpooled_dims(c.node, std::vector<int64_t>(x.sizes().begin(), x.sizes().end()));
  } catch (const Error& e) {
    c.fail(e.what());
  }
  int64_t count = 1;
  for (auto d : dims) count *= d;
  if (indices.numel() != x.numel()) c.fail("the indices I must have X's dims");
  if (indices.numel() > 0) {
    auto low = indices.min().item<int64_t>(), high = indices.max().item<int64_t>();
    if (low < 0 || high >= count)
      c.fail(fmt::format("indices from {} to {}: outside [0, {}), the unpooled tensor's elements", low, high, count));
  }
  auto y =
      at::zeros({count}, x.options()).scatter_(0, indices.reshape({-1}), x.contiguous().reshape({-1})).reshape(dims);
  if (c.has(2)) {
    auto shape = c.ints(2);
    if (shape.size() != dims.size()) c.fail("output_shape must have X's rank");
    std::vector<int64_t> pad;  // constant_pad_nd's (begin, end) pairs from the last dim
    for (size_t d = dims.size(); d-- > 0;) {
      if (shape[d] < dims[d])
        c.fail(fmt::format("output_shape[{}] = {} is smaller than the unpooled {}", d, shape[d], dims[d]));
      pad.insert(pad.end(), {0, shape[d] - dims[d]});
    }
    y = at::constant_pad_nd(y, pad, 0);
  }
  c.set(0, y);
}

}  // namespace

void register_pooling_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("pooling", {
    {"MaxPool", max_pool_kernel},
    {"AveragePool", average_pool},
    {"LpPool", lp_pool},
    {"MaxUnpool", max_unpool},
    {"GlobalAveragePool", [](C& c) { c.set(0, c.in(0).mean(spatial_axes(c.in(0)), true)); }},
    {"GlobalMaxPool", [](C& c) { c.set(0, c.in(0).amax(spatial_axes(c.in(0)), true)); }},
    {"GlobalLpPool", [](C& c) {
       double p = static_cast<double>(c.node.get_int("p", 2));
       c.set(0, c.in(0).abs().pow(p).sum(spatial_axes(c.in(0)), true).pow(1.0 / p));
     }},
  });
  // clang-format on
}

}  // namespace ridge::exec::aten
