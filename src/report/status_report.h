#pragma once
// `ridge status` as a document: a sweep's counts per stage and per SLURM shard, or the sweeps a store holds.
#include <string>
#include <vector>

#include "report/document.h"
#include "sweep/status.h"

namespace ridge::report {

// `stage`: the stage whose counts JSON reports at the top level (done, failed, running, pending).
Document sweep_status_document(const sweep::SweepStatus& status, const std::string& stage);
Document stored_sweeps_document(const std::vector<sweep::StoredSweep>& sweeps, const std::string& store_path);

}  // namespace ridge::report
