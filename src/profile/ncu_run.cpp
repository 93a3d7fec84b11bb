#include "profile/ncu_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "util/program.h"

namespace ridge::profile {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The first line of `text` containing `needle` (case-insensitive), trimmed; empty when none does.
std::string line_with(const std::string& text, const std::string& needle) {
  auto haystack = lower(text);
  auto at = haystack.find(lower(needle));
  if (at == std::string::npos) return {};
  auto start = text.rfind('\n', at);
  start = start == std::string::npos ? 0 : start + 1;
  auto end = text.find('\n', at);
  auto line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

// ncu's own lines ("==PROF==", "==ERROR==", "==WARNING=="), whichever file they went to; the program's
// output (which may say anything) is left out. Also whether a details-page header was seen.
struct Scan {
  std::string messages;
  bool header = false;
  bool rows = false;
};
void scan_file(const std::string& path, Scan& scan) {
  std::ifstream in(path);
  std::string line;
  bool after_header = false;
  while (std::getline(in, line)) {
    auto text = line;
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a BOM
    if (text.rfind("==", 0) == 0) {
      scan.messages += text + "\n";
    } else if (text.rfind("\"ID\",", 0) == 0) {
      scan.header = after_header = true;
    } else if (after_header && text.rfind("\"", 0) == 0) {
      scan.rows = true;
    }
  }
}

}  // namespace

NcuDiagnosis diagnose_ncu(const std::string& messages, int exit_code, bool csv_has_rows, const std::string& log_path) {
  NcuDiagnosis d;
  auto set = [&d](NcuFailure failure, std::string message) {
    d.failure = failure;
    d.message = std::move(message);
    return d;
  };
  if (!line_with(messages, "ERR_NVGPUCTRPERM").empty())
    return set(NcuFailure::kNoPermission,
               "no permission to read the GPU performance counters (ERR_NVGPUCTRPERM): run as root (sudo ridge ncu "
               "run ...), or set the nvidia module option NVreg_RestrictProfilingToAdminUsers=0 (in "
               "/etc/modprobe.d/, then reboot); https://developer.nvidia.com/ERR_NVGPUCTRPERM");
  for (const char* needle : {"not supported on this device", "profiling is not supported", "not supported on device",
                             "device not supported", "unsupported gpu", "vgpu"}) {
    auto line = line_with(messages, needle);
    if (!line.empty())
      return set(NcuFailure::kUnsupportedDevice,
                 fmt::format("this GPU cannot be profiled ({}): virtualised GPUs (vGPU, most cloud instances) and "
                             "MIG slices do not expose the performance counters unless the host enables "
                             "profiling; run on a bare-metal GPU or ask the administrator to enable it",
                             line));
  }
  // ncu reports the program's failure as "==ERROR== The application returned an error code (3)."
  auto returned = line_with(messages, "The application returned an error code");
  if (!returned.empty()) {
    auto open = returned.rfind('(');
    int code = exit_code;
    if (open != std::string::npos) code = std::atoi(returned.c_str() + open + 1);
    return set(NcuFailure::kProgramFailed,
               fmt::format("the program failed (exit code {}); its output is in {}", code, log_path));
  }
  if (!line_with(messages, "No kernels were profiled").empty() || (exit_code == 0 && !csv_has_rows))
    return set(NcuFailure::kNoKernels,
               "ncu profiled no kernels: the --nvtx-include/--kernel-name/--launch-skip filters matched nothing, or "
               "the kernels ran in a child process (try --target-processes all); the program's output is in " +
                   log_path);
  if (exit_code != 0) {
    auto error = line_with(messages, "==ERROR==");
    // Without a word from ncu, the exit code is the program's (ncu passes it on).
    if (error.empty())
      return set(NcuFailure::kProgramFailed,
                 fmt::format("the program failed (exit code {}); its output is in {}", exit_code, log_path));
    return set(NcuFailure::kNcuFailed,
               fmt::format("ncu failed (exit code {}): {}; see {}", exit_code, error, log_path));
  }
  return d;
}

NcuPointRun run_ncu_point(const NcuPoint& point) {
  NcuPointRun run;
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> args(point.argv.begin() + 1, point.argv.end());
  // No stale CSV from an earlier run may pass for this one's.
  std::remove(point.csv_path.c_str());
  auto result = run_program_logged(point.argv.front(), args, point.log_path);
  run.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.started) {
    run.diagnosis.failure = NcuFailure::kNotStarted;
    run.diagnosis.message = fmt::format("cannot run {}: {}", point.argv.front(), result.error);
    return run;
  }
  Scan scan;
  scan_file(point.log_path, scan);
  scan_file(point.csv_path, scan);
  int exit_code = result.exit_code;
  if (exit_code < 0) {  // killed by a signal
    run.diagnosis.failure = NcuFailure::kNcuFailed;
    run.diagnosis.message = fmt::format("ncu was {}; see {}", result.error, point.log_path);
    return run;
  }
  run.diagnosis = diagnose_ncu(scan.messages, exit_code, scan.rows, point.log_path);
  return run;
}

std::string gpu_compute_capability() {
  auto smi = find_on_path("nvidia-smi");
  if (!smi) return {};
  auto out = run_program(*smi, {"--query-gpu=compute_cap", "--format=csv,noheader"}, 20);
  if (!out.started || out.timed_out || out.exit_code != 0) return {};
  std::string cc;
  std::istringstream lines(out.output);
  for (std::string line; std::getline(lines, line);) {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (line.empty()) continue;
    if (!cc.empty() && line != cc) return {};
    cc = line;
  }
  return cc;
}

}  // namespace ridge::profile
