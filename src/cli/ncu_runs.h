#pragma once
// Running ncu command lines and importing what they wrote: `ridge ncu run`, and `ridge profile` (ridge's own GPU
// executor under ncu).
#include <string>
#include <vector>

#include "cli/import_ncu.h"
#include "profile/ncu_command.h"

namespace ridge::cli {

struct NcuCliOptions {
  profile::NcuOptions ncu;
  std::vector<std::string> sweeps;
  std::string format = "table";
};

// Runs every point of `o` under ncu (`ncu_flag`: its path, else found on PATH or in the CUDA toolkit), with a
// progress line per point on stderr, then imports the CSVs written (unless `import` is false). Throws ridge::Error
// (one line) when ncu cannot run at all, or naming the points that failed after importing the others.
int run_ncu_points(const NcuCliOptions& o, const std::string& ncu_flag, bool import, NcuImportOptions import_options);

}  // namespace ridge::cli
