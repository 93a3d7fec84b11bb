#pragma once
// The device database: devices/*.yaml files found on a search path, plus the detected host.
#include <string>
#include <vector>

#include "hw/device.h"
#include "hw/roofline.h"

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

// Each of `specs` (ID[:MODE] or FILE.yaml[:MODE]) with the rooflines of its power modes: every mode with `modes`
// "all", those listed ("15W,MAXN"), else the ID:MODE suffix or the default mode. Throws ridge::Error for an unknown
// device or mode, or a mode given both ways.
struct DeviceModes {
  Device device;
  std::vector<Roofline> rooflines;
};
std::vector<DeviceModes> resolve_device_modes(const std::vector<std::string>& specs, const std::string& modes);

}  // namespace ridge::hw
