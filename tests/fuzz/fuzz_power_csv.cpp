// libFuzzer target: arbitrary text through the power-trace CSV reader (`ridge power integrate
// --source csv:FILE`) and the energy of what it read. Any input must end in a trace or a ridge::Error.
// fuzz-max-len: 16384 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>
#include <string>

#include "power/csv_trace.h"
#include "power/energy.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto trace = ridge::power::parse_power_csv(std::string(reinterpret_cast<const char*>(data), size), "fuzz.csv");
    ridge::power::integrate(trace);
  } catch (const ridge::Error&) {
  }
  return 0;
}
