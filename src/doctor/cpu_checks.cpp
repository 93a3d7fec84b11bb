// The CPU: what the executor and `ridge ert` run on.
#include <fmt/format.h>
#include <sched.h>
#include <sys/utsname.h>

#include "doctor/checks.h"
#include "sys/host_cpu.h"

namespace ridge::doctor {
namespace {

std::string machine_name() {
  utsname u{};
  return ::uname(&u) == 0 ? u.machine : "";
}

bool is_x86(const std::string& machine) {
  return machine == "x86_64" || machine == "i686" || machine == "i386" || machine == "amd64";
}

// One x86 extension: ok when any of `flags` is listed, not applicable on other architectures.
Check isa_check(const sys::HostCpu& cpu, const std::string& machine, const std::string& name,
                const std::vector<std::string>& flags, const std::string& without) {
  if (!is_x86(machine)) return not_applicable("cpu", name, fmt::format("an x86 extension; this CPU is {}", machine));
  std::string found;
  for (const auto& f : flags)
    if (cpu.flags.count(f)) found += (found.empty() ? "" : " ") + f;
  if (!found.empty()) return ok("cpu", name, found);
  return missing("cpu", name, "not in /proc/cpuinfo flags: " + without, "none: a CPU feature");
}

}  // namespace

std::vector<Check> cpu_checks() {
  auto cpu = sys::detect_host_cpu();
  auto machine = machine_name();
  std::vector<Check> checks;
  checks.push_back(ok("cpu", "CPU model",
                      cpu.model.empty() ? fmt::format("{} (/proc/cpuinfo names no model)", machine)
                                        : fmt::format("{} ({})", cpu.model, machine)));
  checks.push_back(isa_check(cpu, machine, "avx2", {"avx2"}, "oneDNN and OpenBLAS use SSE kernels"));
  checks.push_back(isa_check(cpu, machine, "avx512f", {"avx512f"},
                             "oneDNN and OpenBLAS use AVX2 kernels (half the FP32 peak per core of AVX-512)"));
  checks.push_back(isa_check(cpu, machine, "amx", {"amx_tile", "amx_bf16", "amx_int8"},
                             "bf16 and int8 matrix products run on the vector units (AMX: Sapphire Rapids and later)"));
  cpu_set_t set;
  CPU_ZERO(&set);
  int usable = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : cpu.cores;
  checks.push_back(ok("cpu", "logical cores", fmt::format("{} online, {} usable by this process", cpu.cores, usable)));
  if (cpu.max_mhz > 0)
    checks.push_back(ok("cpu", "max clock", fmt::format("{:.0f} MHz, from {}", cpu.max_mhz, cpu.clock_source)));
  else
    checks.push_back(missing("cpu", "max clock", "neither sysfs cpufreq nor /proc/cpuinfo gives a clock",
                             "ridge ert measures the clock under load"));
  return checks;
}

}  // namespace ridge::doctor
