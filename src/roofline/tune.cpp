#include "roofline/tune.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "hw/mode_control.h"
#include "util/error.h"

namespace ridge::roofline {
namespace {

double default_mhz(const hw::Device& device, const std::string& domain) {
  const auto& first = device.modes.front();
  auto it = first.clocks_mhz.find(domain);
  return it == first.clocks_mhz.end() ? device.clocks.at(domain).max_mhz : it->second;
}

int default_cores(const hw::Device& device, const std::string& domain) {
  const auto& first = device.modes.front();
  auto it = first.cores.find(domain);
  return it == first.cores.end() ? device.clocks.at(domain).cores : it->second;
}

// The objective's figure of merit (lower is better).
double merit(const ModeResult& m, Objective objective) {
  switch (objective) {
    case Objective::kEnergy:
      return m.energy_per_sample_j;
    case Objective::kLatency:
      return m.time_s;
    case Objective::kEdp:
      return m.energy_per_sample_j * m.time_s;
  }
  return 0;
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)); }

}  // namespace

Objective parse_objective(const std::string& text) {
  if (text == "energy") return Objective::kEnergy;
  if (text == "latency") return Objective::kLatency;
  if (text == "edp") return Objective::kEdp;
  throw Error(fmt::format("objective '{}' is none of energy, latency, edp", text));
}

std::string objective_name(Objective objective) {
  return objective == Objective::kEnergy ? "energy" : objective == Objective::kLatency ? "latency" : "edp";
}

