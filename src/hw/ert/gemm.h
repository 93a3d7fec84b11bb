#pragma once
// The achievable dense FP32 GEMM rate of the libraries the CPU executor's matrix products run on: ATen's matrix
// multiply (the BLAS libtorch was built with) and oneDNN's matmul primitive.
#include <string_view>
#include <vector>

namespace ridge::hw::ert {

enum class GemmKernel { kAten, kOnednn };
std::string_view name(GemmKernel kernel);  // "ATen at::mm", "oneDNN matmul"

// FLOP/s (2 n^3 per product) of `repetitions` timed products of n x n matrices on `kernel` with `threads` intra-op
// threads, after a warm-up. Throws ridge::Error if the product is wrong.
std::vector<double> gemm_fp32_rates(int n, int threads, int repetitions, GemmKernel kernel);

}  // namespace ridge::hw::ert
