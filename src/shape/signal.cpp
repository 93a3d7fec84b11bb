// Shape rules of ONNX's signal ops (DFT, STFT, MelWeightMatrix; opset 17) and the geometry they share with the
// executor (shape/signal.h).
#include "shape/signal.h"

#include <fmt/format.h>

#include <cmath>

#include "shape/registry.h"
#include "util/error.h"

namespace ridge::shape {

int64_t stft_frame_length(std::optional<int64_t> window_length, std::optional<int64_t> frame_length) {
  if (window_length && frame_length && *window_length != *frame_length)
    throw Error(fmt::format("frame_length {} differs from the window's {} samples", *frame_length, *window_length));
  if (!window_length && !frame_length) throw Error("needs a window or a frame_length");
  return frame_length ? *frame_length : *window_length;
}

StftGeometry stft_geometry(int64_t signal_length, int64_t frame_step, int64_t frame_length, bool onesided) {
  if (frame_length < 1) throw Error(fmt::format("STFT frame length {} must be at least 1", frame_length));
  if (frame_step < 1) throw Error(fmt::format("STFT frame step {} must be at least 1", frame_step));
  if (signal_length < frame_length)
    throw Error(fmt::format("STFT signal of {} samples is shorter than a frame of {}", signal_length, frame_length));
  return {frame_length, (signal_length - frame_length) / frame_step + 1, dft_bins(frame_length, onesided)};
}

std::vector<double> mel_weight_matrix(int64_t num_mel_bins, int64_t dft_length, int64_t sample_rate,
                                      double lower_edge_hertz, double upper_edge_hertz) {
  if (num_mel_bins < 1 || dft_length < 1 || sample_rate < 1)
    throw Error(
        fmt::format("MelWeightMatrix needs num_mel_bins, dft_length and sample_rate of at least 1 (given {}, "
                    "{}, {})",
                    num_mel_bins, dft_length, sample_rate));
  int64_t spectrogram_bins = dft_length / 2 + 1;
  // In single precision up to the step, as the reference's float32 scalars are; then double, as its arrays are.
  auto mel = [](float hertz) { return 2595.0f * std::log10(1.0f + hertz / 700.0f); };
  float low = mel(static_cast<float>(lower_edge_hertz));
  float step = (mel(static_cast<float>(upper_edge_hertz)) - low) / static_cast<float>(num_mel_bins + 2);
  std::vector<int64_t> edges;
  for (int64_t k = 0; k < num_mel_bins + 2; ++k) {
    double m = static_cast<double>(k) * static_cast<double>(step) + static_cast<double>(low);
    double hertz = 700.0 * (std::pow(10.0, m / 2595.0) - 1.0);
    auto bin = static_cast<int64_t>(
        std::floor(static_cast<double>(dft_length + 1) * hertz / static_cast<double>(sample_rate)));
    if (bin < 0 || bin >= spectrogram_bins)
      throw Error(
          fmt::format("MelWeightMatrix: a filter edge at {:.6g} Hz falls outside the {} spectrogram bins of a "
                      "{}-point DFT at {} Hz",
                      hertz, spectrogram_bins, dft_length, sample_rate));
    edges.push_back(bin);
  }
  std::vector<double> w(static_cast<size_t>(spectrogram_bins * num_mel_bins), 0.0);
  auto at = [&](int64_t row, int64_t col) -> double& { return w[static_cast<size_t>(row * num_mel_bins + col)]; };
  for (int64_t i = 0; i < num_mel_bins; ++i) {
    int64_t left = edges[static_cast<size_t>(i)], center = edges[static_cast<size_t>(i + 1)],
            right = edges[static_cast<size_t>(i + 2)];
    if (center == left) {
      at(center, i) = 1;
    } else {
      for (int64_t j = left; j <= center; ++j)
        at(j, i) = static_cast<double>(j - left) / static_cast<double>(center - left);
    }
    for (int64_t j = center; j < right; ++j)
      at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - center);
  }
  return w;
}

