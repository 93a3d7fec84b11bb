#pragma once
// Runs the cells of a sweep that the store does not hold yet, one at a time: each cell's command
// stores its own result as it completes (a kill loses at most the cell in flight), a failed cell is
// stored with its error, and the sweep goes on.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"
#include "sweep/matrix.h"

namespace ridge::sweep {

struct CellOutcome {
  bool ok = false;
  std::string error;    // why it failed
  std::string summary;  // the cell's headline figure, for the progress line
};
using CellRunner = std::function<CellOutcome(const Cell&)>;

// bench's measurement options a sweep passes on to every bench cell (unset: bench's defaults).
struct Measurement {
  std::optional<double> max_time, warmup, target_rse;
  std::optional<int64_t> min_runs;
  bool no_per_node = false;
};
// The same as bench's options (--max-time S ... --no-per-node): a bench cell appends them to its command line, and a
// SLURM shard passes them on to the sweep it runs.
std::vector<std::string> measurement_args(const Measurement& measurement);

// What a cell's command did: its exit code, the one line it failed with, and the results it stored. The cell is done
// only when it stored a result (a command that exits 0 having stored nothing failed too); its summary is the stored
// results' headlines, read back from `store`.
CellOutcome cell_outcome(int exit_code, const std::string& error, const std::vector<int64_t>& stored,
                         store::Store& store);

struct RunSummary {
  size_t cells = 0, skipped = 0, done = 0, failed = 0;
  std::vector<std::pair<std::string, std::string>> failures;  // cell key, error
  double seconds = 0;                                         // the whole sweep
  double cell_seconds = 0;                                    // inside the cells' commands
  // The sweep's own time per cell run: planning, the ETA's analysis, store lookups and writes.
  double overhead_per_cell_s() const;
};

struct RunOptions {
  Stage stage = Stage::kFull;
  std::string shard;                     // "2/8" for a SLURM shard, else empty
  std::vector<std::string> done_stores;  // other stores whose finished cells count as done
  bool terminal = false;                 // a progress bar instead of lines
};

RunSummary run_sweep(const Matrix& matrix, const std::vector<Cell>& cells, store::Store& store,
                     const RunOptions& options, const CellRunner& run);

// The cells already finished (status ok) in `store` and in `others` (stores that do not exist yet
// are skipped).
std::map<std::string, std::string> stored_cell_status(const std::string& sweep, store::Store& store,
                                                      const std::vector<std::string>& others);

}  // namespace ridge::sweep
