#pragma once
// Energy over a window of a trace. Power samples: the trapezoid rule, with the power at the
// window's edges interpolated linearly between the samples around them. Energy counters (RAPL,
// NVML's total energy): the counter's difference, unwrapped where it passed its range, and
// interpolated at the edges the same way. Average power = energy / duration.
#include <cstdint>
#include <vector>

#include "power/trace.h"

namespace ridge::power {

struct Energy {
  double start_s = 0, end_s = 0, duration_s = 0;
  double energy_j = 0, mean_w = 0;  // the total (the trace's rule: the input rail, else the sum)
  std::vector<double> rail_energy_j, rail_mean_w;
  int64_t samples = 0;  // samples inside [start, end], the edges included
  bool from_counters = false;
};

// Over [start_s, end_s]; a window the samples do not cover (it starts before the first or ends
// after the last), an empty window or fewer than 2 samples is a ridge::Error, never zero.
Energy integrate(const Trace& trace, double start_s, double end_s);
// Over the whole trace, first sample to last.
Energy integrate(const Trace& trace);

}  // namespace ridge::power
