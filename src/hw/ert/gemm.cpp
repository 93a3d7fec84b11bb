#include "hw/ert/gemm.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "util/error.h"

namespace ridge::hw::ert {

std::vector<double> gemm_fp32_rates(int n, int threads, int repetitions) {
  at::set_num_threads(threads);
  at::manual_seed(0);
  auto a = at::rand({n, n}, at::kFloat), b = at::rand({n, n}, at::kFloat);
  auto c = at::mm(a, b);  // warm-up (and the product that is checked)
  // Check one element against a double-precision dot product computed here.
  auto a_row = a[n / 3].to(at::kDouble), b_col = b.select(1, n / 5).to(at::kDouble);
  double expected = (a_row * b_col).sum().item<double>();
  double got = c[n / 3][n / 5].item<double>();
  if (std::fabs(got - expected) > 1e-3 * std::fabs(expected))
    throw Error(fmt::format("ert: GEMM check failed: {} != {}", got, expected));
  std::vector<double> rates;
  for (int rep = 0; rep < repetitions; ++rep) {
    auto start = std::chrono::steady_clock::now();
    at::mm_out(c, a, b);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(2.0 * n * n * static_cast<double>(n) / s);
  }
  return rates;
}

}  // namespace ridge::hw::ert
