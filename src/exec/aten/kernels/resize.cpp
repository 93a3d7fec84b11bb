// Resize and Upsample. Separable: along each axis the output is a fixed linear combination of
// input positions, so each axis becomes one matrix product with an [out, in] weight matrix built
// from ONNX's coordinate transformation and interpolation rules (nearest, linear, cubic).
#include <fmt/format.h>

#include <cmath>

#include "exec/aten/kernels/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

struct ResizeRule {
  std::string mode = "nearest", coordinates = "half_pixel", nearest = "round_prefer_floor";
  double cubic_a = -0.75, extrapolation = 0;
  bool exclude_outside = false;
};

double source_coordinate(const ResizeRule& r, double x, double scale, int64_t in, int64_t out, double roi_start,
                         double roi_end) {
  const auto& m = r.coordinates;
  if (m == "asymmetric") return x / scale;
  // ONNX uses the unrounded output length in * scale here (equal to `out` when sizes are given).
  double resized = scale * static_cast<double>(in);
  if (m == "align_corners") return resized <= 1 ? 0 : x * static_cast<double>(in - 1) / (resized - 1);
  if (m == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (m == "pytorch_half_pixel") return resized > 1 ? (x + 0.5) / scale - 0.5 : 0;
  if (m == "tf_crop_and_resize")
    return out > 1 ? roi_start * (in - 1) + x * (roi_end - roi_start) * (in - 1) / static_cast<double>(out - 1)
                   : 0.5 * (roi_start + roi_end) * (in - 1);
  if (m == "half_pixel_symmetric") {
    double adjustment = static_cast<double>(out) / (scale * static_cast<double>(in));
    double center = static_cast<double>(in) / 2;
    double offset = center * (1 - adjustment);
    return offset + (x + 0.5) / scale - 0.5;
  }
  return (x + 0.5) / scale - 0.5;  // half_pixel
}

int64_t nearest_index(const ResizeRule& r, double x) {
  double f = std::floor(x);
  if (r.nearest == "floor") return static_cast<int64_t>(f);
  if (r.nearest == "ceil") return static_cast<int64_t>(std::ceil(x));
  bool half = x - f == 0.5;
  if (r.nearest == "round_prefer_ceil") return static_cast<int64_t>(half ? f + 1 : std::round(x));
  return static_cast<int64_t>(half ? f : std::round(x));  // round_prefer_floor
}

double cubic_weight(double d, double a) {
  d = std::fabs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

// Weights [out, in] for one axis, and which output rows fall outside the input (tf_crop_and_resize).
std::pair<at::Tensor, at::Tensor> axis_weights(const ResizeRule& r, int64_t in, int64_t out, double scale,
                                               double roi_start, double roi_end) {
  auto w = at::zeros({out, in}, at::kDouble);
  auto outside = at::zeros({out}, at::kBool);
  auto acc = w.accessor<double, 2>();
  auto clamp = [in](int64_t i) { return std::clamp<int64_t>(i, 0, in - 1); };
  for (int64_t o = 0; o < out; ++o) {
    double x = source_coordinate(r, static_cast<double>(o), scale, in, out, roi_start, roi_end);
    if (r.coordinates == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(in - 1))) {
      outside[o] = true;
      continue;
    }
    if (r.mode == "nearest") {
      acc[o][clamp(nearest_index(r, x))] = 1;
    } else if (r.mode == "linear") {
      x = std::clamp(x, 0.0, static_cast<double>(in - 1));
      auto x0 = static_cast<int64_t>(std::floor(x));
      double t = x - static_cast<double>(x0);
      acc[o][clamp(x0)] += 1 - t;
      acc[o][clamp(x0 + 1)] += t;
    } else {  // cubic
      auto x0 = static_cast<int64_t>(std::floor(x));
      double sum = 0;
      double weights[4];
      for (int k = 0; k < 4; ++k) {
        int64_t i = x0 - 1 + k;
        weights[k] = cubic_weight(x - static_cast<double>(i), r.cubic_a);
        if (r.exclude_outside && (i < 0 || i >= in)) weights[k] = 0;
        sum += weights[k];
      }
      for (int k = 0; k < 4; ++k) acc[o][clamp(x0 - 1 + k)] += r.exclude_outside ? weights[k] / sum : weights[k];
    }
  }
  return {w, outside};
}

void resize(C& c, bool upsample) {
  const auto& x = c.in(0);
  int64_t rank = x.dim();
  ResizeRule r;
  r.mode = c.node.get_string("mode", "nearest");
  if (r.mode == "bilinear" || r.mode == "trilinear") r.mode = "linear";
  bool legacy = upsample || c.opset < 11;
  r.coordinates = legacy ? "asymmetric" : c.node.get_string("coordinate_transformation_mode", "half_pixel");
  r.nearest = legacy ? "floor" : c.node.get_string("nearest_mode", "round_prefer_floor");
  r.cubic_a = c.node.get_float("cubic_coeff_a", -0.75);
  r.exclude_outside = c.node.get_int("exclude_outside", 0) != 0;
  r.extrapolation = c.node.get_float("extrapolation_value", 0);
  if (c.node.get_int("antialias", 0)) c.fail("antialias is not supported");
  auto policy = c.node.get_string("keep_aspect_ratio_policy", "stretch");

  std::vector<int64_t> axes = c.node.get_ints("axes");
  for (auto& a : axes) a = normalize_axis(a, rank, c);
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  size_t n = axes.size();

  std::vector<double> scales, roi;
  std::vector<int64_t> sizes;
  if (upsample) {
    if (c.has(1)) {
      auto f = c.in(1).to(at::kDouble).contiguous();
      scales.assign(f.data_ptr<double>(), f.data_ptr<double>() + f.numel());
    } else if (const auto* a = c.node.attribute("scales")) {
      scales = a->floats;  // Upsample-7
    }
  } else if (c.opset < 11) {
    auto f = c.in(1).to(at::kDouble).contiguous();
    scales.assign(f.data_ptr<double>(), f.data_ptr<double>() + f.numel());
  } else {
    if (c.has(1) && c.in(1).numel()) {
      auto f = c.in(1).to(at::kDouble).contiguous();
      roi.assign(f.data_ptr<double>(), f.data_ptr<double>() + f.numel());
    }
    if (c.has(2) && c.in(2).numel()) {
      auto f = c.in(2).to(at::kDouble).contiguous();
      scales.assign(f.data_ptr<double>(), f.data_ptr<double>() + f.numel());
    }
    if (c.has(3) && c.in(3).numel()) sizes = c.ints(3);
  }
  std::vector<int64_t> out(n);
  std::vector<double> scale(n);
  if (!sizes.empty()) {
    if (sizes.size() != n) c.fail("sizes has the wrong length");
    if (policy != "stretch") {
      double s = policy == "not_larger" ? INFINITY : 0;
      for (size_t i = 0; i < n; ++i) {
        double ratio = static_cast<double>(sizes[i]) / static_cast<double>(x.size(axes[i]));
        s = policy == "not_larger" ? std::min(s, ratio) : std::max(s, ratio);
      }
      for (size_t i = 0; i < n; ++i) {
        scale[i] = s;
        out[i] = static_cast<int64_t>(std::round(s * static_cast<double>(x.size(axes[i]))));
      }
    } else {
      for (size_t i = 0; i < n; ++i) {
        out[i] = sizes[i];
        scale[i] = static_cast<double>(sizes[i]) / static_cast<double>(x.size(axes[i]));
      }
    }
  } else {
    if (scales.size() != n) c.fail("scales has the wrong length");
    for (size_t i = 0; i < n; ++i) {
      scale[i] = scales[i];
      out[i] = static_cast<int64_t>(std::floor(static_cast<double>(x.size(axes[i])) * scales[i]));
    }
  }
  auto y = x.to(at::kDouble);
  at::Tensor outside;
  for (size_t i = 0; i < n; ++i) {
    int64_t in = x.size(axes[i]);
    double start = roi.size() == 2 * n ? roi[i] : 0, end = roi.size() == 2 * n ? roi[i + n] : 1;
    if (in == out[i] && scale[i] == 1.0 && r.coordinates != "tf_crop_and_resize") continue;
    auto [w, off] = axis_weights(r, in, out[i], scale[i], start, end);
    y = at::matmul(y.movedim(axes[i], -1), w.t()).movedim(-1, axes[i]);
    if (off.any().item<bool>()) {
      std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
      shape[static_cast<size_t>(axes[i])] = out[i];
      auto mask = off.view(shape);
      outside = outside.defined() ? (outside | mask) : mask;
    }
  }
  if (outside.defined()) y = at::where(outside, at::scalar_tensor(r.extrapolation, at::kDouble), y);
  if (!at::isFloatingType(x.scalar_type())) y = y.round();
  c.set(0, y.to(x.scalar_type()));
}

}  // namespace

void register_resize_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("resize", {
    {"Resize", [](C& c) { resize(c, false); }},
    {"Upsample", [](C& c) { resize(c, true); }},
  });
  // clang-format on
}

}  // namespace ridge::exec::aten
