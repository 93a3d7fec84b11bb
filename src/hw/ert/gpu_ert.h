#pragma once
// `ridge ert --device cuda`: the empirical roofline of one NVIDIA GPU. FMA peaks per precision
// (fp64 `fma`, fp32 `fmaf`, fp16 `__hfma2` on half2) from kernels of many independent chains on
// every SM; the tensor-core peak of cuBLASLt matrix products (fp16, bf16, tf32, int8); the
// bandwidth of DRAM, L2 and L1/shared memory from read and copy kernels over working sets sized
// for each level; the launch overhead of an empty kernel. The measuring code lives in the CUDA
// module (src/hw/cuda, libridge_cuda.so, loaded on demand); this header holds the plain result
// types and the pure arithmetic both sides share (inline: the module links only ridge_core).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hw/ert/ert.h"  // above_theoretical, kAboveTheoreticalFlag
#include "sys/statistics.h"

namespace ridge::hw::ert {

struct GpuErtOptions {
  int device = 0;                                    // CUDA device index, in the runtime's order
  bool quick = false;                                // fewer repetitions, shorter runs, smaller matrices
  int repetitions = 0;                               // 0: 3 (quick) or 7
  std::function<void(const std::string&)> progress;  // optional progress lines
};

// What the runtime says about the device (cudaGetDeviceProperties, cudaDeviceGetAttribute).
struct GpuProperties {
  int index = 0;
  std::string name;                // "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;  // compute capability
  int sms = 0;                     // streaming multiprocessors
  double clock_mhz = 0;            // peak SM clock (cudaDevAttrClockRate): the theoretical peaks assume it
  double memory_clock_mhz = 0;     // peak memory clock (cudaDevAttrMemoryClockRate); 0 where not reported
  int memory_bus_bits = 0;         // global memory bus width; 0 where not reported
  double memory_bytes = 0;         // total global memory
  double free_bytes = 0;           // free when the run started
  double l2_bytes = 0;
  double shared_per_sm_bytes = 0;
  int max_threads_per_sm = 0;
  bool integrated = false;  // shares memory with the CPU (Jetson)
  std::string versions;     // "CUDA runtime 13.0, driver 13.0, cuBLASLt 13.0.2"
};

// One FMA peak (a vector precision) or one cuBLASLt product (a tensor precision).
struct GpuPeak {
  std::string precision;   // fp64, fp32, fp16 (FMA); fp16, bf16, tf32, int8 (tensor)
  sys::Summary rate;       // FLOP/s of each repetition (int8: integer operations/s); max is the figure
  double theoretical = 0;  // FLOP/s from the device's properties; 0 where ridge has no per-SM rate
  double clock_mhz = 0;    // FMA: SM clock measured during the kernel (clock64 against %globaltimer); 0: none
  int n = 0;               // tensor: M = N = K of the product
  std::string method;      // how it was measured: the kernel, or cuBLASLt's configuration
  std::string skipped;     // tensor: why it was not measured (no bf16 before sm_80, no algorithm); else ""
};

// One bandwidth point: a kernel over a working set that lives in one level.
struct GpuBandwidthPoint {
  std::string level;       // l1, l2, dram
  std::string kernel;      // read, copy (DRAM, L2), l1-read, shared-read (L1)
  double bytes = 0;        // working set: all arrays in device memory; for L1 the bytes one SM (block) reads
  sys::Summary rate;       // bytes/s (copy counts the bytes read and the bytes written, as STREAM)
  double theoretical = 0;  // bytes/s where derivable (DRAM, L1/shared); 0 otherwise
};

struct GpuErtResult {
  GpuProperties gpu;
  bool quick = false;
  int repetitions = 0;
  std::vector<GpuPeak> fma;     // fp64, fp32, fp16
  std::vector<GpuPeak> tensor;  // fp16, bf16, tf32, int8
  std::vector<GpuBandwidthPoint> bandwidth;
  sys::Summary launch_overhead_s;  // seconds per empty kernel, launched back to back on one stream
  double seconds = 0;              // wall time of the whole run
};

// Runs everything on `options.device` through the CUDA module. Throws ridge::Error (one line)
// when this build has no CUDA module, the module does not load, there is no usable GPU, or a
// kernel's result fails its check.
GpuErtResult run_gpu_ert(const GpuErtOptions& options);

// The measured roofline as a device file (YAML in the schema of devices/*.yaml, every figure
// labelled measured, with its source).
std::string gpu_ert_device_yaml(const GpuErtResult& result);

// The best point of each level (l1, l2, dram): its bytes/s, and which kernel and working set.
// Inline: the report (in ridge_core) uses it without linking the measuring library.
struct LevelBandwidth {
  double rate = 0, theoretical = 0, bytes = 0;
  std::string kernel;
};
inline std::map<std::string, LevelBandwidth> best_level_bandwidth(const GpuErtResult& result) {
  std::map<std::string, LevelBandwidth> best;
  for (const auto& p : result.bandwidth) {
    auto& b = best[p.level];
    if (p.rate.max > b.rate) b = {p.rate.max, p.theoretical, p.bytes, p.kernel};
  }
  return best;
}

// ---- The arithmetic of the theoretical figures and of the run's sizes (pure; unit-tested) ----

// FMA results one SM retires per clock, and dense tensor-core FLOPs per clock, of one compute
// capability. A half2 FMA is two results; FP16 tensor FLOPs are at FP32 accumulation and at the
// full rate of the data-centre and professional parts (GeForce boards of 7.5, 8.6 and 8.9 run FP32
// accumulation at half of it: there the figure is an upper bound).
struct SmRates {
  int major = 0, minor = 0;
  int fp64 = 0, fp32 = 0, fp16 = 0;  // FMA results per clock per SM
  int tensor_fp16 = 0;               // dense FP16 tensor FLOPs per clock per SM (tf32 half, bf16 equal, int8 twice)
  const char* source = "";
};

// Sources: the CUDA C++ Programming Guide, "Arithmetic Instructions" (throughput of native
// arithmetic instructions, results per clock cycle per multiprocessor), checked against each
// architecture's whitepaper (non-tensor FP16 of GA10x and AD10x runs at the FP32 rate); tensor
// FLOPs per clock per SM = the datasheet's dense FP16 peak / (SMs x boost clock) of the part named.
inline constexpr SmRates kSmRates[] = {
    {7, 5, 2, 64, 128, 1024, "Turing (T4: 65 TFLOPS fp16 tensor = 40 SMs x 1590 MHz x 1024)"},
    {8, 0, 32, 64, 256, 2048, "GA100 (A100: 312 TFLOPS fp16 tensor = 108 SMs x 1410 MHz x 2048)"},
    {8, 6, 2, 128, 128, 1024, "GA10x (RTX A6000: 154.8 TFLOPS fp16 tensor = 84 SMs x 1800 MHz x 1024)"},
    {8, 7, 2, 128, 256, 2048, "GA10B (Jetson AGX Orin: 42.6 TFLOPS fp16 tensor = 16 SMs x 1300 MHz x 2048)"},
    {8, 9, 2, 128, 128, 1024, "AD10x (L4: 121 TFLOPS fp16 tensor = 58 SMs x 2040 MHz x 1024)"},
    {9, 0, 64, 128, 256, 4096, "GH100 (H100 SXM: 989.4 TFLOPS fp16 tensor = 132 SMs x 1830 MHz x 4096)"},
};

// The rates of a compute capability; nullptr where ridge's table has no row (then no theoretical
// figure is printed, never a guessed one).
inline const SmRates* sm_rates(int major, int minor) {
  for (const auto& r : kSmRates)
    if (r.major == major && r.minor == minor) return &r;
  return nullptr;
}

// FMA results per clock per SM for fp64, fp32 or fp16 (half2); 0 where unknown.
inline int fma_per_clock(const SmRates* rates, std::string_view precision) {
  if (!rates) return 0;
  if (precision == "fp64") return rates->fp64;
  if (precision == "fp32") return rates->fp32;
  if (precision == "fp16") return rates->fp16;
  return 0;
}

// Dense tensor FLOPs (int8: operations) per clock per SM for fp16, bf16, tf32 or int8; 0 where the
// compute capability has none (bf16 and tf32 before 8.0) or is unknown.
inline double tensor_flops_per_clock(const SmRates* rates, std::string_view precision) {
  if (!rates) return 0;
  bool ampere_or_later = rates->major >= 8;
  if (precision == "fp16") return rates->tensor_fp16;
  if (precision == "bf16") return ampere_or_later ? rates->tensor_fp16 : 0;
  if (precision == "tf32") return ampere_or_later ? rates->tensor_fp16 / 2.0 : 0;
  if (precision == "int8") return 2.0 * rates->tensor_fp16;
  return 0;
}

// SMs x FMA results per clock x 2 FLOPs x clock. H100 SXM fp32: 132 x 128 x 2 x 1980 MHz = 66.9 TFLOP/s.
inline double theoretical_fma_flops(int sms, double clock_mhz, int fma_per_clock_per_sm) {
  return static_cast<double>(sms) * fma_per_clock_per_sm * 2.0 * clock_mhz * 1e6;
}

// SMs x tensor FLOPs per clock x clock.
inline double theoretical_tensor_flops(int sms, double clock_mhz, double flops_per_clock_per_sm) {
  return static_cast<double>(sms) * flops_per_clock_per_sm * clock_mhz * 1e6;
}

// Memory clock x 2 transfers per clock x bus width in bytes (the runtime reports GDDR6X's clock
// so that this holds too). H100 SXM: 2619 MHz x 2 x 5120 / 8 = 3.35 TB/s. 0 where not reported.
inline double theoretical_dram_bandwidth(double memory_clock_mhz, int bus_bits) {
  return memory_clock_mhz * 1e6 * 2.0 * bus_bits / 8.0;
}

// Shared memory: 32 banks of 4 bytes per clock per SM (CUDA C++ Programming Guide, "Shared
// Memory" of compute capabilities 5.x and later). H100 SXM: 132 x 128 B x 1980 MHz = 33.5 TB/s.
inline double theoretical_shared_bandwidth(int sms, double clock_mhz) {
  return static_cast<double>(sms) * 32 * 4 * clock_mhz * 1e6;
}

// Bytes (or FLOPs) over seconds; 0 for a duration that is not positive.
inline double per_second(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0; }

// The working sets of the bandwidth kernels.
struct GpuWorkingSets {
  double l1 = 0;                // bytes every block (so every SM) reads again and again through L1
  double shared = 0;            // bytes of shared memory one block reads again and again
  std::vector<double> l2;       // device arrays that stay in L2: an eighth, a quarter, half of it
  double dram = 0;              // a device array many times L2: it cannot stay in any cache
  std::string dram_limited_by;  // "" or why DRAM's working set is below 8 x L2 (little free memory)
};

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kKiB = 1024.0;

// L1: 16 KiB per SM (half or less of the smallest L1 of the supported GPUs: Turing keeps at
// least 32 KiB of its 96 KiB for L1), read by every block of the SM. Shared: 16 KiB per block
// (several resident blocks per SM: three in sm_75's 64 KiB, eight of 256 threads on Hopper). L2: 1/8, 1/4 and 1/2 of it
// (the best is the level's figure: partitioned L2s keep less than all of it near each SM). DRAM: 1 GiB or a quarter of
// the free memory, whichever is smaller, but at least 8 x L2 where half the free memory allows.
inline GpuWorkingSets plan_working_sets(double l2_bytes, double free_bytes) {
  GpuWorkingSets w;
  w.l1 = 16 * kKiB;
  w.shared = 16 * kKiB;
  if (l2_bytes > 0)
    for (double fraction : {0.125, 0.25, 0.5}) w.l2.push_back(l2_bytes * fraction);
  w.dram = std::min(kGiB, free_bytes / 4);
  double eight_l2 = 8 * l2_bytes;
  if (w.dram < eight_l2) {
    w.dram = std::min(eight_l2, free_bytes / 2);
    if (w.dram < eight_l2) w.dram_limited_by = "half the free memory is less than 8 x L2";
  }
  return w;
}

// M = N = K of the tensor-core products: 8192 (4096 with --quick), halved while three n x n
// matrices of 4-byte elements (tf32 inputs, int32 results) and the workspace would take more than
// half of the free memory; at least 1024.
inline constexpr double kGemmWorkspaceBytes = 32.0 * 1024 * 1024;  // cuBLAS's recommendation for Hopper
inline int gemm_size(bool quick, double free_bytes) {
  int n = quick ? 4096 : 8192;
  while (n > 1024 && 3.0 * n * n * 4 + kGemmWorkspaceBytes > free_bytes / 2) n /= 2;
  return n;
}

// 2 x M x N x K.
inline double gemm_flops(int n) { return 2.0 * n * n * n; }

}  // namespace ridge::hw::ert
