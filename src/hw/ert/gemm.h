#pragma once
// The achievable dense FP32 GEMM rate through ATen's matrix multiply (libtorch).
#include <vector>

namespace ridge::hw::ert {

// FLOP/s (2 n^3 per product) of `repetitions` timed at::mm calls on n x n matrices with
// `threads` intra-op threads, after a warm-up. Throws ridge::Error if the product is wrong.
std::vector<double> gemm_fp32_rates(int n, int threads, int repetitions);

}  // namespace ridge::hw::ert
