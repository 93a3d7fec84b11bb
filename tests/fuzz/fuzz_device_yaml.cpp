// libFuzzer target: arbitrary text through the device-file parser (YAML, devices/*.yaml) and the
// roofline of every power mode it declares. Any input must end in a device or a ridge::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hw/device_file.h"
#include "hw/roofline.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto device = ridge::hw::parse_device_yaml(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
    for (const auto& mode : device.modes) ridge::hw::roofline_for(device, ridge::hw::resolve_mode(device, mode.name));
  } catch (const ridge::Error&) {
  }
  return 0;
}
