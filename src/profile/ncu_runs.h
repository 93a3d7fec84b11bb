#pragma once
// Running every point of `ridge ncu run` (and `ridge profile`) under Nsight Compute: finding ncu and the GPU's
// compute capability, one run per point of the sweeps, and what the runs wrote for the import.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "profile/ncu_command.h"
#include "profile/ncu_import.h"
#include "profile/ncu_run.h"

namespace ridge::profile {

struct NcuRunRequest {
  // ncu.ncu: a path, or a name looked up on PATH; empty: ncu on PATH, else the CUDA toolkit's. ncu.output_dir
  // empty: ./ncu-YYYYmmdd-HHMMSS. ncu.cc empty: nvidia-smi's, where ridge has its counter table.
  NcuOptions ncu;
  std::vector<std::string> sweeps;  // NAME=V1,V2,... each (parse_sweep)
};

// The points of `request`'s sweeps; a malformed sweep or a placeholder without its sweep is a one-line ridge::Error.
std::vector<NcuPoint> ncu_points(const NcuRunRequest& request);

// Without the compute capability, tensor-core work is counted only from instruction counts: the note saying so.
std::string without_cc_note(const std::string& why);

// One line of progress (stderr in the CLI): what ncu is run on, where a run's output went, how it ended.
using NcuProgressFn = std::function<void(const std::string& line)>;

struct NcuRuns {
  std::vector<NcuPoint> points;     // with the ncu, output directory and compute capability used
  std::vector<NcuPointRun> runs;    // one per point
  std::vector<size_t> written;      // the points whose CSV was written, in order
  std::vector<std::string> failed;  // the labels of the points that failed
  std::string output_dir;
};

// Runs every point (progress before and after each). Throws ridge::Error (one line): ncu not found, a bad sweep, an
// output directory it cannot create, and a failure every later point would share (no permission to the counters,
// a GPU that cannot be profiled, ncu not starting). A point that fails alone is in `failed`, the others run on.
NcuRuns run_ncu(const NcuRunRequest& request, const NcuProgressFn& progress);

// The written CSVs appended to `request`'s files, each with its point's label and its `batch` sweep value.
void add_written(const NcuRuns& runs, NcuImportRequest& request);

// The one line naming the failed points, and where the CSVs of the others are (`imported`: and that they were).
std::string failure_message(const NcuRuns& runs, bool imported);

}  // namespace ridge::profile