namespace {

// The integer value of a scalar input, where known.
int64_t scalar_int(InferenceContext& ctx, size_t i, const char* what) {
  auto values = ctx.in_ints(i, what);
  if (values.size() != 1) ctx.fail(fmt::format("{} must be a scalar", what));
  return values[0];
}

// DFT(input [batch, signal dims..., 1 or 2], dft_length?) along `axis`: that dim becomes dft_length (or stays), kept
// whole or onesided, and the last dim 2 (real and imaginary parts).
void dft(InferenceContext& ctx) {
  auto dims = ctx.in_dims(0);
  auto rank = static_cast<int64_t>(dims.size());
  if (rank < 3 || (dims.back() != 1 && dims.back() != 2))
    ctx.fail("input must be [batch, signal dims..., 1 or 2] (real, or real and imaginary parts)");
  int64_t axis = ctx.axis(ctx.node().get_int("axis", 1), rank);
  if (axis == rank - 1) ctx.fail("axis is the real/imaginary dim");
  bool onesided = ctx.node().get_int("onesided", 0) != 0;
  if (onesided && (dims.back() == 2 || ctx.node().get_int("inverse", 0) != 0))
    ctx.fail("onesided takes a real input and a forward transform");
  int64_t n = ctx.has_input(1) ? scalar_int(ctx, 1, "dft_length") : dims[static_cast<size_t>(axis)];
  if (n < 1) ctx.fail(fmt::format("dft_length {} must be at least 1", n));
  dims[static_cast<size_t>(axis)] = dft_bins(n, onesided);
  dims.back() = 2;
  ctx.set_output(0, ctx.in_dtype(0), dims);
}

// STFT(signal [batch, length, 1 or 2], frame_step, window?, frame_length?) -> [batch, frames, bins, 2].
void stft(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto dims = ctx.in_dims(0);
  if (dims.size() != 3 || (dims[2] != 1 && dims[2] != 2)) ctx.fail("signal must be [batch, length, 1 or 2]");
  int64_t step = scalar_int(ctx, 1, "frame_step");
  std::optional<int64_t> window, frame_length;
  if (ctx.has_input(2)) {
    auto window_dims = ctx.in_dims(2);
    if (window_dims.size() != 1) ctx.fail("window must be 1-D");
    window = window_dims[0];
  }
  if (ctx.has_input(3)) frame_length = scalar_int(ctx, 3, "frame_length");
  bool onesided = ctx.node().get_int("onesided", 1) != 0;
  if (onesided && dims[2] == 2) ctx.fail("onesided takes a real signal");
  StftGeometry geometry;
  try {
    geometry = stft_geometry(dims[1], step, stft_frame_length(window, frame_length), onesided);
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
  ctx.set_output(0, ctx.in_dtype(0), {dims[0], geometry.frames, geometry.bins, 2});
}

// MelWeightMatrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz): its values are known
// wherever its inputs are (small: a few hundred bins by some tens of filters).
void mel_weight(InferenceContext& ctx) {
  ctx.require_inputs(5);
  int64_t mel_bins = scalar_int(ctx, 0, "num_mel_bins");
  int64_t dft_length = scalar_int(ctx, 1, "dft_length");
  auto dtype = static_cast<graph::DType>(ctx.node().get_int("output_datatype", 1));
  if (!graph::is_floating(dtype)) ctx.fail("output_datatype must be a floating type");
  if (mel_bins < 1 || dft_length < 1) ctx.fail("num_mel_bins and dft_length must be at least 1");
  std::vector<int64_t> dims{dft_length / 2 + 1, mel_bins};
  const auto* rate = ctx.in_const(2);
  const auto* lower = ctx.in_const(3);
  const auto* upper = ctx.in_const(4);
  if (rate && lower && upper && rate->size() == 1 && lower->size() == 1 && upper->size() == 1 &&
      dims[0] * dims[1] <= kMaxPropagatedElements) {
    graph::ConstantData c;
    c.dtype = dtype;
    c.dims = dims;
    try {
      c.reals = mel_weight_matrix(mel_bins, dft_length, rate->as_int(0), lower->as_real(0), upper->as_real(0));
    } catch (const Error& e) {
      ctx.fail(e.what());
    }
    return ctx.set_output_const(0, std::move(c));
  }
  ctx.set_output(0, dtype, dims);
}

}  // namespace

void register_signal_shapes(ShapeRegistry& registry) {
  // clang-format off
  registry.add("signal", {{"DFT", dft}, {"STFT", stft}, {"MelWeightMatrix", mel_weight}});
  // clang-format on
}

}  // namespace ridge::shape