std::vector<DomainAxis> mode_axes(const hw::Device& device, const Prediction& at_default, const TuneOptions& o) {
  // The ceilings the prediction uses decide which clocks (and online cores) change its time and energy.
  std::set<std::string> keys;
  for (const auto& n : at_default.nodes)
    if (n.predicted && n.bound != Bound::kNone && !n.peak_key.empty()) keys.insert(n.peak_key);
  std::set<std::string> clocks_used, cores_used;
  for (const auto& unit : device.units)
    for (const auto& [precision, peak] : unit.peak_flops)
      if (keys.count(hw::ceiling_key(unit, precision))) {
        clocks_used.insert(unit.clock);
        if (unit.scales_with_cores) cores_used.insert(unit.clock);
      }
  for (const auto& level : device.memory)
    if (level.level == "dram" && !level.clock.empty()) clocks_used.insert(level.clock);

  const std::string& default_name = device.modes.front().name;
  std::vector<DomainAxis> axes;
  for (const auto& [domain, clock] : device.clocks) {
    DomainAxis axis;
    axis.domain = domain;
    const double held_mhz = default_mhz(device, domain);
    if (!o.all_domains && !clocks_used.count(domain) && !cores_used.count(domain)) {
      axis.mhz = {held_mhz};
      axis.held = true;
      axis.values_from = fmt::format("held at {}'s {:g} MHz: changes neither time nor energy of this prediction",
                                     default_name, held_mhz);
      axes.push_back(std::move(axis));
      continue;
    }
    if (!clock.steps_mhz.empty()) {
      axis.mhz = clock.steps_mhz;
      axis.values_from = "the device file's steps_mhz table";
    } else if (clock.min_mhz > 0 && clock.min_mhz < clock.max_mhz) {
      for (int i = 0; i < kEvenSteps; ++i) {
        double mhz = clock.min_mhz + (clock.max_mhz - clock.min_mhz) * i / (kEvenSteps - 1);
        axis.mhz.push_back(i == kEvenSteps - 1 ? clock.max_mhz : std::round(mhz * 10) / 10);
      }
      axis.values_from = fmt::format("{} evenly spaced between min_mhz and max_mhz (no steps_mhz table)", kEvenSteps);
    } else {
      axis.mhz = {held_mhz};
      axis.held = true;
      axis.values_from = fmt::format("held at {}'s {:g} MHz: the device file gives no steps_mhz table or min_mhz",
                                     default_name, held_mhz);
    }
    if ((o.all_domains || cores_used.count(domain)) && clock.cores > 0 && hw::custom_mode_sets_cores(domain)) {
      for (int c = 1; c <= clock.cores; ++c) axis.cores.push_back(c);
      axis.held = false;
      axis.values_from += fmt::format("; 1 to {} online cores", clock.cores);
    } else if (clock.cores > 0) {
      axis.values_from += fmt::format("; {} {} as in {}", default_cores(device, domain),
                                      domain == "gpu" ? "powered TPCs" : "online cores", default_name);
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

std::string mode_spec(const hw::PowerMode& mode, const std::vector<DomainAxis>& axes) {
  std::string spec;
  for (const auto& axis : axes) {
    if (axis.held) continue;
    auto cores = mode.cores.find(axis.domain);
    std::string count = !axis.cores.empty() && cores != mode.cores.end() ? fmt::format("{}x", cores->second) : "";
    spec += fmt::format("{}{}={}{:g}MHz", spec.empty() ? "" : ",", axis.domain, count, mode.clocks_mhz.at(axis.domain));
  }
  return spec;
}

std::vector<hw::PowerMode> enumerate_modes(const hw::Device& device, const std::vector<DomainAxis>& axes,
                                           const TuneOptions& o) {
  std::vector<hw::PowerMode> modes = device.modes;
  bool any = std::any_of(axes.begin(), axes.end(), [](const DomainAxis& a) { return !a.held; });
  if (o.named_only || !any) return modes;
  hw::PowerMode base = device.modes.front();
  base.source = "custom mode enumerated by ridge tune";
  base.power_budget_w.reset();
  base.nvpmodel_id.reset();
  for (const auto& axis : axes) base.clocks_mhz[axis.domain] = axis.mhz.front();
  // An odometer over every axis's frequencies (and core counts).
  std::vector<size_t> f(axes.size(), 0), c(axes.size(), 0);
  while (true) {
    hw::PowerMode m = base;
    for (size_t i = 0; i < axes.size(); ++i) {
      m.clocks_mhz[axes[i].domain] = axes[i].mhz[f[i]];
      if (!axes[i].cores.empty()) m.cores[axes[i].domain] = axes[i].cores[c[i]];
    }
    m.name = mode_spec(m, axes);
    modes.push_back(std::move(m));
    size_t i = 0;
    for (; i < axes.size(); ++i) {
      if (++f[i] < axes[i].mhz.size()) break;
      f[i] = 0;
      if (!axes[i].cores.empty() && ++c[i] < axes[i].cores.size()) break;
      c[i] = 0;
    }
    if (i == axes.size()) break;
  }
  return modes;
}

TuneResult tune(const hw::Device& device, const std::vector<int64_t>& batches, const PredictFn& predict,
                const TuneOptions& o) {
  if (device.modes.empty()) throw Error(fmt::format("device '{}' has no power modes to tune", device.id));
  TuneResult result;
  auto reference = predict(hw::roofline_for(device, device.modes.front()), batches.front());
  if (!reference.energy_predicted) {
    if (o.objective != Objective::kLatency)
      throw Error(fmt::format("tune --objective {}: {}", objective_name(o.objective), reference.energy_missing));
    result.energy_predicted = false;
    result.energy_missing = reference.energy_missing;
  }
  result.axes = mode_axes(device, reference, o);
  auto modes = enumerate_modes(device, result.axes, o);
  // A mode's ceilings do not depend on the batch: built once per mode, predicted once per batch.
  std::vector<hw::Roofline> rooflines;
  rooflines.reserve(modes.size());
  for (const auto& m : modes) rooflines.push_back(hw::roofline_for(device, m));
  for (auto batch : batches)
    for (size_t i = 0; i < modes.size(); ++i) {
      auto p = predict(rooflines[i], batch);
      ModeResult r;
      r.mode = modes[i];
      r.named = i < device.modes.size();
      r.batch = batch;
      r.time_s = p.time_s;
      r.energy_j = p.energy_j;
      r.power_w = p.power_w;
      r.energy_per_sample_j = batch > 0 ? p.energy_j / static_cast<double>(batch) : p.energy_j;
      r.energy_label = p.energy_label;
      r.energy_source = p.energy_source;
      r.power_limited_s = p.power_limited_s;
      if (o.latency_max_s && r.time_s > *o.latency_max_s)
        r.feasible = false, r.rejected = fmt::format("latency {:.4g} ms over --latency-max {:g} ms", r.time_s * 1e3,
                                                     *o.latency_max_s * 1e3);
      else if (o.power_max_w && r.power_w > *o.power_max_w)
        r.feasible = false,
        r.rejected = fmt::format("power {:.4g} W over --power-max {:g} W", r.power_w, *o.power_max_w);
      result.modes.push_back(std::move(r));
    }
  auto& all = result.modes;
  std::vector<size_t> feasible;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].feasible) feasible.push_back(i);
  if (feasible.empty()) {
    size_t fastest = 0, frugal = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].time_s < all[fastest].time_s) fastest = i;
      if (all[i].power_w < all[frugal].power_w) frugal = i;
    }
    throw Error(fmt::format(
        "no power mode of '{}' meets the constraints (fastest: {} at {:.4g} ms; lowest power: {} at {:.4g} W)",
        device.id, all[fastest].mode.name, all[fastest].time_s * 1e3, all[frugal].mode.name, all[frugal].power_w));
  }
  // Ties (same time and energy: a domain that changes nothing, a custom mode equal to a named one)
  // keep their first mode, named modes first.
  std::sort(feasible.begin(), feasible.end(), [&](size_t a, size_t b) {
    if (all[a].time_s != all[b].time_s) return all[a].time_s < all[b].time_s;
    if (all[a].energy_per_sample_j != all[b].energy_per_sample_j)
      return all[a].energy_per_sample_j < all[b].energy_per_sample_j;
    return a < b;
  });
  std::vector<size_t> distinct;
  for (size_t k = 0; k < feasible.size();) {
    size_t first = feasible[k], end = k + 1;
    while (end < feasible.size() && close(all[feasible[end]].time_s, all[first].time_s) &&
           close(all[feasible[end]].energy_per_sample_j, all[first].energy_per_sample_j))
      ++end;
    size_t keep = *std::min_element(feasible.begin() + static_cast<std::ptrdiff_t>(k),
                                    feasible.begin() + static_cast<std::ptrdiff_t>(end));
    for (size_t j = k; j < end; ++j) all[feasible[j]].tied = feasible[j] != keep;
    distinct.push_back(keep);
    k = end;
  }
  // Non-dominated: by increasing time, each mode that needs strictly less energy than all faster ones.
  double lowest = 0;
  for (auto i : distinct)
    if (result.pareto.empty() || (all[i].energy_per_sample_j < lowest && !close(all[i].energy_per_sample_j, lowest))) {
      lowest = all[i].energy_per_sample_j;
      all[i].pareto = true;
      result.pareto.push_back(i);
    }
  size_t best = distinct.front();
  for (auto i : distinct) {
    double a = merit(all[i], o.objective), b = merit(all[best], o.objective);
    if (a < b && !close(a, b)) best = i;
  }
  result.best = best;
  result.reference = 0;
  return result;
}

