#include "roofline/energy.h"

#include <algorithm>

namespace ridge::roofline {

void add_energy(Prediction& p, const hw::Roofline& r) {
  p.energy_predicted = r.energy.has_value();
  p.energy_j = p.power_w = 0;
  if (!r.energy) {
    p.energy_missing = r.energy_missing;
    for (auto& n : p.nodes) n.energy_j = n.power_w = 0;
    return;
  }
  const auto& e = *r.energy;
  p.energy_label = e.label;
  p.energy_source = e.source;
  for (auto& n : p.nodes) {
    n.energy_j = n.power_w = 0;
    if (!n.predicted || n.bound == Bound::kNone) continue;
    n.energy_j = e.e_flop(n.peak_key) * n.flops + e.e_byte_j * n.bytes + e.p_static_w * n.time_s;
    n.power_w = n.time_s > 0 ? n.energy_j / n.time_s : 0;
    p.energy_j += n.energy_j;
  }
  p.energy_j += e.p_static_w * p.framework_overhead_s;
  p.power_w = p.time_s > 0 ? p.energy_j / p.time_s : 0;
}

double flops_per_joule(const hw::Roofline& r, const std::string& peak_key, double intensity) {
  auto peak = r.peak_flops.find(peak_key);
  auto dram = r.bandwidth.find("dram");
  if (!r.energy || peak == r.peak_flops.end() || dram == r.bandwidth.end() || intensity <= 0) return 0;
  const auto& e = *r.energy;
  double seconds_per_flop = std::max(1 / peak->second.value, 1 / (intensity * dram->second.value));
  double joules_per_flop = e.e_flop(peak_key) + e.e_byte_j / intensity + e.p_static_w * seconds_per_flop;
  return joules_per_flop > 0 ? 1 / joules_per_flop : 0;
}

double energy_balance(const hw::EnergyRoofline& e, const std::string& peak_key) {
  double flop = e.e_flop(peak_key);
  return flop > 0 ? e.e_byte_j / flop : 0;
}

}  // namespace ridge::roofline
