#pragma once
// tegrastats, NVIDIA's Jetson monitor: its lines parsed into power samples, from a log or live.
// JetPack 5/6 print rails as `VDD_GPU_SOC 3150mW/2971mW` (current/average, R36.4+ add `/max`),
// JetPack 4 as `POM_5V_IN 3962/3962` or `GPU 0/0` (mW, no unit); a line may start with a timestamp
// `MM-DD-YYYY HH:MM:SS`. Rails are printed only when tegrastats runs as root.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "power/sampler.h"
#include "power/trace.h"

namespace ridge::power {

struct TegrastatsLine {
  std::optional<double> clock_s;                        // the leading timestamp, as civil seconds
  std::vector<std::pair<std::string, double>> rails_w;  // the current (first) value of each rail
};

// One line; nullopt when it is not a tegrastats line (a prompt, escapes, `script`'s header, ^C).
std::optional<TegrastatsLine> parse_tegrastats_line(std::string_view line);

// A whole log. Times: the leading timestamps when present (1 s resolution, so lines within one
// second are spread by `interval_s`, at most evenly over it), else the line index x `interval_s`.
// Throws ridge::Error when there are no tegrastats lines, or lines but no rails (not run as root).
Trace parse_tegrastats(const std::string& text, const std::string& source, double interval_s);

// `tegrastats --interval MS` run live; its stdout read line by line. An error when it is not found.
std::unique_ptr<Sampler> tegrastats_sampler(double interval_s);

}  // namespace ridge::power
