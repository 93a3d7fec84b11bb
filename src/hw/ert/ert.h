#pragma once
// `ridge ert`: the empirical roofline of this machine (CPU): FMA peaks per precision for 1..N
// pinned threads, bandwidth of each memory level from a working-set sweep (read, write, copy,
// triad), the ERT sweep of FLOPs per byte, and the dense FP32 GEMM rate of ATen.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sys/host_cpu.h"
#include "sys/statistics.h"

namespace ridge::hw::ert {

struct ErtOptions {
  bool quick = false;                                // under 30 s: fewer repetitions, sizes and thread counts
  int max_threads = 0;                               // 0: every online CPU
  int repetitions = 0;                               // 0: 3 (quick) or 7
  std::function<void(const std::string&)> progress;  // optional progress lines
};

// Statistics of the repetitions' rates (FLOP/s or bytes/s): the one statistics module of ridge.
// The best (max) is the figure: an interrupted run only ever reads lower.
using Stats = sys::Summary;

// FMA instructions one core retires per cycle, measured with independent chains of 256-bit and
// (where AVX-512 exists) 512-bit FMAs against the clock measured on the same core, and the width
// derived from them: a family-number table cannot tell a Zen 5 (2 x 512) from a Zen 4 (512-bit
// FMAs split over two 256-bit pipes: 1 x 512), nor a client Intel core from a server one.
struct FmaWidth {
  double fma256_per_cycle = 0;      // measured
  double fma512_per_cycle = 0;      // measured; 0 without AVX-512
  int fmas_per_cycle = 0;           // derived: of `bits` width
  int bits = 0;                     // 256 or 512 (or the scalar/NEON width where no x86 kernel runs)
  double flops_per_cycle_fp32 = 0;  // fmas_per_cycle x bits / 32 x 2
  std::string description;          // e.g. "2 x 512-bit FMA per cycle (measured)"
};

// The per-core FMA width from the measured throughputs (FMA instructions per cycle). Each is
// rounded to the nearest of 0.5, 1, 2, 4 (the measured rates sit a few percent below them); the
// width that gives the most FLOPs per cycle is the peak. `fma512_per_cycle` 0: no AVX-512.
FmaWidth derive_fma_width(double fma256_per_cycle, double fma512_per_cycle);

// A measured rate above ~102% of a stated theoretical peak is not fast hardware but a wrong peak
// (too few FMA pipes assumed, a wrong clock): flagged in every output, never printed as a percent
// in silence.
inline constexpr double kAboveTheoreticalTolerance = 1.02;
inline constexpr const char* kAboveTheoreticalFlag = "above theoretical: the stated peak is wrong";
// Inline: the report (in ridge_core) flags it without linking the measuring library.
inline bool above_theoretical(double measured, double theoretical) {
  return theoretical > 0 && measured > kAboveTheoreticalTolerance * theoretical;
}

struct PeakPoint {
  int threads = 0;
  double clock_mhz = 0;  // measured with this many threads busy
  Stats fp32, fp64;      // FLOP/s
  double theoretical_fp32 = 0, theoretical_fp64 = 0;
};

struct BandwidthPoint {
  std::string kernel;  // read, write, copy, triad
  int threads = 0;
  double bytes_per_thread = 0;  // working set of one thread
  Stats rate;                   // bytes/s
  std::string level;            // l1, l2, l3, dram, or "" between levels
};

struct IntensityPoint {
  std::string level;  // where the array lives
  int fmas = 0;
  double intensity = 0;  // FLOP/byte
  Stats flops;           // FLOP/s
};

struct ErtResult {
  sys::HostCpu cpu;
  std::string isa;
  FmaWidth fma;     // measured on one core; the theoretical peaks use it
  int threads = 0;  // the largest thread count run
  std::vector<PeakPoint> peaks;
  std::vector<BandwidthPoint> bandwidth;
  std::map<std::string, double> level_bandwidth;  // level -> bytes/s (triad at max threads)
  std::map<std::string, std::map<std::string, double>> level_kernel_bandwidth;  // level -> kernel -> bytes/s
  std::vector<IntensityPoint> intensity;
  Stats gemm_fp32;                              // FLOP/s of the faster GEMM library: the matrix ceiling
  std::string gemm_kernel = "ATen at::mm";      // which library that is (results written before both were timed)
  std::map<std::string, Stats> gemm_by_kernel;  // FLOP/s of each library timed, by name
  int gemm_n = 0;
  double seconds = 0;  // wall time of the whole run
};

// Runs everything. Throws ridge::Error if a kernel's result fails its check.
ErtResult run_ert(const ErtOptions& options);

// The measured roofline as a device file (YAML, figures labelled measured).
std::string ert_device_yaml(const ErtResult& result);

}  // namespace ridge::hw::ert
