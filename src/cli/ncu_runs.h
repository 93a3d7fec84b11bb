#pragma once
// Running ncu command lines and importing what they wrote: `ridge ncu run`, and `ridge profile` (ridge's own GPU
// executor under ncu).
#include "cli/import_ncu.h"
#include "profile/ncu_runs.h"

namespace ridge::cli {

// Runs every point of `request` under ncu with a progress line per point on stderr, then prints what was written
// (`import` false) or imports it. Throws ridge::Error (one line) when ncu cannot run at all, or naming the points that
// failed after importing the others.
int run_ncu_points(const profile::NcuRunRequest& request, bool import, NcuImportOptions import_options);

}  // namespace ridge::cli
