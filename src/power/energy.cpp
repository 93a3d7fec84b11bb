#include "power/energy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace ridge::power {
namespace {

// Value of the piecewise-linear series (times, values) at t, which lies within the times.
double at(const std::vector<double>& times, const std::vector<double>& values, double t) {
  auto it = std::lower_bound(times.begin(), times.end(), t);
  auto i = static_cast<size_t>(it - times.begin());
  if (i >= times.size()) return values.back();
  if (times[i] == t || i == 0) return values[i];
  double f = (t - times[i - 1]) / (times[i] - times[i - 1]);
  return values[i - 1] + f * (values[i] - values[i - 1]);
}

// ∫ over [t0, t1] of the piecewise-linear series: trapezoids between the interpolated edges and the
// samples strictly inside.
double trapezoid(const std::vector<double>& times, const std::vector<double>& values, double t0, double t1) {
  double prev_t = t0, prev_v = at(times, values, t0), sum = 0;
  for (size_t i = 0; i < times.size(); ++i) {
    if (times[i] <= t0 || times[i] >= t1) continue;
    sum += (times[i] - prev_t) * (values[i] + prev_v) / 2;
    prev_t = times[i];
    prev_v = values[i];
  }
  return sum + (t1 - prev_t) * (at(times, values, t1) + prev_v) / 2;
}

}  // namespace

Energy integrate(const Trace& trace, double start_s, double end_s) {
  const auto& s = trace.samples;
  if (s.size() < 2) throw Error(fmt::format("{}: {} power sample(s): energy needs at least 2", trace.source, s.size()));
  if (!(end_s > start_s)) throw Error(fmt::format("{}: an empty window ({} s to {} s)", trace.source, start_s, end_s));
  std::vector<double> times;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!std::isfinite(s[i].time_s) || (i > 0 && s[i].time_s < s[i - 1].time_s))
      throw Error(fmt::format("{}: sample {}'s time goes backwards", trace.source, i + 1));
    times.push_back(s[i].time_s);
  }
  if (start_s < times.front() || end_s > times.back())
    throw Error(fmt::format("{}: the samples ({:.3f} s to {:.3f} s) do not cover the window {:.3f} s to {:.3f} s",
                            trace.source, times.front(), times.back(), start_s, end_s));
  Energy e;
  e.start_s = start_s;
  e.end_s = end_s;
  e.duration_s = end_s - start_s;
  e.from_counters = trace.has_counters();
  for (double t : times) e.samples += t >= start_s && t <= end_s;
  size_t rails = trace.rails.size();
  for (size_t r = 0; r < rails; ++r) {
    std::vector<double> values;
    if (e.from_counters) {
      // Unwrapped cumulative energy: each step's difference, plus the range where it wrapped.
      double range = r < trace.counter_range_j.size() ? trace.counter_range_j[r] : 0, total = 0;
      for (size_t i = 0; i < s.size(); ++i) {
        if (s[i].energy_j.size() != rails)
          throw Error(fmt::format("{}: sample {} lacks counters", trace.source, i + 1));
        if (i > 0) {
          double d = s[i].energy_j[r] - s[i - 1].energy_j[r];
          if (d < 0 && range > 0) d += range;
          if (d < 0) throw Error(fmt::format("{}: {}'s energy counter went backwards", trace.source, trace.rails[r]));
          total += d;
        }
        values.push_back(total);
      }
      e.rail_energy_j.push_back(at(times, values, end_s) - at(times, values, start_s));
    } else {
      for (size_t i = 0; i < s.size(); ++i) {
        if (s[i].power_w.size() != rails) throw Error(fmt::format("{}: sample {} lacks rails", trace.source, i + 1));
        values.push_back(s[i].power_w[r]);
      }
      e.rail_energy_j.push_back(trapezoid(times, values, start_s, end_s));
    }
    e.rail_mean_w.push_back(e.rail_energy_j.back() / e.duration_s);
  }
  if (trace.input_rail >= 0 && static_cast<size_t>(trace.input_rail) < rails) {
    e.energy_j = e.rail_energy_j[static_cast<size_t>(trace.input_rail)];
  } else {
    for (double j : e.rail_energy_j) e.energy_j += j;
  }
  e.mean_w = e.energy_j / e.duration_s;
  return e;
}

Energy integrate(const Trace& trace) {
  if (trace.samples.size() < 2)
    throw Error(fmt::format("{}: {} power sample(s): energy needs at least 2", trace.source, trace.samples.size()));
  return integrate(trace, trace.samples.front().time_s, trace.samples.back().time_s);
}

}  // namespace ridge::power
