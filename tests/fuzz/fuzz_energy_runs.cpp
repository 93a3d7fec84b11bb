// libFuzzer target: arbitrary text through the energy CSV reader of `ridge calibrate --energy`
// (flops, bytes, time_s, energy_j per measured run). Any input must end in runs or a ridge::Error,
// and every run read must be one the fit accepts (finite, W and Q >= 0, time and energy > 0).
// fuzz-max-len: 4096 (the longest input scripts/test.sh gives it, in bytes)
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "calib/energy_runs.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    std::istringstream in(text);
    std::vector<std::string> skipped;
    auto runs = ridge::calib::parse_energy_csv(in, "fuzz_energy.csv", &skipped);
    for (const auto& r : runs)
      if (!(r.flops >= 0) || !(r.bytes >= 0) || !(r.time_s > 0) || !(r.energy_j > 0) || !std::isfinite(r.flops) ||
          !std::isfinite(r.bytes) || !std::isfinite(r.time_s) || !std::isfinite(r.energy_j))
        std::abort();
  } catch (const ridge::Error&) {
  }
  return 0;
}
