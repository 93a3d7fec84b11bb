#pragma once
// `ridge power sample` and `ridge power integrate` behind one entry point each: the trace of a live source sampled
// for a while, or of a recorded one, with every rail or only the one asked for (power::integrate gives its energy).
#include <functional>
#include <string>

#include "power/trace.h"

namespace ridge::power {

struct MeasureRequest {
  std::string source;      // live: nvml, nvml:INDEX, jetson, tegrastats, rapl...; recorded: tegrastats:FILE, csv:FILE
  std::string rail;        // one rail or domain instead of all; empty: all
  double duration_s = 5;   // live sources: how long to sample
  double interval_ms = 0;  // between samples (recorded tegrastats logs: between lines); 0: the source's default
};

// Samples the live source for duration_s; `progress` hears the seconds elapsed about once a second. Throws
// ridge::Error (a source that cannot be opened, a rail the trace lacks).
Trace sample(const MeasureRequest& request, const std::function<void(double elapsed_s)>& progress = {});

// Reads a recorded source whole. Throws ridge::Error.
Trace read_recorded(const MeasureRequest& request);

}  // namespace ridge::power
