// The kernels are written with intrinsics and per-function target attributes rather than left
// to auto-vectorization: the FMA peak needs a fixed number of independent accumulators in
// registers, and one binary must run on any x86-64 (or Arm) machine, choosing at run time.
// The per-ISA FMA functions look alike but are not folded into one template: a target attribute
// applies to every instantiation, so an AVX2 instantiation could be compiled with AVX-512
// encodings and fault on CPUs without it.
#include "hw/ert/kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace ridge::hw::ert {

Isa best_isa() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Isa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
  return Isa::kScalar;
#elif defined(__aarch64__)
  return Isa::kScalar;  // NEON kernels are not written yet: the scalar ones run (and say so)
#else
  return Isa::kScalar;
#endif
}

std::string isa_name(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx2:
      return "avx2+fma";
    case Isa::kNeon:
      return "neon";
    case Isa::kScalar:
      return "scalar";
  }
  return "?";
}

int isa_bits(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return 512;
    case Isa::kAvx2:
      return 256;
    case Isa::kNeon:
      return 128;
    case Isa::kScalar:
      return 64;
  }
  return 64;
}

namespace {

template <typename T>
FmaRun scalar_fma(int64_t iterations, T a, T b) {
  constexpr int kAcc = 8;
  T acc[kAcc];
  FmaRun run;
  for (int j = 0; j < kAcc; ++j) acc[j] = static_cast<T>(j + 1), run.expected += j + 1;
  for (int64_t i = 0; i < iterations; ++i)
    for (int j = 0; j < kAcc; ++j) acc[j] = acc[j] * a + b;
  for (int j = 0; j < kAcc; ++j) run.checksum += acc[j];
  run.flops = 2.0 * kAcc * static_cast<double>(iterations);
  return run;
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) FmaRun fma512_ps(int64_t iterations, float a, float b) {
  constexpr int kAcc = 16;  // 32 zmm registers: 16 chains hide the FMA latency on two pipes
  __m512 acc[kAcc];
  FmaRun run;
  for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_set1_ps(static_cast<float>(j + 1)), run.expected += 16.0 * (j + 1);
  const __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
  for (int64_t i = 0; i < iterations; ++i)
#pragma GCC unroll 16
    for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_fmadd_ps(acc[j], va, vb);
  alignas(64) float lanes[16];  // stored and summed by hand: GCC 12 warns inside _mm512_reduce_add_ps
  for (int j = 0; j < kAcc; ++j) {
    _mm512_store_ps(lanes, acc[j]);
    for (float v : lanes) run.checksum += v;
  }
  run.flops = 2.0 * 16 * kAcc * static_cast<double>(iterations);
  return run;
}

__attribute__((target("avx512f"))) FmaRun fma512_pd(int64_t iterations, double a, double b) {
  constexpr int kAcc = 16;
  __m512d acc[kAcc];
  FmaRun run;
  for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_set1_pd(j + 1.0), run.expected += 8.0 * (j + 1);
  const __m512d va = _mm512_set1_pd(a), vb = _mm512_set1_pd(b);
  for (int64_t i = 0; i < iterations; ++i)
#pragma GCC unroll 16
    for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_fmadd_pd(acc[j], va, vb);
  alignas(64) double lanes[8];
  for (int j = 0; j < kAcc; ++j) {
    _mm512_store_pd(lanes, acc[j]);
    for (double v : lanes) run.checksum += v;
  }
  run.flops = 2.0 * 8 * kAcc * static_cast<double>(iterations);
  return run;
}

__attribute__((target("avx2,fma"))) FmaRun fma256_ps(int64_t iterations, float a, float b) {
  constexpr int kAcc = 12;  // 16 ymm registers: 12 chains plus the two operands
  __m256 acc[kAcc];
  FmaRun run;
  for (int j = 0; j < kAcc; ++j) acc[j] = _mm256_set1_ps(static_cast<float>(j + 1)), run.expected += 8.0 * (j + 1);
  const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
  for (int64_t i = 0; i < iterations; ++i)
#pragma GCC unroll 12
    for (int j = 0; j < kAcc; ++j) acc[j] = _mm256_fmadd_ps(acc[j], va, vb);
  alignas(32) float lanes[8];
  for (int j = 0; j < kAcc; ++j) {
    _mm256_store_ps(lanes, acc[j]);
    for (float v : lanes) run.checksum += v;
  }
  run.flops = 2.0 * 8 * kAcc * static_cast<double>(iterations);
  return run;
}

__attribute__((target("avx2,fma"))) FmaRun fma256_pd(int64_t iterations, double a, double b) {
  constexpr int kAcc = 12;
  __m256d acc[kAcc];
  FmaRun run;
  for (int j = 0; j < kAcc; ++j) acc[j] = _mm256_set1_pd(j + 1.0), run.expected += 4.0 * (j + 1);
  const __m256d va = _mm256_set1_pd(a), vb = _mm256_set1_pd(b);
  for (int64_t i = 0; i < iterations; ++i)
#pragma GCC unroll 12
    for (int j = 0; j < kAcc; ++j) acc[j] = _mm256_fmadd_pd(acc[j], va, vb);
  alignas(32) double lanes[4];
  for (int j = 0; j < kAcc; ++j) {
    _mm256_store_pd(lanes, acc[j]);
    for (double v : lanes) run.checksum += v;
  }
  run.flops = 2.0 * 4 * kAcc * static_cast<double>(iterations);
  return run;
}

__attribute__((target("avx2"))) double read_avx2(const double* a, size_t n, int passes) {
  // Eight independent sums: enough to hide the add latency at two loads per cycle.
  __m256d s[8];
  for (auto& v : s) v = _mm256_setzero_pd();
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < n; i += 32)
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) s[k] = _mm256_add_pd(s[k], _mm256_load_pd(a + i + 4 * k));
  for (int k = 1; k < 8; ++k) s[0] = _mm256_add_pd(s[0], s[k]);
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, s[0]);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

