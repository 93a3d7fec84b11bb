// Programs ridge drives: the NVIDIA profilers and SLURM's sbatch, found on PATH and asked `--version`.
#include <fmt/format.h>
#include <unistd.h>

#include "doctor/checks.h"
#include "util/program.h"

namespace ridge::doctor {
namespace {

std::string last_line(const std::string& output) {
  auto end = output.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  auto start = output.rfind('\n', end);
  return output.substr(start == std::string::npos ? 0 : start + 1,
                       end + 1 - (start == std::string::npos ? 0 : start + 1));
}

// `fix` is what to install, `broken_fix` what to do when `NAME --version` fails; a copy found in one of
// `hint_dirs` (but not on PATH) makes the fix say so.
Check program_check(const std::string& area, const std::string& name, const std::string& fix,
                    const std::string& broken_fix, const std::vector<std::string>& hint_dirs = {}) {
  auto path = find_on_path(name);
  if (!path) {
    for (const auto& dir : hint_dirs)
      if (::access((dir + "/" + name).c_str(), X_OK) == 0)
        return missing(area, name, "not on PATH",
                       fmt::format("{}/{} exists: add {} to PATH (export PATH=$PATH:{})", dir, name, dir, dir));
    return missing(area, name, "not on PATH", fix);
  }
  auto run = run_program(*path, {"--version"});
  auto line = version_line(run.output);
  if (!run.started || run.timed_out || run.exit_code != 0 || line.empty()) {
    // The last line of a failure says the most ("sbatch: fatal: Could not establish a configuration source").
    auto last = last_line(run.output);
    std::string why = !run.started    ? run.error
                      : run.timed_out ? "did not finish in 10 s"
                      : last.empty()  ? fmt::format("exited {} printing nothing", run.exit_code)
                                      : fmt::format("exited {}: {}", run.exit_code, last);
    return missing(area, name, fmt::format("{} --version {}", *path, why), broken_fix);
  }
  auto number = version_number(line);
  return ok(area, name, fmt::format("{} ({})", number.empty() ? line : number, *path));
}

}  // namespace

std::vector<Check> profiler_checks() {
  std::vector<std::string> cuda_bins{"/usr/local/cuda/bin"};
  return {program_check("profilers", "ncu",
                        "install Nsight Compute (with the CUDA toolkit, or NVIDIA's nsight-compute package) and put "
                        "its directory on PATH",
                        "reinstall Nsight Compute", cuda_bins),
          program_check("profilers", "nsys",
                        "install Nsight Systems (with the CUDA toolkit, or NVIDIA's nsight-systems package) and put "
                        "its directory on PATH",
                        "reinstall Nsight Systems", cuda_bins)};
}

std::vector<Check> slurm_checks() {
  return {program_check("slurm", "sbatch",
                        "install SLURM's client commands (Debian: sudo apt install slurm-client) or load the "
                        "cluster's module (module load slurm)",
                        "configure SLURM's client: /etc/slurm/slurm.conf (or SLURM_CONF) naming the cluster's "
                        "controller, as on the cluster's login nodes")};
}

}  // namespace ridge::doctor
