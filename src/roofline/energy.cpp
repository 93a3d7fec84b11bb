#include "roofline/energy.h"

#include <algorithm>

namespace ridge::roofline {

void add_energy(Prediction& p, const hw::Roofline& r) {
  p.energy_predicted = r.energy.has_value();
  p.energy_j = p.power_w = 0;
  p.power_limit_w.reset();
  p.power_limit_from.clear();
  p.power_limited_nodes = 0;
  p.power_limited_s = 0;
  p.power_demand_w = 0;
  if (!r.energy) {
    p.energy_missing = r.energy_missing;
    for (auto& n : p.nodes) {
      n.energy_j = n.power_w = 0;
      n.power_limited = false;
    }
    return;
  }
  const auto& e = *r.energy;
  p.energy_label = e.label;
  p.energy_source = e.source;
  // The board draws at most its limit: the power mode's budget, else the TDP.
  if (r.power_budget_w) {
    p.power_limit_w = r.power_budget_w;
    p.power_limit_from = "budget";
  } else if (r.tdp_w) {
    p.power_limit_w = r.tdp_w;
    p.power_limit_from = "tdp";
  }
  const double p_static = e.p_static_w;
  double dynamic_j = 0, node_s = 0;
  for (auto& n : p.nodes) {
    n.energy_j = n.power_w = 0;
    n.power_limited = false;
    if (!n.predicted || n.bound == Bound::kNone) continue;
    n.energy_j = e.e_flop(n.peak_key) * n.flops + e.e_byte_j * n.bytes;  // dynamic, for now
    dynamic_j += n.energy_j;
    node_s += n.time_s;
  }
  // The board averages its power over far longer than one inference: at the roofline time the inference would draw
  // dynamic / time + p_static. Above the limit the hardware throttles its clocks, so the inference takes the time
  // its dynamic energy needs at the limit, dynamic / (limit - p_static), and every node runs that much slower. (A
  // limit at or below static power would leave no power for work: not applied; the coefficients are off instead.)
  const double framework_s = p.time_s - node_s;
  if (p.power_limit_w && *p.power_limit_w > p_static && p.time_s > 0 && node_s > 0) {
    p.power_demand_w = dynamic_j / p.time_s + p_static;
    if (p.power_demand_w > *p.power_limit_w) {
      double limited_s = dynamic_j / (*p.power_limit_w - p_static);
      double stretch = (limited_s - framework_s) / node_s;
      for (auto& n : p.nodes) {
        if (!n.predicted || n.bound == Bound::kNone || n.time_s <= 0) continue;
        n.time_s *= stretch;
        n.power_limited = true;
        ++p.power_limited_nodes;
      }
      p.compute_bound_s *= stretch;
      p.memory_bound_s *= stretch;
      p.overhead_bound_s *= stretch;
      p.power_limited_s = limited_s - p.time_s;
      p.time_s = limited_s;
    }
  }
  for (auto& n : p.nodes) {
    if (!n.predicted || n.bound == Bound::kNone) continue;
    n.energy_j += p_static * n.time_s;
    n.power_w = n.time_s > 0 ? n.energy_j / n.time_s : 0;
    p.energy_j += n.energy_j;
  }
  p.energy_j += p_static * p.framework_overhead_s;
  p.power_w = p.time_s > 0 ? p.energy_j / p.time_s : 0;
  p.throughput = p.time_s > 0 ? static_cast<double>(p.batch) / p.time_s : 0;
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
