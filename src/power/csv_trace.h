#pragma once
// A power trace from a meter outside the machine (or an NVML/nvidia-smi log) as CSV: a header with
// a timestamp column (ISO 8601 "2026-07-22T21:41:45.304Z", or seconds) and a watts column
// (power_w, watts, power, W, power.draw [W]; or milliwatts: power_mw, milliwatts, mW). Other
// columns are ignored.
#include <string>

#include "power/trace.h"

namespace ridge::power {

// `text` is the file's content, `source` names it in errors and in the trace.
Trace parse_power_csv(const std::string& text, const std::string& source);

}  // namespace ridge::power
