// Built as a separate shared module (libridge_aten_gemm.so) and loaded only by `ridge ert`:
// linking libtorch into the ridge binary itself would cost every command about a second and
// 150 MB just to load it.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <chrono>
#include <cmath>
#include <cstdio>

extern "C" int ridge_gemm_fp32_rates(int n, int threads, int repetitions, double* rates, char* error, int error_size) {
  try {
    at::set_num_threads(threads);
    at::manual_seed(0);
    auto a = at::rand({n, n}, at::kFloat), b = at::rand({n, n}, at::kFloat);
    auto c = at::mm(a, b);  // warm-up, and the product that is checked
    // One element against a double-precision dot product.
    auto a_row = a[n / 3].to(at::kDouble), b_col = b.select(1, n / 5).to(at::kDouble);
    double expected = (a_row * b_col).sum().item<double>();
    double got = c[n / 3][n / 5].item<double>();
    if (std::fabs(got - expected) > 1e-3 * std::fabs(expected)) {
      std::snprintf(error, static_cast<size_t>(error_size), "GEMM check failed: %g != %g", got, expected);
      return 1;
    }
    for (int rep = 0; rep < repetitions; ++rep) {
      auto start = std::chrono::steady_clock::now();
      at::mm_out(c, a, b);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      rates[rep] = 2.0 * n * n * static_cast<double>(n) / s;
    }
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, static_cast<size_t>(error_size), "%s", e.what());
    return 1;
  }
}