template <bool Streaming>
__attribute__((target("avx2"))) inline void store4(double* p, __m256d v) {
  if constexpr (Streaming)
    _mm256_stream_pd(p, v);
  else
    _mm256_store_pd(p, v);
}

template <bool Streaming>
__attribute__((target("avx2"))) void write_avx2(double* a, size_t n, double value, int passes) {
  const __m256d v = _mm256_set1_pd(value);
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < n; i += 16) {
      store4<Streaming>(a + i, v);
      store4<Streaming>(a + i + 4, v);
      store4<Streaming>(a + i + 8, v);
      store4<Streaming>(a + i + 12, v);
    }
  if constexpr (Streaming) _mm_sfence();
}

template <bool Streaming>
__attribute__((target("avx2"))) void copy_avx2(double* dst, const double* src, size_t n, int passes) {
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < n; i += 16) {
      store4<Streaming>(dst + i, _mm256_load_pd(src + i));
      store4<Streaming>(dst + i + 4, _mm256_load_pd(src + i + 4));
      store4<Streaming>(dst + i + 8, _mm256_load_pd(src + i + 8));
      store4<Streaming>(dst + i + 12, _mm256_load_pd(src + i + 12));
    }
  if constexpr (Streaming) _mm_sfence();
}

template <bool Streaming>
__attribute__((target("avx2,fma"))) void triad_avx2(double* a, const double* b, const double* c, size_t n, double s,
                                                    int passes) {
  const __m256d vs = _mm256_set1_pd(s);
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < n; i += 8) {
      store4<Streaming>(a + i, _mm256_fmadd_pd(vs, _mm256_load_pd(c + i), _mm256_load_pd(b + i)));
      store4<Streaming>(a + i + 4, _mm256_fmadd_pd(vs, _mm256_load_pd(c + i + 4), _mm256_load_pd(b + i + 4)));
    }
  if constexpr (Streaming) _mm_sfence();
}

