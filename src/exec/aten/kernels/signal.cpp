// ONNX's signal ops on the CPU through ATen's FFTs (pocketfft in Debian's libtorch): DFT, STFT and MelWeightMatrix.
// ONNX holds complex values as a last dim of 2 (real, imaginary): they are viewed as ATen's complex tensors and back.
// 16-bit inputs are transformed in fp32 (ATen's CPU FFTs take fp32 and fp64) and their outputs cast back.
#include "shape/signal.h"

#include <fmt/format.h>

#include "exec/aten/kernels/kernel.h"
#include "util/error.h"

namespace ridge::exec::aten {
namespace {

using C = KernelContext;

int64_t scalar(const C& c, size_t i, const char* what) {
  if (c.in(i).numel() != 1) c.fail(fmt::format("{} must be a scalar", what));
  return c.ints(i).at(0);
}

// [..., 1] as a real tensor, [..., 2] as a complex one (fp32 or fp64); `complex_input` says which.
at::Tensor as_signal(const C& c, const at::Tensor& x, bool& complex_input) {
  if (x.dim() < 2 || (x.size(-1) != 1 && x.size(-1) != 2))
    c.fail("input's last dim must be 1 (real) or 2 (real and imaginary parts)");
  auto t = x.scalar_type() == at::kDouble ? x : x.to(at::kFloat);
  complex_input = x.size(-1) == 2;
  return complex_input ? at::view_as_complex(t.contiguous()) : t.squeeze(-1);
}

at::Tensor as_onnx(const at::Tensor& spectrum, at::ScalarType type) {
  return at::view_as_real(spectrum.resolve_conj()).contiguous().to(type);
}

void dft(C& c) {
  const auto& x = c.in(0);
  bool complex_input = false;
  auto signal = as_signal(c, x, complex_input);
  int64_t axis = normalize_axis(c.node.get_int("axis", 1), x.dim(), c);
  if (axis == x.dim() - 1) c.fail("axis is the real/imaginary dim");
  bool inverse = c.node.get_int("inverse", 0) != 0;
  bool onesided = c.node.get_int("onesided", 0) != 0;
  if (onesided && (complex_input || inverse)) c.fail("onesided takes a real input and a forward transform");
  c10::optional<int64_t> n;
  if (c.has(1)) {
    n = scalar(c, 1, "dft_length");
    if (*n < 1) c.fail(fmt::format("dft_length {} must be at least 1", *n));
  }
  // Zero-padded or cut to n along the axis, as ONNX's dft_length asks and ATen's n does.
  at::Tensor spectrum = onesided  ? at::fft_rfft(signal, n, axis)
                        : inverse ? at::fft_ifft(signal, n, axis)
                                  : at::fft_fft(signal, n, axis);
  c.set(0, as_onnx(spectrum, x.scalar_type()));
}

void stft(C& c) {
  const auto& x = c.in(0);
  if (x.dim() != 3) c.fail("signal must be [batch, length, 1 or 2]");
  bool complex_input = false;
  auto signal = as_signal(c, x, complex_input);  // [batch, length]
  int64_t step = scalar(c, 1, "frame_step");
  at::Tensor window;
  std::optional<int64_t> window_length, frame_length;
  if (c.has(2)) {
    if (c.in(2).dim() != 1) c.fail("window must be 1-D");
    window = c.in(2).to(signal.is_complex() ? at::kFloat : signal.scalar_type());
    window_length = window.size(0);
  }
  if (c.has(3)) frame_length = scalar(c, 3, "frame_length");
  bool onesided = c.node.get_int("onesided", 1) != 0;
  if (onesided && complex_input) c.fail("onesided takes a real signal");
  shape::StftGeometry geometry;
  try {
    geometry =
        shape::stft_geometry(signal.size(1), step, shape::stft_frame_length(window_length, frame_length), onesided);
  } catch (const Error& e) {
    c.fail(e.what());
  }
  auto frames = signal.unfold(1, geometry.frame_length, step);  // [batch, frames, length]
  if (window.defined()) frames = frames * window;
  auto spectrum = onesided ? at::fft_rfft(frames, c10::nullopt, -1) : at::fft_fft(frames, c10::nullopt, -1);
  c.set(0, as_onnx(spectrum, x.scalar_type()));
}

void mel_weight(C& c) {
  auto type = scalar_type(static_cast<graph::DType>(c.node.get_int("output_datatype", 1)));
  std::vector<double> weights;
  int64_t mel_bins = scalar(c, 0, "num_mel_bins"), dft_length = scalar(c, 1, "dft_length");
  auto real = [&](size_t i) { return c.in(i).to(at::kDouble).item<double>(); };
  try {
    weights = shape::mel_weight_matrix(mel_bins, dft_length, scalar(c, 2, "sample_rate"), real(3), real(4));
  } catch (const Error& e) {
    c.fail(e.what());
  }
  auto t = at::empty({dft_length / 2 + 1, mel_bins}, at::kDouble);
  std::copy(weights.begin(), weights.end(), t.data_ptr<double>());
  c.set(0, t.to(type));
}

}  // namespace

void register_signal_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("signal", {{"DFT", dft}, {"STFT", stft}, {"MelWeightMatrix", mel_weight}});
  // clang-format on
}

}  // namespace ridge::exec::aten
