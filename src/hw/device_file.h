#pragma once
// Reading and validating device files (YAML; the schema is in docs/roofline.md).
#include <string>

#include "hw/device.h"

namespace ridge::hw {

// Throws ridge::Error with a one-line message naming the file and the offending field.
Device load_device_file(const std::string& path);
Device parse_device_yaml(const std::string& text, const std::string& name);

}  // namespace ridge::hw
