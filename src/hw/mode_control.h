#pragma once
// Putting a Jetson into a power mode: the commands that set it (nvpmodel for a named mode with an
// nvpmodel id, sysfs writes for a custom one), printed for people and carried out by `ridge tune --apply`.
#include <string>
#include <vector>

#include "hw/device.h"

namespace ridge::hw {

// One sysfs write: `value` into each of `paths` (relative to the sysfs root, /sys), shown to people as
// one `echo VALUE | sudo tee /sys/SHOWN` line (SHOWN a glob or brace form of the paths).
struct SysfsWrite {
  std::string value;
  std::vector<std::string> paths;
  std::string shown;
};

struct ModeSteps {
  std::vector<std::vector<std::string>> programs;  // argv of each program to run (nvpmodel, jetson_clocks)
  std::vector<SysfsWrite> writes;
  std::vector<std::string> notes;
};

// Devfreq and cpufreq round max_freq down and min_freq up to their tables: writing f + kClockMarginMhz
// and f - kClockMarginMhz selects the table's entry within that margin of f (steps are tens of MHz apart;
// the AGX Orin's 1300 MHz GPU step is its driver's 1300.5 MHz).
inline constexpr double kClockMarginMhz = 1.0;

// How to set `mode`: `sudo nvpmodel -m ID` and `sudo jetson_clocks` for a named mode with an nvpmodel id;
// else the sysfs writes of the domains in `domains` (gpu: devfreq min/max_freq; cpu: online cores and
// cpufreq scaling_min/max_freq; emc: nvpmodel's EMC cap and the BPMP clock's locked rate). Throws
// ridge::Error for a domain without a known control.
ModeSteps mode_steps(const Device& device, const PowerMode& mode, const std::vector<std::string>& domains);

// Whether a custom mode can set `domain`'s online cores: sysfs takes CPUs online and offline; a Jetson GPU's
// powered TPCs (its clocks.gpu.cores) come with nvpmodel's named modes alone.
bool custom_mode_sets_cores(const std::string& domain);

// The command lines people run for `steps`.
std::vector<std::string> command_lines(const ModeSteps& steps);

// The sysfs root: $RIDGE_SYSFS_ROOT (tests point it at a fake tree), else /sys.
std::string sysfs_root();

// Empty when this machine is a Jetson (/etc/nv_tegra_release, or a device-tree compatible string naming
// nvidia,tegra; with RIDGE_SYSFS_ROOT set, only that tree's firmware/devicetree/base/compatible counts);
// else why it is not.
std::string not_a_jetson_reason();

// Carries out `steps` (programs found on PATH, writes under sysfs_root()). Refuses, with one line, off a
// Jetson or without root (root is not needed for a RIDGE_SYSFS_ROOT tree); throws ridge::Error naming
// the first write or program that fails. Returns what it did, one line per action.
std::vector<std::string> apply_mode_steps(const ModeSteps& steps);

}  // namespace ridge::hw
