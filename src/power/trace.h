#pragma once
// Power samples as every source produces them: per rail (or domain) watts at a steady_clock time,
// and, where the source has one, a cumulative energy counter per rail.
#include <cstdint>
#include <string>
#include <vector>

namespace ridge::power {

struct Sample {
  double time_s = 0;             // steady_clock seconds (live) or seconds of the log's clock (files)
  std::vector<double> power_w;   // one per rail
  std::vector<double> energy_j;  // one per rail where the source counts energy; empty otherwise
};

struct Trace {
  std::string source;  // the spec it came from ("jetson", "tegrastats:run.log")
  std::vector<std::string> rails;
  // Where a rail is the board's input (VDD_IN, POM_5V_IN), the total is that rail alone: the others
  // are parts of it. -1: the rails are parallel and the total is their sum.
  int input_rail = -1;
  // Per rail, the value at which a counter wraps back to zero (RAPL max_energy_range_uj); 0: never.
  std::vector<double> counter_range_j;
  std::vector<Sample> samples;
  int64_t skipped_lines = 0;  // log lines that were not samples (prompts, escapes, ^C)

  bool has_counters() const { return !samples.empty() && !samples.front().energy_j.empty(); }
  // The total power of one sample under the rule above.
  double total_w(const Sample& sample) const;
  // "the sum of the rails" or "VDD_IN (the board's input)": what the total means, for people.
  std::string total_meaning() const;
};

// The trace reduced to the rail `name`; a name it lacks is an error listing the rails it has.
Trace only_rail(const Trace& trace, const std::string& name);

}  // namespace ridge::power
