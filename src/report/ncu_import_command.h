#pragma once
// Nsight Compute exports imported, printed and kept (`ridge import ncu`), and ncu run on every point of a sweep
// before that import (`ridge ncu run`, `ridge profile`).
#include <iostream>
#include <string>

#include "profile/ncu_import.h"
#include "profile/ncu_runs.h"
#include "report/command_output.h"

namespace ridge::report {

struct NcuImportCommand {
  profile::NcuImportRequest request;
  std::string format = "table";
  StoreOptions store;
};

// Imports the request's exports, prints the import on `out` in `format` (-f json: its codec) and keeps each run in the
// store as a result of its own. Returns the exit code.
int import_ncu_exports(const NcuImportCommand& command, std::ostream& out = std::cout);

// Runs every point of `request` under ncu with a progress line per point on `err`, then prints what was written
// (`import` false) or imports the CSVs written, as import_ncu_exports does. Throws ridge::Error (one line) when ncu
// cannot run at all, or naming the points that failed after importing the others.
int run_ncu_points(const profile::NcuRunRequest& request, bool import, NcuImportCommand import_command,
                   std::ostream& out = std::cout, std::ostream& err = std::cerr);

}  // namespace ridge::report