__attribute__((target("avx2,fma"))) double intensity_avx2(float* data, size_t n, int fmas, float a, float b) {
  const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
  for (size_t i = 0; i < n; i += 64) {  // eight independent chains hide the FMA latency
    __m256 x[8];
#pragma GCC unroll 8
    for (int v = 0; v < 8; ++v) x[v] = _mm256_load_ps(data + i + 8 * v);
    for (int k = 0; k < fmas; ++k)
#pragma GCC unroll 8
      for (int v = 0; v < 8; ++v) x[v] = _mm256_fmadd_ps(x[v], va, vb);
#pragma GCC unroll 8
    for (int v = 0; v < 8; ++v) _mm256_store_ps(data + i + 8 * v, x[v]);
  }
  double sum = 0;
  for (size_t i = 0; i < 16 && i < n; ++i) sum += data[i];
  return sum;
}
#endif

}  // namespace

FmaRun fma_fp32(Isa isa, int64_t iterations, float a, float b) {
#if defined(__x86_64__)
  if (isa == Isa::kAvx512) return fma512_ps(iterations, a, b);
  if (isa == Isa::kAvx2) return fma256_ps(iterations, a, b);
#endif
  (void)isa;
  return scalar_fma<float>(iterations, a, b);
}

FmaRun fma_fp64(Isa isa, int64_t iterations, double a, double b) {
#if defined(__x86_64__)
  if (isa == Isa::kAvx512) return fma512_pd(iterations, a, b);
  if (isa == Isa::kAvx2) return fma256_pd(iterations, a, b);
#endif
  (void)isa;
  return scalar_fma<double>(iterations, a, b);
}

#if defined(__x86_64__)
static const bool kHasAvx2 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}();
#else
static const bool kHasAvx2 = false;
#endif

double read_kernel(const double* a, size_t n, int passes) {
#if defined(__x86_64__)
  if (kHasAvx2) return read_avx2(a, n, passes);
#endif
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;  // n is a multiple of 32
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < n; i += 4) s0 += a[i], s1 += a[i + 1], s2 += a[i + 2], s3 += a[i + 3];
  return s0 + s1 + s2 + s3;
}

void write_kernel(double* a, size_t n, double value, int passes, bool streaming) {
#if defined(__x86_64__)
  if (kHasAvx2) return streaming ? write_avx2<true>(a, n, value, passes) : write_avx2<false>(a, n, value, passes);
#endif
  (void)streaming;
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < n; ++i) a[i] = value;
}

void copy_kernel(double* dst, const double* src, size_t n, int passes, bool streaming) {
#if defined(__x86_64__)
  if (kHasAvx2) return streaming ? copy_avx2<true>(dst, src, n, passes) : copy_avx2<false>(dst, src, n, passes);
#endif
  (void)streaming;
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < n; ++i) dst[i] = src[i];
}

void triad_kernel(double* a, const double* b, const double* c, size_t n, double scalar, int passes, bool streaming) {
#if defined(__x86_64__)
  if (kHasAvx2)
    return streaming ? triad_avx2<true>(a, b, c, n, scalar, passes) : triad_avx2<false>(a, b, c, n, scalar, passes);
#endif
  (void)streaming;
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
}

double intensity_kernel(float* data, size_t n, int fmas, float a, float b) {
#if defined(__x86_64__)
  if (kHasAvx2) return intensity_avx2(data, n, fmas, a, b);
#endif
  for (size_t i = 0; i < n; ++i) {
    float x = data[i];
    for (int k = 0; k < fmas; ++k) x = x * a + b;
    data[i] = x;
  }
  double sum = 0;
  for (size_t i = 0; i < 16 && i < n; ++i) sum += data[i];
  return sum;
}

}  // namespace ridge::hw::ert
