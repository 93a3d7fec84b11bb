// The device database: every file on the search path loads and validates, as `--device ID` would
// read it.
#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "doctor/checks.h"
#include "hw/device_db.h"
#include "hw/device_file.h"
#include "util/error.h"

namespace ridge::doctor {

Check device_file_check() {
  const std::string name = "device files";
  auto files = hw::device_file_paths();
  if (files.empty()) {
    std::string path;
    for (const auto& dir : hw::device_search_path()) path += (path.empty() ? "" : ":") + dir;
    return missing("devices", name, fmt::format("no devices/*.yaml on the search path ({})", path),
                   "reinstall ridge (./scripts/install.sh), or set RIDGE_DEVICE_PATH to a directory of device files");
  }
  std::set<std::string> dirs;
  std::vector<std::string> invalid;
  for (const auto& [id, path] : files) {
    dirs.insert(std::filesystem::path(path).parent_path().string());
    try {
      auto device = hw::load_device_file(path);
      if (device.id != id)
        throw Error(fmt::format("{}: declares id '{}', not its file name '{}'", path, device.id, id));
    } catch (const Error& e) {
      std::string message = e.what();
      invalid.push_back(message.find(path) == std::string::npos ? path + ": " + message : message);
    }
  }
  if (invalid.empty())
    return ok("devices", name, fmt::format("{} files valid (in {})", files.size(), fmt::join(dirs, ", ")));
  return missing("devices", name,
                 fmt::format("{} of {} files invalid: {}{}", invalid.size(), files.size(), invalid.front(),
                             invalid.size() > 1 ? fmt::format(" (and {} more)", invalid.size() - 1) : ""),
                 "correct the file (schema: docs/roofline.md) or remove it from the search path");
}

}  // namespace ridge::doctor