double energy_saved_percent(const ModeResult& mode, const ModeResult& reference) {
  return reference.energy_per_sample_j > 0
             ? 100 * (reference.energy_per_sample_j - mode.energy_per_sample_j) / reference.energy_per_sample_j
             : 0;
}

double latency_change_percent(const ModeResult& mode, const ModeResult& reference) {
  return reference.time_s > 0 ? 100 * (mode.time_s - reference.time_s) / reference.time_s : 0;
}

ModeCommands mode_commands(const hw::Device& device, const TuneResult& result, const ModeResult& best) {
  ModeCommands out;
  if (device.kind != "soc") {
    out.notes.push_back("ridge prints the commands that set a power mode for Jetson modules only");
    return out;
  }
  std::vector<std::string> domains;
  if (best.named)
    for (const auto& [domain, mhz] : best.mode.clocks_mhz) domains.push_back(domain);
  else
    for (const auto& axis : result.axes)
      if (!axis.held) domains.push_back(axis.domain);
  out.steps = hw::mode_steps(device, best.mode, domains);
  out.commands = hw::command_lines(out.steps);
  if (!out.steps.programs.empty()) {
    out.notes.push_back(
        "nvpmodel selects the mode (a change of online CPUs may ask to reboot); jetson_clocks pins the clocks at "
        "the mode's maxima, as the prediction assumes");
    return out;
  }
  if (best.named)
    out.notes.push_back(
        fmt::format("{} has no nvpmodel_id in {}: its clocks are set through sysfs", best.mode.name, device.file));
  out.notes.push_back(fmt::format(
      "as root; max_freq/min_freq are written {:g} MHz above/below the clock so the driver lands on its table's "
      "entry; EMC through nvpmodel's cap and the BPMP clock in debugfs (mounted at /sys/kernel/debug); the "
      "settings last until reboot or the next `nvpmodel -m`",
      hw::kClockMarginMhz));
  for (const auto& axis : result.axes)
    if (axis.held && device.clocks.count(axis.domain))
      out.notes.push_back(fmt::format("{} is not set (held: it changes nothing predicted)", axis.domain));
  return out;
}

}  // namespace ridge::roofline
