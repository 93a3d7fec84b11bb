#include "hw/roofline.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "hw/energy.h"
#include "util/error.h"

namespace ridge::hw {
namespace {

double parse_frequency_mhz(const std::string& text, const std::string& spec) {
  double scale = 1;
  std::string number = text;
  auto ends_with = [&](const char* suffix) {
    std::string s(suffix);
    return number.size() > s.size() && number.compare(number.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with("GHz"))
    scale = 1000, number.resize(number.size() - 3);
  else if (ends_with("MHz"))
    number.resize(number.size() - 3);
  double value = 0;
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || ptr != number.data() + number.size() || value <= 0)
    throw Error(fmt::format("custom mode '{}': '{}' is not a frequency (e.g. 918MHz, 1.5GHz)", spec, text));
  return value * scale;
}

}  // namespace

double EnergyRoofline::e_flop(const std::string& key) const {
  auto it = e_flop_j.find(key);
  if (it == e_flop_j.end()) it = e_flop_j.find("*");
  return it == e_flop_j.end() ? 0 : it->second;
}

std::string ceiling_key(const ComputeUnit& unit, const std::string& precision) {
  return unit.key_prefix + precision +
         (unit.type == UnitType::kMatrix ? "_tensor"
          : unit.type == UnitType::kGemm ? "_gemm"
                                         : "");
}

double Roofline::ridge_point(const std::string& peak_key) const {
  auto p = peak_flops.find(peak_key);
  auto b = bandwidth.find("dram");
  if (p == peak_flops.end() || b == bandwidth.end() || b->second.value <= 0) return 0;
  return p->second.value / b->second.value;
}

PowerMode resolve_mode(const Device& device, const std::string& mode) {
  if (mode.empty()) return device.modes.front();
  for (const auto& m : device.modes)
    if (m.name == mode) return m;
  if (mode.find('=') == std::string::npos) {
    std::string names;
    for (const auto& m : device.modes) names += (names.empty() ? "" : ", ") + m.name;
    throw Error(
        fmt::format("device '{}' has no power mode '{}' (modes: {}; or a custom gpu=918MHz,emc=2133MHz,cpu=8x1.5GHz)",
                    device.id, mode, names));
  }
  PowerMode custom = device.modes.front();
  custom.name = mode;
  custom.source = "custom mode given on the command line";
  custom.power_budget_w.reset();
  size_t pos = 0;
  while (pos < mode.size()) {
    auto comma = mode.find(',', pos);
    if (comma == std::string::npos) comma = mode.size();
    auto part = mode.substr(pos, comma - pos);
    pos = comma + 1;
    auto eq = part.find('=');
    if (eq == std::string::npos) throw Error(fmt::format("custom mode '{}': '{}' is not DOMAIN=FREQUENCY", mode, part));
    auto domain = part.substr(0, eq), value = part.substr(eq + 1);
    auto clock = device.clocks.find(domain);
    if (clock == device.clocks.end()) {
      std::string domains;
      for (const auto& [name, c] : device.clocks) domains += (domains.empty() ? "" : ", ") + name;
      throw Error(fmt::format("custom mode '{}': device '{}' has no clock domain '{}' (domains: {})", mode, device.id,
                              domain, domains));
    }
    auto x = value.find('x');
    if (x != std::string::npos) {
      int cores = 0;
      auto count = value.substr(0, x);
      auto [ptr, ec] = std::from_chars(count.data(), count.data() + count.size(), cores);
      if (ec != std::errc() || ptr != count.data() + count.size() || cores <= 0)
        throw Error(fmt::format("custom mode '{}': '{}' is not a core count", mode, count));
      if (clock->second.cores <= 0)
        throw Error(fmt::format("custom mode '{}': domain '{}' has no cores to set", mode, domain));
      if (cores > clock->second.cores)
        throw Error(fmt::format("custom mode '{}': {} has {} {} cores, not {}", mode, device.id, clock->second.cores,
                                domain, cores));
      custom.cores[domain] = cores;
      value = value.substr(x + 1);
    }
    double mhz = parse_frequency_mhz(value, mode);
    const auto& c = clock->second;
    if (mhz > c.max_mhz * (1 + 1e-9) || mhz < c.min_mhz * (1 - 1e-9))
      throw Error(fmt::format("custom mode '{}': {} runs {} between {} and {} MHz, not at {} MHz", mode, device.id,
                              domain, c.min_mhz, c.max_mhz, mhz));
    custom.clocks_mhz[domain] = mhz;
  }
  return custom;
}

Roofline roofline_for(const Device& device, const PowerMode& mode) {
  Roofline r;
  r.device_id = device.id;
  r.device_name = device.name;
  r.mode = mode.name;
  r.overhead_s = device.overhead_s;
  r.overhead_label = device.overhead_label;
  r.device_kind = device.kind;
  r.calibration = device.calibration;
  r.power_budget_w = mode.power_budget_w;
  if (device.tdp_w) r.tdp_w = device.tdp_w->value;
  auto clock_ratio = [&](const std::string& domain) {
    const auto& ref = device.clocks.at(domain);
    auto it = mode.clocks_mhz.find(domain);
    double mhz = it == mode.clocks_mhz.end() ? ref.max_mhz : it->second;
    r.clocks_mhz[domain] = mhz;
    return mhz / ref.max_mhz;
  };
  auto core_ratio = [&](const std::string& domain) {
    const auto& ref = device.clocks.at(domain);
    auto it = mode.cores.find(domain);
    int cores = it == mode.cores.end() ? ref.cores : it->second;
    r.cores[domain] = cores;
    return ref.cores > 0 ? static_cast<double>(cores) / ref.cores : 1.0;
  };
  for (const auto& unit : device.units) {
    double scale = clock_ratio(unit.clock) * (unit.scales_with_cores ? core_ratio(unit.clock) : 1.0);
    bool derived = std::fabs(scale - 1.0) > 1e-12;
    for (const auto& [precision, peak] : unit.peak_flops) {
      auto key = ceiling_key(unit, precision);
      std::string source = unit.source;
      if (derived)
        source += fmt::format(" (scaled by {:.4f} for mode {}: clock{})", scale, mode.name,
                              unit.scales_with_cores ? " and cores" : "");
      r.peak_flops[key] = {peak * scale, source, unit.label};
    }
  }
  for (const auto& level : device.memory) {
    if (level.bandwidth <= 0) continue;
    double scale = level.clock.empty() ? 1.0 : clock_ratio(level.clock);
    std::string source = level.source;
    if (std::fabs(scale - 1.0) > 1e-12)
      source += fmt::format(" (scaled by {:.4f} for mode {}: memory clock)", scale, mode.name);
    r.bandwidth[level.level] = {level.bandwidth * scale, source, level.label};
  }
  r.energy = energy_roofline(device, mode, &r.energy_missing);
  return r;
}

}  // namespace ridge::hw
