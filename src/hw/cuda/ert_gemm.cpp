// The tensor-core peaks of `ridge ert --device cuda`: cuBLASLt products of n x n matrices (fp16 and
// bf16 with FP32 accumulation, fp32 inputs on TF32 tensor cores, int8 with INT32 accumulation) with a
// 32 MiB workspace, timed with CUDA events. A ceiling must be cuBLASLt's best, not its first guess (a
// product measured elsewhere must not land above it): every algorithm of the heuristic's top kCandidates,
// with A as stored ("NN") and transposed ("TN"; int8 takes TN only), is timed briefly and the fastest is
// measured in full. FLOPs are 2 x M x N x K; elements of each candidate's product are checked against the
// host's sum.
#include <cublasLt.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "hw/cuda/ert_device.h"
#include "hw/cuda/ert_kernels.h"
#include "util/error.h"

namespace ridge::hw::cuda {
namespace {

using sys::cuda::check;

constexpr int kCandidates = 8;  // algorithms asked of the heuristic per layout

struct Config {
  const char* precision;
  MatrixType input;
  cudaDataType_t ab_type, cd_type;
  cublasComputeType_t compute;
  cudaDataType_t scale_type;
  size_t ab_bytes, cd_bytes;
  bool nn;  // also try A as stored ("NN"); every type tries it transposed ("TN"), which int8 requires
  const char* description;
};

const Config kConfigs[] = {
    {"fp16", MatrixType::kFp16, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, 2, 2, true,
     "fp16 A, B, D; CUBLAS_COMPUTE_32F"},
    {"bf16", MatrixType::kBf16, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, 2, 2, true,
     "bf16 A, B, D; CUBLAS_COMPUTE_32F"},
    {"tf32", MatrixType::kFp32, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, 4, 4, true,
     "fp32 A, B, D; CUBLAS_COMPUTE_32F_FAST_TF32"},
    {"int8", MatrixType::kInt8, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUDA_R_32I, 1, 4, false,
     "int8 A, B; int32 D; CUBLAS_COMPUTE_32I"},
};

class LtHandle {
 public:
  LtHandle() { check(cublasLtCreate(&handle_), "cublasLtCreate"); }
  ~LtHandle() { cublasLtDestroy(handle_); }
  LtHandle(const LtHandle&) = delete;
  LtHandle& operator=(const LtHandle&) = delete;
  cublasLtHandle_t get() const { return handle_; }

 private:
  cublasLtHandle_t handle_ = nullptr;
};

class MatmulDesc {
 public:
  MatmulDesc(cublasComputeType_t compute, cudaDataType_t scale, bool transpose_a) {
    check(cublasLtMatmulDescCreate(&desc_, compute, scale), "cublasLtMatmulDescCreate");
    cublasOperation_t a = transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, b = CUBLAS_OP_N;
    check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &a, sizeof a),
          "cublasLtMatmulDescSetAttribute(TRANSA)");
    check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &b, sizeof b),
          "cublasLtMatmulDescSetAttribute(TRANSB)");
  }
  ~MatmulDesc() { cublasLtMatmulDescDestroy(desc_); }
  MatmulDesc(const MatmulDesc&) = delete;
  MatmulDesc& operator=(const MatmulDesc&) = delete;
  cublasLtMatmulDesc_t get() const { return desc_; }

 private:
  cublasLtMatmulDesc_t desc_ = nullptr;
};

class Layout {
 public:
  Layout(cudaDataType_t type, int n) {
    check(cublasLtMatrixLayoutCreate(&layout_, type, static_cast<uint64_t>(n), static_cast<uint64_t>(n), n),
          "cublasLtMatrixLayoutCreate");
  }
  ~Layout() { cublasLtMatrixLayoutDestroy(layout_); }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;
  cublasLtMatrixLayout_t get() const { return layout_; }

 private:
  cublasLtMatrixLayout_t layout_ = nullptr;
};

