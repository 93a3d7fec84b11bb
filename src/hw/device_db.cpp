#include "hw/device_db.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "hw/device_file.h"
#include "hw/host.h"
#include "hw/roofline.h"
#include "util/build_tree.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/module.h"

namespace ridge::hw {

namespace fs = std::filesystem;

std::vector<std::string> device_search_path() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("RIDGE_DEVICE_PATH")) {
    std::string path = env;
    size_t pos = 0;
    while (pos <= path.size()) {
      auto colon = path.find(':', pos);
      if (colon == std::string::npos) colon = path.size();
      if (colon > pos) dirs.push_back(path.substr(pos, colon - pos));
      pos = colon + 1;
    }
  }
  if (const char* home = std::getenv("HOME")) dirs.push_back(std::string(home) + "/.config/ridge/devices");
  // The installed layout (PREFIX/share/ridge/devices next to PREFIX/bin/ridge), then the source
  // tree's devices/ that the build was configured from.
  if (auto exe_dir = executable_dir(); !exe_dir.empty()) {
    auto installed = (exe_dir / kInstalledDeviceDir).lexically_normal();
    std::error_code ec;
    if (fs::is_directory(installed, ec)) dirs.push_back(installed.string());
  }
  dirs.push_back(build_tree::device_dir());
  return dirs;
}

namespace {

std::map<std::string, fs::path> device_files() {
  std::map<std::string, fs::path> files;
  for (const auto& dir : device_search_path()) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> entries;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == ".yaml") entries.push_back(entry.path());
    std::sort(entries.begin(), entries.end());
    for (const auto& path : entries) files.emplace(path.stem().string(), path);  // earlier directories win
  }
  return files;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> device_file_paths() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [id, path] : device_files()) files.emplace_back(id, path.string());
  return files;
}

std::vector<Device> list_devices() {
  std::vector<Device> devices;
  for (const auto& [id, path] : device_files()) devices.push_back(load_device_file(path.string()));
  devices.push_back(detect_host());
  std::sort(devices.begin(), devices.end(), [](const Device& a, const Device& b) { return a.id < b.id; });
  return devices;
}

Device find_device(const std::string& id_or_path) {
  if (id_or_path == "host") return detect_host();
  if (id_or_path.find('/') != std::string::npos || fs::path(id_or_path).extension() == ".yaml")
    return load_device_file(id_or_path);
  auto files = device_files();
  auto it = files.find(id_or_path);
  if (it == files.end()) {
    std::string known;
    for (const auto& [id, path] : files) known += (known.empty() ? "" : ", ") + id;
    throw Error(fmt::format("unknown device '{}' (known: {}, host; or a path to a .yaml file)", id_or_path, known));
  }
  auto device = load_device_file(it->second.string());
  if (device.id != id_or_path)
    throw Error(fmt::format("device file '{}' declares id '{}', not '{}'", it->second.string(), device.id, id_or_path));
  return device;
}

std::pair<std::string, std::string> split_device_and_mode(const std::string& spec) {
  // The device part never contains '=', so the mode starts at the first ':' after the last '/'.
  auto slash = spec.rfind('/');
  auto colon = spec.find(':', slash == std::string::npos ? 0 : slash);
  if (colon == std::string::npos) return {spec, ""};
  return {spec.substr(0, colon), spec.substr(colon + 1)};
}

std::vector<DeviceModes> resolve_device_modes(const std::vector<std::string>& specs, const std::string& modes) {
  auto listed = modes.empty() || modes == "all" ? std::vector<std::string>{} : split_commas(modes);
  std::vector<DeviceModes> out;
  for (const auto& spec : specs) {
    auto [id, mode_text] = split_device_and_mode(spec);
    DeviceModes d{.device = find_device(id)};
    std::vector<std::string> names;
    if (modes == "all") {
      for (const auto& m : d.device.modes) names.push_back(m.name);
    } else if (!listed.empty()) {
      if (!mode_text.empty()) throw Error("give the mode either in --device ID:MODE or in --modes, not both");
      names = listed;
    } else {
      names.push_back(mode_text);
    }
    for (const auto& name : names) d.rooflines.push_back(roofline_for(d.device, resolve_mode(d.device, name)));
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ridge::hw
