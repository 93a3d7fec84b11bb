#pragma once
// `ridge status` and `ridge sweep --dry-run` as documents: a sweep's counts per stage and per SLURM shard, or the
// sweeps a store holds.
#include <map>
#include <string>
#include <vector>

#include "report/document.h"
#include "sweep/matrix.h"
#include "sweep/status.h"

namespace ridge::report {

// `stage`: the stage whose counts JSON reports at the top level (done, failed, running, pending).
Document sweep_status_document(const sweep::SweepStatus& status, const std::string& stage);
// The cell list of `sweep --dry-run` without --slurm: what would run (its command line) and what the store holds
// already (`status`: cell key -> "done", "failed", ...).
Document sweep_plan_document(const sweep::Matrix& matrix, const std::vector<sweep::Cell>& cells,
                             const std::map<std::string, std::string>& status, const std::string& stage);
Document stored_sweeps_document(const std::vector<sweep::StoredSweep>& sweeps, const std::string& store_path);

}  // namespace ridge::report
