#include "power/trace.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/error.h"

namespace ridge::power {

double Trace::total_w(const Sample& sample) const {
  if (input_rail >= 0 && static_cast<size_t>(input_rail) < sample.power_w.size())
    return sample.power_w[static_cast<size_t>(input_rail)];
  double sum = 0;
  for (double w : sample.power_w) sum += w;
  return sum;
}

std::string Trace::total_meaning() const {
  if (input_rail >= 0) return fmt::format("{} (the board's input)", rails[static_cast<size_t>(input_rail)]);
  return rails.size() == 1 ? rails.front() : "the sum of the rails";
}

Trace only_rail(const Trace& trace, const std::string& name) {
  auto it = std::find(trace.rails.begin(), trace.rails.end(), name);
  if (it == trace.rails.end())
    throw Error(
        fmt::format("--rail {}: {} has no such rail (it has: {})", name, trace.source, fmt::join(trace.rails, ", ")));
  auto index = static_cast<size_t>(it - trace.rails.begin());
  Trace out;
  out.source = trace.source;
  out.rails = {name};
  out.skipped_lines = trace.skipped_lines;
  if (index < trace.counter_range_j.size()) out.counter_range_j = {trace.counter_range_j[index]};
  for (const auto& s : trace.samples) {
    Sample one{s.time_s, {s.power_w.at(index)}, {}};
    if (!s.energy_j.empty()) one.energy_j = {s.energy_j.at(index)};
    out.samples.push_back(std::move(one));
  }
  return out;
}

}  // namespace ridge::power
