// Built as a separate shared module (libridge_aten_gemm.so) and loaded only by `ridge ert`:
// linking libtorch into the ridge binary itself would cost every command about a second and
// 150 MB just to load it.
//
// Two libraries run the CPU executor's matrix products, so both are timed: ATen's at::mm (the BLAS libtorch was
// built with: products of computed tensors that oneDNN does not take) and oneDNN's matmul primitive (fully
// connected layers and batched products, exec/aten/onednn). They need not run at one rate: on an AMD EPYC with
// AVX-512 (2 cores) Debian's OpenBLAS ran a 2048^3 product at 234 GFLOP/s and oneDNN at 412, and a GEMM ceiling
// from the slower one put the roofline's "lower bound" of ResNet-50 at twice its measured time.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <dnnl.hpp>
#include <functional>

namespace {

// Checks one element of `c` = a b against a double-precision dot product, then times `repetitions` calls of
// `product` (each writes c). Returns 0, or 1 with the reason in `error`.
int time_products(int n, int repetitions, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c,
                  const std::function<void()>& product, double* rates, char* error, int error_size) {
  product();  // warm-up, and the product that is checked
  auto a_row = a[n / 3].to(at::kDouble), b_col = b.select(1, n / 5).to(at::kDouble);
  double expected = (a_row * b_col).sum().item<double>();
  double got = c[n / 3][n / 5].item<double>();
  if (std::fabs(got - expected) > 1e-3 * std::fabs(expected)) {
    std::snprintf(error, static_cast<size_t>(error_size), "GEMM check failed: %g != %g", got, expected);
    return 1;
  }
  for (int rep = 0; rep < repetitions; ++rep) {
    auto start = std::chrono::steady_clock::now();
    product();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates[rep] = 2.0 * n * n * static_cast<double>(n) / s;
  }
  return 0;
}

}  // namespace

// kernel 0: ATen's at::mm; 1: oneDNN's matmul primitive. Row-major n x n fp32 operands.
extern "C" int ridge_gemm_fp32_rates(int n, int threads, int repetitions, int kernel, double* rates, char* error,
                                     int error_size) {
  try {
    at::set_num_threads(threads);  // ATen's intra-op threads, and OpenMP's, which oneDNN's CPU runtime uses
    at::manual_seed(0);
    auto a = at::rand({n, n}, at::kFloat), b = at::rand({n, n}, at::kFloat);
    auto c = at::empty({n, n}, at::kFloat);
    if (kernel == 0)
      return time_products(
          n, repetitions, a, b, c, [&] { at::mm_out(c, a, b); }, rates, error, error_size);
    if (kernel != 1) {
      std::snprintf(error, static_cast<size_t>(error_size), "unknown GEMM kernel %d", kernel);
      return 1;
    }
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(engine);
    dnnl::memory::desc md({n, n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
    dnnl::matmul product(dnnl::matmul::primitive_desc(dnnl::matmul::desc(md, md, md), engine));
    dnnl::memory a_mem(md, engine, a.data_ptr()), b_mem(md, engine, b.data_ptr()), c_mem(md, engine, c.data_ptr());
    return time_products(
        n, repetitions, a, b, c,
        [&] {
          product.execute(stream, {{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DST, c_mem}});
          stream.wait();
        },
        rates, error, error_size);
  } catch (const std::exception& e) {
    std::snprintf(error, static_cast<size_t>(error_size), "%s", e.what());
    return 1;
  }
}
