// libFuzzer target: arbitrary text through the calibration evidence readers (layer samples and
// framework overhead, CSV, `ridge calibrate`). Any input must end in samples or a ridge::Error.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "calib/sample.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    std::istringstream in(text);
    ridge::calib::read_samples_csv(in, "fuzz_samples.csv");
  } catch (const ridge::Error&) {
  }
  try {
    std::istringstream in(text);
    ridge::calib::read_overhead_csv(in, "fuzz_overhead.csv");
  } catch (const ridge::Error&) {
  }
  return 0;
}
