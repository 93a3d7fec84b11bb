#include "hw/host.h"

#include <fmt/format.h>

namespace ridge::hw {

Device detect_host() {
  auto cpu = sys::detect_host_cpu();
  Device d;
  d.id = "host";
  d.name = cpu.model.empty() ? "this machine" : cpu.model;
  d.kind = "cpu";
  d.file = "(detected)";
  d.clocks["cpu"] = ClockDomain{cpu.max_mhz, 0, cpu.cores, cpu.clock_source};
  ComputeUnit simd;
  simd.name = "cpu-simd";
  simd.clock = "cpu";
  simd.scales_with_cores = true;
  double fp32_per_cycle = cpu.simd_bits / 32.0 * cpu.fma_units * 2;
  double hz = cpu.max_mhz * 1e6;
  simd.peak_flops["fp32"] = cpu.cores * fp32_per_cycle * hz;
  simd.peak_flops["fp64"] = cpu.cores * fp32_per_cycle / 2 * hz;
  simd.source = fmt::format("theoretical: {} cores x {} lanes x {} FMA x 2 x {} MHz; {}", cpu.cores, cpu.simd_bits / 32,
                            cpu.fma_units, cpu.max_mhz, cpu.simd_note);
  simd.label = kTheoretical;
  d.units.push_back(simd);
  for (const auto& [level, bytes] : cpu.caches)
    d.memory.push_back({level, "cache", bytes, 0, "", "sysfs cpu0/cache (per instance)", kDatasheet});
  d.memory.push_back({"dram", "", 0, 0, "", "bandwidth unknown until measured (ridge ert, to come)", kDatasheet});
  d.overhead_s = 1e-6;
  d.overhead_source = "ridge default for a CPU op dispatch (1 us), until calibrated";
  d.modes.push_back(
      PowerMode{"default", {{"cpu", cpu.max_mhz}}, {{"cpu", cpu.cores}}, std::nullopt, "the running configuration"});
  return d;
}

}  // namespace ridge::hw
