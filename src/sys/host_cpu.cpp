#include "sys/host_cpu.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

namespace ridge::sys {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

double parse_cache_size(const std::string& text) {
  if (text.empty()) return 0;
  double value = std::stod(text);
  char unit = text.back();
  return unit == 'K' ? value * 1024 : unit == 'M' ? value * 1024 * 1024 : value;
}

}  // namespace

HostCpu detect_host_cpu() {
  HostCpu cpu;
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  auto& flags = cpu.flags;
  double reported_mhz = 0;
  while (std::getline(info, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    auto value = colon + 2 <= line.size() ? line.substr(colon + 2) : std::string();
    if (key == "model name" && cpu.model.empty())
      cpu.model = value;
    else if (key == "vendor_id" && cpu.vendor.empty())
      cpu.vendor = value;
    else if (key == "cpu family" && !cpu.family)
      cpu.family = std::atoi(value.c_str());
    else if (key == "model" && !cpu.model_number)
      cpu.model_number = std::atoi(value.c_str());
    else if (key == "cpu MHz" && reported_mhz == 0)
      reported_mhz = std::atof(value.c_str());
    else if ((key == "flags" || key == "Features") && flags.empty()) {
      std::istringstream words(value);
      std::string word;
      while (words >> word) flags.insert(word);
    }
  }
  cpu.cores = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  auto max_khz = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (!max_khz.empty()) {
    cpu.max_mhz = std::atof(max_khz.c_str()) / 1000;
    cpu.clock_source = "sysfs cpufreq/cpuinfo_max_freq";
  } else {
    cpu.max_mhz = reported_mhz;
    cpu.clock_source = "/proc/cpuinfo 'cpu MHz' (no cpufreq in sysfs: the current, not the maximum, clock)";
  }
  bool amd = cpu.vendor == "AuthenticAMD";
  // A table by family is a first guess only: `ridge ert` measures the FMA width per cycle and
  // states its peaks from that.
  if (flags.count("avx512f") && amd && cpu.family >= 26) {
    // Zen 5 (family 26) desktop and server cores have a full 512-bit datapath: two 512-bit FMAs.
    cpu.simd_bits = 512;
    cpu.fma_units = 2;
    cpu.simd_note = "AVX-512 on AMD family 26 (Zen 5: 2 x 512-bit FMA pipes assumed; mobile parts have 256-bit pipes)";
  } else if (flags.count("avx512f") && amd) {
    // Zen 4 (family 25) runs 512-bit FMAs on two 256-bit pipes: one 512-bit FMA per cycle.
    cpu.simd_bits = 512;
    cpu.fma_units = 1;
    cpu.simd_note = "AVX-512 on AMD family 25 (Zen 4: 2 x 256-bit FMA pipes = one 512-bit FMA per cycle)";
  } else if (flags.count("avx512f")) {
    // Intel server cores with AVX-512 have two 512-bit FMA units (some client parts have one).
    cpu.simd_bits = 512;
    cpu.fma_units = 2;
    cpu.simd_note = "AVX-512 on Intel: 2 FMA units assumed (Xeon Gold/Platinum)";
  } else if (flags.count("avx2") && flags.count("fma")) {
    cpu.simd_bits = 256;
    cpu.fma_units = 2;
    cpu.simd_note = "AVX2 + FMA: 2 FMA units (Haswell and later, Zen and later)";
  } else if (flags.count("asimd")) {
    cpu.simd_bits = 128;
    cpu.fma_units = 2;
    cpu.simd_note = "Arm NEON: 2 x 128-bit FMA pipes assumed (Cortex-A7x class)";
  } else {
    cpu.simd_bits = 128;
    cpu.fma_units = 1;
    cpu.simd_note = "SSE: one 128-bit multiply and add per cycle assumed";
  }
  for (int index = 0; index < 8; ++index) {
    auto base = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", index);
    auto level = read_first_line(base + "level");
    if (level.empty()) break;
    if (read_first_line(base + "type") == "Instruction") continue;
    cpu.caches.emplace_back("l" + level, parse_cache_size(read_first_line(base + "size")));
  }
  return cpu;
}

}  // namespace ridge::sys
