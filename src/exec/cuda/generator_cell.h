#pragma once
// Values the GPU makes rather than reads, one element at a time: counter-based random draws (element i of a run's draw
// from (seed, i) alone: splitmix64's finalizer, whose output bits are uniform for consecutive inputs, so a draw does
// not depend on the launch's shape), normal draws from two uniform ones (Box-Muller), and the window functions
// (Hann, Hamming with ONNX's 25/46 and 21/46, Blackman; periodic or symmetric), Range's elements and EyeLike's ones.
// The kernels (generator_kernels.cu,
// training_kernels.cu's Dropout) apply them a thread per element; the host-side tests apply them to ONNX's node tests
// and check the draws' statistics (tests/cuda/test_generator_host.cpp). C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// A draw in [0, 1) with 24 random bits (exact in fp32).
RIDGE_HOST_DEVICE inline float counter_uniform(uint64_t seed, int64_t i) {
  uint64_t z = seed + static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (1.f / 16777216.f);
}

// A standard normal draw for element i: Box-Muller on two independent uniform draws (streams 2i and 2i + 1), the
// first in (0, 1] so its log is finite.
RIDGE_HOST_DEVICE inline float counter_normal(uint64_t seed, int64_t i) {
  const float u1 = 1.f - counter_uniform(seed, 2 * i), u2 = counter_uniform(seed, 2 * i + 1);
  return sqrtf(-2.f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}

enum class Window : int { kHann, kHamming, kBlackman };

// Element n of a window of `size` points: over `size` periods' worth (periodic, as for a spectrogram) or
// `size - 1` (symmetric), computed in double as ONNX's reference does in its output's precision.
RIDGE_HOST_DEVICE inline double window_value(Window w, int64_t n, int64_t size, bool periodic) {
  const double span = static_cast<double>(periodic ? size : size - 1);
  if (span <= 0) return 1.0;  // one point of a symmetric window
  const double x = 6.28318530717958647692 * static_cast<double>(n) / span;
  switch (w) {
    case Window::kHann:
      return 0.5 - 0.5 * cos(x);
    case Window::kHamming:
      return 25.0 / 46.0 - 21.0 / 46.0 * cos(x);
    default:
      return 0.42 - 0.5 * cos(x) + 0.08 * cos(2.0 * x);
  }
}

// Range's element i: start + i delta, in fp64 (then stored in the output's type).
RIDGE_HOST_DEVICE inline double range_value(double start, double delta, int64_t i) {
  return start + static_cast<double>(i) * delta;
}

// Range's element count: max(0, ceil((limit - start) / delta)).
RIDGE_HOST_DEVICE inline int64_t range_count(double start, double limit, double delta) {
  const double n = ceil((limit - start) / delta);
  return n > 0 ? static_cast<int64_t>(n) : 0;
}

// EyeLike's one in row i: column i + k, or none (-1) outside [0, cols).
RIDGE_HOST_DEVICE inline int64_t eye_column(int64_t i, int64_t cols, int64_t k) {
  const int64_t j = i + k;
  return j >= 0 && j < cols ? j : -1;
}

}  // namespace ridge::exec::cuda
