#pragma once
// Running one ncu command of `ridge ncu run` and telling from what ncu printed (its "==ERROR==" and
// "==WARNING==" lines) and its exit status whether it produced a CSV, and if not, why and what fixes it.
#include <string>

#include "profile/ncu_command.h"

namespace ridge::profile {

enum class NcuFailure {
  kNone,
  kNotStarted,         // ncu itself could not be run
  kNoPermission,       // ERR_NVGPUCTRPERM: the counters are restricted to administrators
  kUnsupportedDevice,  // a GPU without profiling support (vGPU, MIG without profiling, too old)
  kNoKernels,          // the filters matched nothing, or the kernels ran in a process not profiled
  kProgramFailed,      // the profiled program exited nonzero
  kNcuFailed,          // anything else ncu reported
};

struct NcuDiagnosis {
  NcuFailure failure = NcuFailure::kNone;
  std::string message;  // one line: what happened and how to fix it; empty when it worked
  // The failure is the machine's, not the point's: every later point would fail the same way.
  bool stops_all() const {
    return failure == NcuFailure::kNotStarted || failure == NcuFailure::kNoPermission ||
           failure == NcuFailure::kUnsupportedDevice;
  }
};

// The diagnosis of a finished ncu run from `messages` (ncu's "==...==" lines, from its console output
// and its log file), its `exit_code`, and whether the CSV has kernel rows. `log_path` is named in the
// messages that send the reader to the program's output.
NcuDiagnosis diagnose_ncu(const std::string& messages, int exit_code, bool csv_has_rows, const std::string& log_path);

struct NcuPointRun {
  NcuDiagnosis diagnosis;
  double elapsed_s = 0;
};
// The compute capability ("9.0") of the GPUs nvidia-smi lists, when they all have the same one; empty when
// nvidia-smi is missing, fails, or lists GPUs of several kinds (which one runs is then the program's choice).
std::string gpu_compute_capability();

// Runs `point.argv` (the program's and ncu's console output going to `point.log_path`) and diagnoses it.
NcuPointRun run_ncu_point(const NcuPoint& point);

}  // namespace ridge::profile
