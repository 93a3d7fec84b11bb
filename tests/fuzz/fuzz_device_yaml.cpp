// libFuzzer target: arbitrary text through the device-file parser (YAML, devices/*.yaml) and the
// roofline (time and energy) of every power mode it declares. Any input must end in a device or a ridge::Error.
// fuzz-max-len: 8192 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>
#include <string>

#include "hw/device_file.h"
#include "hw/roofline.h"
#include "roofline/energy.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto device = ridge::hw::parse_device_yaml(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
    for (const auto& mode : device.modes) {
      auto roofline = ridge::hw::roofline_for(device, ridge::hw::resolve_mode(device, mode.name));
      // The energy roofline of every ceiling, at both ends of the intensity axis and at its bend.
      for (const auto& [key, ceiling] : roofline.peak_flops)
        for (double intensity : {1e-6, roofline.ridge_point(key), 1e6})
          ridge::roofline::flops_per_joule(roofline, key, intensity);
    }
  } catch (const ridge::Error&) {
  }
  return 0;
}
