#include "hw/energy.h"

#include <fmt/format.h>

#include <algorithm>

namespace ridge::hw {
namespace {

double mode_clock_mhz(const Device& device, const PowerMode& mode, const std::string& domain) {
  auto it = mode.clocks_mhz.find(domain);
  return it != mode.clocks_mhz.end() ? it->second : device.clocks.at(domain).max_mhz;
}

double scale_of(const Device& device, const PowerMode& mode, const std::string& domain) {
  if (domain.empty() || !device.clocks.count(domain)) return 1;
  return voltage_squared_ratio(device.clocks.at(domain), mode_clock_mhz(device, mode, domain));
}

EnergyRoofline from_file(const EnergyCoefficients& e) {
  EnergyRoofline r;
  r.e_flop_j = e.e_flop_j;
  r.e_byte_j = e.e_byte_j;
  r.p_static_w = e.p_static_w;
  r.source = e.source;
  r.label = e.label;
  return r;
}

EnergyRoofline estimate(const Device& device, const PowerMode& mode) {
  const double tdp = device.tdp_w->value;
  EnergyRoofline r;
  r.label = kEstimate;
  std::string static_rule;
  if (device.idle_w && device.idle_w->value < tdp) {
    r.p_static_w = device.idle_w->value;
    static_rule = fmt::format("p_static = idle power {} W", r.p_static_w);
  } else {
    r.p_static_w = kStaticShareOfTdp * tdp;
    static_rule = fmt::format("p_static = {:g}% of TDP = {:g} W", kStaticShareOfTdp * 100, r.p_static_w);
  }
  const double dynamic_w = tdp - r.p_static_w;
  const double compute_w = dynamic_w / (1 + kMemoryShareOfDynamic), memory_w = dynamic_w - compute_w;
  for (const auto& unit : device.units) {
    double scale = scale_of(device, mode, unit.clock);
    for (const auto& [precision, peak] : unit.peak_flops)
      r.e_flop_j[ceiling_key(unit, precision)] = compute_w / peak * scale;
  }
  for (const auto& level : device.memory)
    if (level.level == "dram") r.e_byte_j = memory_w / level.bandwidth * scale_of(device, mode, level.clock);
  r.source = fmt::format(
      "estimate from TDP {:g} W ({}): {}; at the ridge point, at the reference clocks, a unit at its peak draws "
      "{:.3g} W and DRAM at full bandwidth {:.3g} W ({:g}% of the unit's), together the other {:g} W of TDP; "
      "per-operation energy scaled by (V/Vmax)^2, V linear in the clock from {:g} Vmax at the lowest",
      tdp, device.tdp_w->source, static_rule, compute_w, memory_w, kMemoryShareOfDynamic * 100, dynamic_w,
      kLowestVoltageRatio);
  return r;
}

// Coefficients given for another mode, carried to this one by the same voltage rule as the estimate
// (the ratio of the two modes' (V/Vmax)^2 per clock domain); static power is kept.
EnergyRoofline scaled_from(const Device& device, const EnergyCoefficients& given, const PowerMode& mode) {
  PowerMode from;
  for (const auto& m : device.modes)
    if (m.name == given.mode) from = m;
  auto ratio = [&](const std::string& domain) {
    return scale_of(device, mode, domain) / scale_of(device, from, domain);
  };
  EnergyRoofline r = from_file(given);
  r.label = kEstimate;
  // "*" holds for the main processor: the first unit without a key prefix.
  std::string main_clock;
  for (const auto& unit : device.units)
    if (unit.key_prefix.empty() && main_clock.empty()) main_clock = unit.clock;
  for (auto& [key, e] : r.e_flop_j) {
    std::string domain = main_clock;
    for (const auto& unit : device.units)
      for (const auto& [precision, peak] : unit.peak_flops)
        if (ceiling_key(unit, precision) == key) domain = unit.clock;
    e *= ratio(domain);
  }
  for (const auto& level : device.memory)
    if (level.level == "dram") r.e_byte_j *= ratio(level.clock);
  r.source = fmt::format(
      "estimate: the {} coefficients of mode {} ({}), scaled to this mode's clocks by (V/Vmax)^2, "
      "V linear in the clock from {:g} Vmax at the lowest",
      given.label, given.mode, given.source, kLowestVoltageRatio);
  return r;
}

}  // namespace

double voltage_squared_ratio(const ClockDomain& domain, double mhz) {
  if (domain.max_mhz <= 0) return 1;
  double span = domain.max_mhz - domain.min_mhz;
  double position = span > 0 ? (mhz - domain.min_mhz) / span : 1.0;
  double v = kLowestVoltageRatio + (1 - kLowestVoltageRatio) * std::clamp(position, 0.0, 1.0);
  return v * v;
}

std::optional<EnergyRoofline> energy_roofline(const Device& device, const PowerMode& mode, std::string* why) {
  for (const auto& e : device.energy)
    if (e.mode == mode.name) return from_file(e);
  if (!device.energy.empty()) return scaled_from(device, device.energy.front(), mode);
  if (device.tdp_w) return estimate(device, mode);
  if (why)
    *why = fmt::format(
        "device '{}' has no TDP and no energy coefficients: energy is not predicted (fit them with `ridge calibrate "
        "--energy`)",
        device.id);
  return std::nullopt;
}

}  // namespace ridge::hw
