// libFuzzer target: arbitrary text through the tegrastats log parser (`ridge power integrate
// --source tegrastats:FILE`) and the energy of what it read. Any input must end in a trace or a
// ridge::Error.
// fuzz-max-len: 16384 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>
#include <string>

#include "power/energy.h"
#include "power/tegrastats.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto trace =
        ridge::power::parse_tegrastats(std::string(reinterpret_cast<const char*>(data), size), "fuzz.log", 0.1);
    if (trace.samples.size() >= 2) ridge::power::integrate(trace);
  } catch (const ridge::Error&) {
  }
  return 0;
}
