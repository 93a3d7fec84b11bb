#pragma once
// `ridge sweep` as one call: a run matrix expanded for a stage (and a shard), then listed (--dry-run), submitted as a
// SLURM job array, or run cell by cell into the store. A cell runs a ridge command line; how is the caller's (the
// CLI runs it in process), so this module never calls back up into the CLI.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/document.h"
#include "store/record.h"
#include "store/store.h"
#include "sweep/runner.h"
#include "sweep/slurm.h"

namespace ridge::report {

struct SweepRequest {
  std::string file;                  // the run matrix (YAML)
  std::string store;                 // the store the cells are kept in (a path, resolved)
  std::string stage = "full";        // sanity, quick, full
  std::string shard;                 // "K/N": every N-th cell from K; empty: all
  std::vector<std::string> done_in;  // cells finished in these stores count as done too
  sweep::Measurement measurement;    // for every bench cell
  bool slurm = false, dry_run = false;
  sweep::SlurmOptions slurm_options;
  std::string ridge_binary;  // what the SLURM scripts run; empty: this process's executable
};

// One cell's command as it ran: its exit code, the one line it failed with, and the ids of the results it stored.
struct CellRun {
  int exit_code = 0;
  std::string error;
  std::vector<int64_t> stored;
};
// Runs the ridge command line `args` (the words after "ridge") as the cell `cell` of a sweep, its results kept in
// the sweep's store.
using CellCommand = std::function<CellRun(const std::vector<std::string>& args, const store::Cell& cell)>;
// A cell as the CLI runs it: `run` (the words after "ridge"; the exit code, and the one line of a failure in
// `error`) called in this process with the invocation (report/command_output.h) quiet, set to the cell, the sweep's
// `store` and the cell's command line, and put back after; the results saved meanwhile are the cell's.
CellRun run_cell(const std::vector<std::string>& args, const store::Cell& cell, const std::string& store,
                 const std::function<int(const std::vector<std::string>& args, std::string& error)>& run);
// The store at a path (the CLI keeps one connection per store for the whole process).
using StoreOpener = std::function<store::Store&(const std::string& path)>;

// What the sweep prints: a document (the cell list of --dry-run, or the summary of what ran), or, for SLURM, the text
// of the scripts (--dry-run) or of the jobs submitted; and its exit code (1 when a cell failed).
struct SweepOutcome {
  std::optional<Document> document;
  std::string text;
  int exit_code = 0;
};

// Throws ridge::Error (one line) for a bad matrix, stage or shard, --slurm with --shard, and sbatch's refusals. With
// --slurm the store is never opened (the merge job writes it); progress goes to stderr while the cells run.
SweepOutcome run_sweep(const SweepRequest& request, const StoreOpener& open_store, const CellCommand& run_cell);

}  // namespace ridge::report
