#pragma once
// `ridge ncu command` and `ridge ncu run --no-import` as documents: one row per point of the sweep.
#include <functional>
#include <string>
#include <vector>

#include "profile/ncu_command.h"
#include "profile/ncu_run.h"
#include "profile/ncu_runs.h"
#include "report/document.h"

namespace ridge::report {

// People see one shell line per point, ready to paste. JSON: {"metrics": [names], "commands":
// [{"point", "sweep": {NAME: value}, "command", "argv": [...], "csv", "log"}]}; CSV: the commands
// without argv.
// `cc`: the compute capability whose own counters the lines ask for (empty: none).
Document ncu_command_document(const std::vector<profile::NcuPoint>& points, const std::string& cc);
// `ridge ncu command` as one call: the points of the request's sweeps as that document; without --cc, `note` hears
// first that tensor-core work is counted from instruction counts only.
Document ncu_command(const profile::NcuRunRequest& request, const std::function<void(const std::string&)>& note);

// What `ridge ncu run --no-import` did: JSON {"points": [{"point", "sweep", "status" ("ok", "failed",
// "not run"), "elapsed_s", "csv", "log", "message"}]}. `runs` holds the points run, in order.
Document ncu_run_document(const std::vector<profile::NcuPoint>& points, const std::vector<profile::NcuPointRun>& runs);

}  // namespace ridge::report
