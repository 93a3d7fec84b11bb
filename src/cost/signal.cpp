// Cost rules of ONNX's signal ops. A DFT of n points is counted at the conventional 5 n log2 n FLOPs (a complex input;
// 2.5 n log2 n for a real one, half the work by its symmetry), the count FFTW's benchmarks and cost/conv_algorithms.cpp
// use; the library's own count depends on how it factors n (a prime n takes a longer path), so the node is an
// estimate, which it says. An inverse scales its n outputs (2 FLOPs each). The backward pass of a DFT is a DFT.
// STFT: each frame windowed (1 multiply per sample, 2 for a complex one), then one DFT per frame; it reads its signal
// once. MelWeightMatrix writes its matrix (one value per element) and reads only scalars.
#include <fmt/format.h>

#include <cmath>

#include "cost/registry.h"

namespace ridge::cost {
namespace {

int64_t fft_flops(int64_t n, bool complex_input) {
  if (n < 2) return 0;
  double per = (complex_input ? 5.0 : 2.5) * static_cast<double>(n) * std::log2(static_cast<double>(n));
  return static_cast<int64_t>(std::llround(per));
}

void say_estimate(CostContext& ctx, int64_t n) {
  ctx.estimate = fmt::format("FFT of {} points counted at the conventional 5 n log2 n FLOPs (2.5 for a real input)", n);
}

void dft(CostContext& ctx) {
  auto in = ctx.in_dims(0);
  auto rank = static_cast<int64_t>(in.size());
  int64_t axis = ctx.node().get_int("axis", 1);
  if (axis < 0) axis += rank;
  bool complex_input = in.back() == 2;
  int64_t n = in.at(static_cast<size_t>(axis));
  if (const auto* length = ctx.in_constant(1); length && length->size() == 1) n = length->as_int(0);
  int64_t transforms = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (d != axis) transforms *= in[static_cast<size_t>(d)];
  int64_t per = fft_flops(n, complex_input) + (ctx.node().get_int("inverse", 0) != 0 ? 2 * n : 0);
  ctx.flops = transforms * per;
  ctx.backward_flops_data = ctx.flops;
  say_estimate(ctx, n);
}

void stft(CostContext& ctx) {
  auto in = ctx.in_dims(0), out = ctx.out_dims(0);
  bool complex_input = in.at(2) == 2;
  int64_t frames = out.at(0) * out.at(1);
  int64_t n = ctx.has_input(2) ? ctx.in_dims(2).at(0) : 0;
  if (const auto* length = ctx.in_constant(3); length && length->size() == 1) n = length->as_int(0);
  int64_t window = ctx.has_input(2) ? (complex_input ? 2 : 1) * n : 0;
  ctx.flops = frames * (window + fft_flops(n, complex_input));
  ctx.backward_flops_data = ctx.flops;
  say_estimate(ctx, n);
}

void mel_weight(CostContext& ctx) {
  ctx.flops = ctx.out_elements();
  for (size_t i = 0; i < ctx.input_count(); ++i)
    if (ctx.has_input(i)) ctx.mark_not_parameter(i);
}

}  // namespace

void register_signal_costs(CostRegistry& r) {
  // clang-format off
  r.add("signal", {{"DFT", dft}, {"STFT", stft}, {"MelWeightMatrix", mel_weight, kNotDifferentiable}});
  // clang-format on
}

}  // namespace ridge::cost
