#pragma once
// The device database: devices/*.yaml files found on a search path, plus the detected host.
#include <string>
#include <vector>

#include "hw/device.h"

namespace ridge::hw {

// Directories searched, in order: $RIDGE_DEVICE_PATH (colon-separated), ~/.config/ridge/devices,
// the installed database next to the executable (../share/ridge/devices, when present), then the
// devices/ directory ridge was built from.
std::vector<std::string> device_search_path();

// The device files on the search path: id (the file's stem) and path, the first file per id.
std::vector<std::pair<std::string, std::string>> device_file_paths();

// All devices on the search path (first file wins per id), plus "host". Sorted by id.
std::vector<Device> list_devices();

// "ID" from the database, "host", or a path to a YAML file (contains '/' or ends in .yaml).
// Throws ridge::Error for an unknown id (listing the known ones) or a malformed file.
Device find_device(const std::string& id_or_path);

// Splits "ID:MODE" (the mode part may itself contain '=' and ','); paths keep their colons
// only before the last one.
std::pair<std::string, std::string> split_device_and_mode(const std::string& spec);

}  // namespace ridge::hw
