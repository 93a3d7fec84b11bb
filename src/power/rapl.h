#pragma once
// Linux RAPL through powercap: class/powercap/intel-rapl:N ("package-N") and its subdomain
// intel-rapl:N:M named "dram". Each domain has a cumulative energy_uj counter that wraps at
// max_energy_range_uj; power is the counter's difference over time. Since Linux 5.10 energy_uj is
// readable by root only (CVE-2020-8694, "PLATYPUS").
#include <memory>
#include <string>

#include "power/sampler.h"

namespace ridge::power {

// domain: "package" (every package-N, summed) or "dram" (every package's dram subdomain).
std::unique_ptr<Sampler> rapl_sampler(const std::string& domain);

// The one-line error for an energy_uj that cannot be read (`error` is the errno): it says how to fix it.
std::string rapl_unreadable(const std::string& path, int error);

}  // namespace ridge::power
