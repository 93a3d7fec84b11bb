#pragma once
// The CPU ridge runs on, detected from /proc/cpuinfo and sysfs: what the executors record with every run and
// what hw/host.h turns into a device with theoretical peaks.
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ridge::sys {

struct HostCpu {
  std::string model;
  std::string vendor;
  int family = 0, model_number = 0;
  int cores = 0;  // online logical CPUs used for compute
  double max_mhz = 0;
  std::string clock_source;
  int simd_bits = 0;                                   // widest vector ISA: 512 (AVX-512), 256 (AVX2), 128 (SSE/NEON)
  int fma_units = 0;                                   // FMA pipes of that width per core
  std::string simd_note;                               // why these were chosen
  std::vector<std::pair<std::string, double>> caches;  // level (l1/l2/l3) -> bytes per instance
  std::set<std::string> flags;                         // ISA flags ("flags" on x86, "Features" on Arm)
};

HostCpu detect_host_cpu();

}  // namespace ridge::sys
