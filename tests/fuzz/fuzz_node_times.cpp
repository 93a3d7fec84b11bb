// libFuzzer target: arbitrary text through the measured per-node times reader (CSV, `ridge calibrate
// --measured`). Any input must end in rows or a ridge::Error.
// fuzz-max-len: 4096 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "roofline/family_calibration.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    ridge::roofline::parse_node_times(in, "fuzz.csv");
  } catch (const ridge::Error&) {
  }
  return 0;
}