class Preference {
 public:
  explicit Preference(size_t workspace_bytes) {
    check(cublasLtMatmulPreferenceCreate(&preference_), "cublasLtMatmulPreferenceCreate");
    check(cublasLtMatmulPreferenceSetAttribute(preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                               sizeof workspace_bytes),
          "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  }
  ~Preference() { cublasLtMatmulPreferenceDestroy(preference_); }
  Preference(const Preference&) = delete;
  Preference& operator=(const Preference&) = delete;
  cublasLtMatmulPreference_t get() const { return preference_; }

 private:
  cublasLtMatmulPreference_t preference_ = nullptr;
};

double half_to_double(uint16_t h) {
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v = exponent == 0    ? std::ldexp(mantissa, -24)
             : exponent == 31 ? (mantissa ? NAN : INFINITY)
                              : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -v : v;
}

double bf16_to_double(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Element (i, j) of the column-major product, read back and converted.
double product_element(const Config& c, const DeviceMemory& d, int n, int i, int j) {
  size_t index = static_cast<size_t>(i) + static_cast<size_t>(j) * static_cast<size_t>(n);
  uint32_t raw = 0;
  check(cudaMemcpy(&raw, d.as<char>() + index * c.cd_bytes, c.cd_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  switch (c.cd_type) {
    case CUDA_R_16F:
      return half_to_double(static_cast<uint16_t>(raw));
    case CUDA_R_16BF:
      return bf16_to_double(static_cast<uint16_t>(raw));
    case CUDA_R_32I:
      return static_cast<int32_t>(raw);
    default: {
      float f;
      std::memcpy(&f, &raw, sizeof f);
      return f;
    }
  }
}

// D(i, j) = sum over k of op(A)(i, k) x B(k, j): exact for int8; within 1% of the sum of the
// products' magnitudes for the floating types (their inputs and outputs are rounded to 8 to 11
// mantissa bits: a few tenths of a percent at most).
void check_product(const Config& c, bool transpose_a, const DeviceMemory& d, int n, int i, int j) {
  double expected = 0, magnitude = 0;
  for (int k = 0; k < n; ++k) {
    size_t a_index = transpose_a ? static_cast<size_t>(k) + static_cast<size_t>(i) * n
                                 : static_cast<size_t>(i) + static_cast<size_t>(k) * n;
    size_t b_index = static_cast<size_t>(k) + static_cast<size_t>(j) * n;
    double a = c.input == MatrixType::kInt8 ? matrix_int8(a_index) : matrix_float(a_index);
    double b = c.input == MatrixType::kInt8 ? matrix_int8(b_index) : matrix_float(b_index);
    expected += a * b;
    magnitude += std::fabs(a * b);
  }
  double got = product_element(c, d, n, i, j);
  double tolerance = c.input == MatrixType::kInt8 ? 0 : 1e-2 * magnitude + 1e-6;
  if (!(std::fabs(got - expected) <= tolerance))
    throw Error(fmt::format("ert: kernel check failed: cuBLASLt {} product element ({}, {}) is {}, not {}", c.precision,
                            i, j, got, expected));
}

ert::GpuPeak measure(const Run& run, cublasLtHandle_t lt, const Config& c, int n) {
  ert::GpuPeak peak;
  peak.precision = c.precision;
  peak.n = n;
  peak.theoretical = ert::theoretical_tensor_flops(run.gpu.sms, run.gpu.clock_mhz,
                                                   ert::tensor_flops_per_clock(run.rates, c.precision));
  std::string precision = c.precision;
  if ((precision == "bf16" || precision == "tf32") && run.gpu.cc_major < 8) {
    peak.skipped = "bf16 and tf32 tensor cores need compute capability 8.0 or later";
    run.say(fmt::format("tensor {}: skipped: {}", precision, peak.skipped));
    return peak;
  }
  const auto elements = static_cast<size_t>(n) * static_cast<size_t>(n);
  DeviceMemory a(elements * c.ab_bytes, "matrix A"), b(elements * c.ab_bytes, "matrix B"),
      d(elements * c.cd_bytes, "matrix D");
  const auto workspace_bytes = static_cast<size_t>(ert::kGemmWorkspaceBytes);
  DeviceMemory workspace(workspace_bytes, "the cuBLASLt workspace");
  check(launch_fill_matrix(a.as<void>(), elements, c.input, run.stream), "the fill kernel's launch");
  check(launch_fill_matrix(b.as<void>(), elements, c.input, run.stream), "the fill kernel's launch");
  Layout ab(c.ab_type, n), cd(c.cd_type, n);
  Preference preference(workspace_bytes);
  const float alpha_f = 1, beta_f = 0;
  const int32_t alpha_i = 1, beta_i = 0;
  const void* alpha = c.scale_type == CUDA_R_32I ? static_cast<const void*>(&alpha_i) : &alpha_f;
  const void* beta = c.scale_type == CUDA_R_32I ? static_cast<const void*>(&beta_i) : &beta_f;
  const std::string what = fmt::format("cublasLtMatmul ({})", precision);
  EventTimer timer(run.stream);

  struct Candidate {
    bool transpose_a = false;
    int rank = 0;  // its place in the heuristic's list
    cublasLtMatmulAlgo_t algo{};
  };
  std::vector<Candidate> candidates;
  cublasStatus_t last = CUBLAS_STATUS_SUCCESS;
  for (bool transpose_a : {true, false}) {
    if (!transpose_a && !c.nn) continue;
    MatmulDesc desc(c.compute, c.scale_type, transpose_a);
    cublasLtMatmulHeuristicResult_t results[kCandidates]{};
    int found = 0;
    last = cublasLtMatmulAlgoGetHeuristic(lt, desc.get(), ab.get(), ab.get(), cd.get(), cd.get(), preference.get(),
                                          kCandidates, results, &found);
    if (last != CUBLAS_STATUS_SUCCESS) continue;
    for (int k = 0; k < found; ++k)
      if (results[k].state == CUBLAS_STATUS_SUCCESS) candidates.push_back({transpose_a, k, results[k].algo});
  }
  if (candidates.empty()) {
    peak.skipped = fmt::format("cuBLASLt has no algorithm for it on this GPU ({})",
                               last == CUBLAS_STATUS_SUCCESS ? "none found" : sys::cuda::status_name(last));
    run.say(fmt::format("tensor {}: skipped: {}", precision, peak.skipped));
    return peak;
  }
  auto timer_of = [&](const Candidate& candidate, const MatmulDesc& desc) {
    return [&, desc_ptr = desc.get(), algo = candidate.algo](long long calls) {
      return timer.seconds([&] {
        for (long long i = 0; i < calls; ++i)
          check(cublasLtMatmul(lt, desc_ptr, alpha, a.as<void>(), ab.get(), b.as<void>(), ab.get(), beta, d.as<void>(),
                               cd.get(), d.as<void>(), cd.get(), &algo, workspace.as<void>(), workspace_bytes,
                               run.stream),
                what);
      });
    };
  };
  // The search: each candidate checked, then timed for the calls the first one needs for run.min_seconds
  // (best of two); a candidate cuBLASLt refuses at launch is skipped.
  size_t best = 0;
  double best_seconds = 0;
  long long trial_calls = 0;
  for (size_t k = 0; k < candidates.size(); ++k) {
    MatmulDesc desc(c.compute, c.scale_type, candidates[k].transpose_a);
    auto time = timer_of(candidates[k], desc);
    try {
      time(1);  // warm-up
    } catch (const Error&) {
      continue;
    }
    check_product(c, candidates[k].transpose_a, d, n, 0, 0);
    check_product(c, candidates[k].transpose_a, d, n, n - 1, n - 1);
    if (trial_calls == 0) trial_calls = size_for(run, 1, 1 << 16, time);
    const double seconds = std::min(time(trial_calls), time(trial_calls));
    if (best_seconds == 0 || seconds < best_seconds) {
      best = k;
      best_seconds = seconds;
    }
  }
  if (best_seconds == 0) throw Error(fmt::format("ert: cuBLASLt refused every {} algorithm it offered", precision));
  const Candidate& chosen = candidates[best];
  MatmulDesc desc(c.compute, c.scale_type, chosen.transpose_a);
  auto time = timer_of(chosen, desc);
  long long calls = size_for(run, 1, 1 << 16, time);
  peak.rate = sys::summarize(rates(run, calls, time, [&](long long k) { return ert::gemm_flops(n) * k; }));
  check_product(c, chosen.transpose_a, d, n, n / 2, n / 3);
  peak.method = fmt::format(
      "cublasLtMatmul, M = N = K = {}, {}, {}; the fastest of {} candidates (the heuristic's top {} with A as stored "
      "and transposed): its #{} for {}, {:.0f} MiB workspace",
      n, chosen.transpose_a ? "A transposed (TN)" : "A as stored (NN)", c.description, candidates.size(), kCandidates,
      chosen.rank + 1, chosen.transpose_a ? "TN" : "NN", ert::kGemmWorkspaceBytes / 1048576);
  run.say(fmt::format("tensor {} (cuBLASLt, n = {}, {} candidates): {}", precision, n, candidates.size(),
                      rate_text(peak.rate.max, peak.theoretical, precision == "int8" ? "OP/s" : "FLOP/s")));
  return peak;
}

}  // namespace

std::vector<ert::GpuPeak> measure_tensor_peaks(const Run& run) {
  LtHandle lt;
  int n = ert::gemm_size(run.options.quick, run.gpu.free_bytes);
  std::vector<ert::GpuPeak> peaks;
  for (const auto& c : kConfigs) peaks.push_back(measure(run, lt.get(), c, n));
  return peaks;
}

}  // namespace ridge::hw::cuda
