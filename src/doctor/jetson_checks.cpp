// Jetson boards' own tools: power modes (nvpmodel), rail power and load (tegrastats), clocks pinned
// at their maximum (jetson_clocks). Not applicable on any other machine.
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "doctor/checks.h"
#include "util/program.h"

namespace ridge::doctor {
namespace {

constexpr const char* kReleaseFile = "/etc/nv_tegra_release";
constexpr const char* kCompatibleFile = "/proc/device-tree/compatible";

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "R36 (release), REVISION: 4.0" of "# R36 (release), REVISION: 4.0, GCID: ..., BOARD: ...".
std::string l4t_release() {
  auto text = read_file(kReleaseFile);
  auto line = text.substr(0, text.find('\n'));
  if (line.rfind("# ", 0) == 0) line.erase(0, 2);
  auto gcid = line.find(", GCID");
  return gcid == std::string::npos ? line : line.substr(0, gcid);
}

bool is_jetson() {
  if (::access(kReleaseFile, F_OK) == 0) return true;
  // NUL-separated strings ("nvidia,p3737-0000+p3701-0005\0nvidia,p3701-0005\0nvidia,tegra234\0").
  return read_file(kCompatibleFile).find("nvidia,tegra") != std::string::npos;
}

Check tool_check(const std::string& name, const std::string& package, const std::string& what) {
  auto path = find_on_path(name);
  if (!path) {
    for (const char* dir : {"/usr/sbin", "/usr/bin"})
      if (::access(fmt::format("{}/{}", dir, name).c_str(), X_OK) == 0)
        return missing("jetson", name, "not on PATH", fmt::format("{}/{} exists: add {} to PATH", dir, name, dir));
    return missing("jetson", name, "not on PATH",
                   fmt::format("install JetPack's {} (sudo apt install {}); ridge uses it {}", name, package, what));
  }
  return ok("jetson", name, *path);
}

}  // namespace

std::vector<Check> jetson_checks() {
  std::vector<std::string> names{"nvpmodel", "tegrastats", "jetson_clocks"};
  std::vector<Check> checks;
  if (!is_jetson()) {
    for (const auto& name : names)
      checks.push_back(not_applicable(
          "jetson", name, fmt::format("not a Jetson (no {}, no nvidia,tegra in {})", kReleaseFile, kCompatibleFile)));
    return checks;
  }
  auto release = l4t_release();
  auto nvpmodel = tool_check("nvpmodel", "nvidia-l4t-nvpmodel", "to read and set power modes");
  if (nvpmodel.ok()) {
    // The current power mode: "NV Power Mode: MAXN".
    auto query = run_program(nvpmodel.detail, {"-q"}, 5);
    std::istringstream lines(query.output);
    for (std::string line; std::getline(lines, line);)
      if (line.find("Power Mode") != std::string::npos) nvpmodel.detail += "; " + line;
    if (!release.empty()) nvpmodel.detail += "; L4T " + release;
  }
  checks.push_back(nvpmodel);
  checks.push_back(tool_check("tegrastats", "nvidia-l4t-tools", "to sample rail power"));
  checks.push_back(tool_check("jetson_clocks", "nvidia-l4t-tools", "to pin clocks for stable measurements"));
  return checks;
}

}  // namespace ridge::doctor
