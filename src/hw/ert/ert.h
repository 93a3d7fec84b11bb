#pragma once
// `ridge ert`: the empirical roofline of this machine (CPU): FMA peaks per precision for 1..N
// pinned threads, bandwidth of each memory level from a working-set sweep (read, write, copy,
// triad), the ERT sweep of FLOPs per byte, and the dense FP32 GEMM rate of ATen.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hw/host.h"

namespace ridge::hw::ert {

struct ErtOptions {
  bool quick = false;                                // under 30 s: fewer repetitions, sizes and thread counts
  int max_threads = 0;                               // 0: every online CPU
  int repetitions = 0;                               // 0: 3 (quick) or 7
  std::function<void(const std::string&)> progress;  // optional progress lines
};

struct Stats {
  double min = 0, median = 0, max = 0;  // of the repetitions' rates (FLOP/s or bytes/s)
  int samples = 0;
};

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
  HostCpu cpu;
  std::string isa;
  int threads = 0;  // the largest thread count run
  std::vector<PeakPoint> peaks;
  std::vector<BandwidthPoint> bandwidth;
  std::map<std::string, double> level_bandwidth;  // level -> bytes/s (triad at max threads)
  std::map<std::string, std::map<std::string, double>> level_kernel_bandwidth;  // level -> kernel -> bytes/s
  std::vector<IntensityPoint> intensity;
  Stats gemm_fp32;  // FLOP/s of at::mm
  int gemm_n = 0;
  double seconds = 0;  // wall time of the whole run
};

// Runs everything. Throws ridge::Error if a kernel's result fails its check.
ErtResult run_ert(const ErtOptions& options);

// The measured roofline as a device file (YAML, figures labelled measured).
std::string ert_device_yaml(const ErtResult& result);

}  // namespace ridge::hw::ert
