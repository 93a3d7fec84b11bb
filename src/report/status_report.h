#pragma once
// `ridge status`, `ridge sweep` and `ridge sweep --dry-run` as documents: a sweep's counts per stage and per SLURM
// shard, or the sweeps a store holds.
#include <map>
#include <string>
#include <vector>

#include "report/document.h"
#include "sweep/matrix.h"
#include "sweep/runner.h"
#include "sweep/status.h"

namespace ridge::report {

// `stage`: the stage whose counts JSON reports at the top level (done, failed, running, pending).
Document sweep_status_document(const sweep::SweepStatus& status, const std::string& stage);
// The cell list of `sweep --dry-run` without --slurm: what would run (its command line) and what the store holds
// already (`status`: cell key -> "done", "failed", ...).
Document sweep_plan_document(const sweep::Matrix& matrix, const std::vector<sweep::Cell>& cells,
                             const std::map<std::string, std::string>& status, const std::string& stage);
// What `ridge sweep` did: its cells, those skipped as stored, run now and failed (each failure with its error), and
// the sweep's own overhead per cell run. `shard`: "K/N" for a SLURM shard, else empty.
Document sweep_summary_document(const sweep::Matrix& matrix, const std::string& stage, const std::string& shard,
                                const std::string& store_path, const sweep::RunSummary& summary);
Document stored_sweeps_document(const std::vector<sweep::StoredSweep>& sweeps, const std::string& store_path);

}  // namespace ridge::report
