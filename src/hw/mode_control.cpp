#include "hw/mode_control.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/program.h"

namespace ridge::hw {
namespace {

namespace fs = std::filesystem;

// The Jetson GPU's devfreq device: 17000000.ga10b (Orin, JetPack 5), 17000000.gpu (Orin, JetPack 6),
// 17000000.gv11b (Xavier); the nvpmodel configuration of Orin names the same directory.
constexpr const char* kGpuDevfreq = "class/devfreq/17000000.*";

long long rounded(double x) { return std::llround(x); }

double mode_mhz(const Device& device, const PowerMode& mode, const std::string& domain) {
  auto it = mode.clocks_mhz.find(domain);
  return it == mode.clocks_mhz.end() ? device.clocks.at(domain).max_mhz : it->second;
}

std::string brace(int first, int last) {
  return first == last ? std::to_string(first) : fmt::format("{{{}..{}}}", first, last);
}

void add_cpu(const Device& device, const PowerMode& mode, ModeSteps& steps) {
  const auto& clock = device.clocks.at("cpu");
  int total = clock.cores > 0 ? clock.cores : 1;
  auto it = mode.cores.find("cpu");
  int online = it == mode.cores.end() ? total : it->second;
  // cpu0 cannot be taken offline; the others are brought online (or off) before their clocks are set.
  if (online > 1) {
    SysfsWrite w{"1", {}, fmt::format("devices/system/cpu/cpu{}/online", brace(1, online - 1))};
    for (int k = 1; k < online; ++k) w.paths.push_back(fmt::format("devices/system/cpu/cpu{}/online", k));
    steps.writes.push_back(w);
  }
  if (online < total) {
    SysfsWrite w{"0", {}, fmt::format("devices/system/cpu/cpu{}/online", brace(online, total - 1))};
    for (int k = online; k < total; ++k) w.paths.push_back(fmt::format("devices/system/cpu/cpu{}/online", k));
    steps.writes.push_back(w);
  }
  double mhz = mode_mhz(device, mode, "cpu");
  // cpufreq takes kHz.
  for (auto [file, khz] : {std::pair{"scaling_max_freq", rounded((mhz + kClockMarginMhz) * 1e3)},
                           std::pair{"scaling_min_freq", rounded((mhz - kClockMarginMhz) * 1e3)}}) {
    SysfsWrite w{
        std::to_string(khz), {}, fmt::format("devices/system/cpu/cpu{}/cpufreq/{}", brace(0, online - 1), file)};
    for (int k = 0; k < online; ++k) w.paths.push_back(fmt::format("devices/system/cpu/cpu{}/cpufreq/{}", k, file));
    steps.writes.push_back(w);
  }
}

void add_gpu(const Device& device, const PowerMode& mode, ModeSteps& steps) {
  double mhz = mode_mhz(device, mode, "gpu");
  // devfreq takes Hz.
  for (auto [file, hz] : {std::pair{"max_freq", rounded((mhz + kClockMarginMhz) * 1e6)},
                          std::pair{"min_freq", rounded((mhz - kClockMarginMhz) * 1e6)}})
    steps.writes.push_back(
        {std::to_string(hz), {fmt::format("{}/{}", kGpuDevfreq, file)}, fmt::format("{}/{}", kGpuDevfreq, file)});
}

void add_emc(const Device& device, const PowerMode& mode, ModeSteps& steps) {
  double mhz = mode_mhz(device, mode, "emc");
  // The cap nvpmodel itself writes for EMC on Orin (its EMC MAX_FREQ parameter), then the BPMP clock
  // locked at the rate (debugfs; the BPMP rounds it to a rate the memory runs at).
  auto cap = std::to_string(rounded((mhz + kClockMarginMhz) * 1e6));
  steps.writes.push_back({cap, {"kernel/nvpmodel_emc_cap/emc_iso_cap"}, "kernel/nvpmodel_emc_cap/emc_iso_cap"});
  steps.writes.push_back(
      {"1", {"kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked"}, "kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked"});
  steps.writes.push_back({std::to_string(rounded(mhz * 1e6)),
                          {"kernel/debug/bpmp/debug/clk/emc/rate"},
                          "kernel/debug/bpmp/debug/clk/emc/rate"});
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool names_tegra(const std::string& compatible_file) {
  // The compatible property is NUL-separated strings; a substring search covers them all.
  return read_text(compatible_file).find("nvidia,tegra") != std::string::npos;
}

// The files a write's path stands for under `root`: the GPU devfreq glob resolved by listing.
std::vector<fs::path> resolve(const std::string& root, const std::string& path) {
  auto star = path.find('*');
  if (star == std::string::npos) return {fs::path(root) / path};
  auto slash = path.rfind('/', star);
  auto dir = fs::path(root) / path.substr(0, slash);
  auto prefix = path.substr(slash + 1, star - slash - 1);
  auto rest = path.substr(path.find('/', star) + 1);
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().filename().string().rfind(prefix, 0) == 0) out.push_back(entry.path() / rest);
  if (out.empty())
    throw Error(fmt::format("--apply: no {} under {} (is this the device's GPU?)", prefix + "*", dir.string()));
  return out;
}

}  // namespace

ModeSteps mode_steps(const Device& device, const PowerMode& mode, const std::vector<std::string>& domains) {
  ModeSteps steps;
  if (mode.nvpmodel_id) {
    steps.programs.push_back({"nvpmodel", "-m", std::to_string(*mode.nvpmodel_id)});
    // The prediction assumes the units run at the mode's clocks: jetson_clocks pins them at its maxima.
    steps.programs.push_back({"jetson_clocks"});
    return steps;
  }
  for (const auto& domain : domains) {
    if (!device.clocks.count(domain)) continue;
    if (domain == "cpu")
      add_cpu(device, mode, steps);
    else if (domain == "gpu")
      add_gpu(device, mode, steps);
    else if (domain == "emc")
      add_emc(device, mode, steps);
    else
      throw Error(fmt::format("ridge knows no sysfs control for clock domain '{}' of '{}'", domain, device.id));
  }
  return steps;
}

std::vector<std::string> command_lines(const ModeSteps& steps) {
  std::vector<std::string> lines;
  for (const auto& argv : steps.programs) {
    std::string line = "sudo";
    for (const auto& word : argv) line += " " + shell_quote(word);
    lines.push_back(line);
  }
  for (const auto& w : steps.writes) lines.push_back(fmt::format("echo {} | sudo tee /sys/{}", w.value, w.shown));
  return lines;
}

std::string sysfs_root() {
  const char* root = std::getenv("RIDGE_SYSFS_ROOT");
  return root && *root ? root : "/sys";
}

std::string not_a_jetson_reason() {
  const char* root = std::getenv("RIDGE_SYSFS_ROOT");
  if (root && *root) {
    auto file = fs::path(root) / "firmware/devicetree/base/compatible";
    return names_tegra(file.string()) ? "" : fmt::format("{} does not name nvidia,tegra", file.string());
  }
  if (fs::exists("/etc/nv_tegra_release") || names_tegra("/proc/device-tree/compatible")) return "";
  return "this machine is not a Jetson (no /etc/nv_tegra_release, and /proc/device-tree/compatible does not name "
         "nvidia,tegra)";
}

std::vector<std::string> apply_mode_steps(const ModeSteps& steps) {
  if (auto why = not_a_jetson_reason(); !why.empty()) throw Error("--apply refused: " + why + "; nothing was changed");
  const char* override_root = std::getenv("RIDGE_SYSFS_ROOT");
  if (!(override_root && *override_root) && geteuid() != 0)
    throw Error("--apply refused: setting a power mode needs root (run it with sudo); nothing was changed");
  std::vector<std::string> done;
  for (const auto& argv : steps.programs) {
    auto path = find_on_path(argv.front());
    if (!path) throw Error(fmt::format("--apply: {} is not on PATH", argv.front()));
    auto out = run_program(*path, {argv.begin() + 1, argv.end()}, 60);
    if (!out.started || out.timed_out || out.exit_code != 0)
      throw Error(fmt::format("--apply: {} failed ({})", *path,
                              !out.started    ? out.error
                              : out.timed_out ? "timed out"
                                              : fmt::format("exit code {}", out.exit_code)));
    std::string line = *path;
    for (size_t i = 1; i < argv.size(); ++i) line += " " + argv[i];
    done.push_back("ran " + line);
  }
  const auto root = sysfs_root();
  for (const auto& w : steps.writes)
    for (const auto& path : w.paths)
      for (const auto& file : resolve(root, path)) {
        // sysfs files exist; a missing one is a wrong device or kernel, not something to create.
        if (!fs::exists(file)) throw Error(fmt::format("--apply: {} does not exist", file.string()));
        std::ofstream out(file);
        out << w.value << "\n";
        out.close();
        if (!out) throw Error(fmt::format("--apply: cannot write {} to {}", w.value, file.string()));
        done.push_back(fmt::format("wrote {} to {}", w.value, file.string()));
      }
  return done;
}

bool custom_mode_sets_cores(const std::string& domain) { return domain == "cpu"; }

}  // namespace ridge::hw
