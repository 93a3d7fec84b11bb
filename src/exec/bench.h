#pragma once
// `ridge bench` behind one entry point: every point of the matrix (batch x input size x mode x convolution
// algorithm) bound, inferred and checked before anything is measured, then measured in turn; a point that fails
// does not lose the others. Power is measured by the level above (power::BenchMeter), handed in as an EnergyMeter.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/run.h"
#include "exec/bench_matrix.h"
#include "exec/exec_request.h"

namespace ridge::exec {

// Energy of each point's timed runs, from a meter that runs around the whole matrix.
class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;
  // Seconds between the source's samples: a point is timed long enough for several.
  virtual double interval_s() const = 0;
  virtual void attach(BenchResult& result) const = 0;
};

struct BenchRequest {
  analysis::Request model;  // bindings, training and optimizer (options.training, options.optimizer)
  ExecRequest exec;         // mode may be kBothModes and conv_algo kAllConvAlgos: a run per value
  // Sweeps: the batches and input sizes (images: H = W; sequences: length) to measure; {0}: as bound.
  std::vector<int64_t> batches{0}, input_sizes{0};
  int64_t iters = 0;  // exactly this many timed runs (training: 10 when 0); else the stopping rule
  double max_time_s = 10, warmup_s = 0.5, target_rse = 0.01, learning_rate = 1e-3;
  int64_t min_runs = 10;
  bool per_node = true;          // the per-node profile pass
  double power_min_time_s = -1;  // with a meter: time each point this long (< 0: 10 sampling intervals, >= 2 s)
};

// `--sweep batch=...` and `--sweep input=...` (analysis::parse_sweep's text) into `request.batches` and
// `request.input_sizes`; throws ridge::Error (one line) for another key and for the options that cannot be honoured
// together: --inputs with a sweep or with --batch, --dim or --input, a batch sweep with --batch or --dim batch=, an
// input sweep with --input.
void bind_sweeps(BenchRequest& request, const std::vector<std::string>& sweeps);

struct BenchHooks {
  // Opened once every point is checked, before the executor is loaded (it measures idle power); empty: no power.
  std::function<std::unique_ptr<EnergyMeter>()> open_meter;
  // A point completed (its result whole) or failed: `label` names it ("batch 4, optimized auto").
  std::function<void(size_t index, size_t total, const std::string& label, const BenchResult&)> on_result;
  std::function<void(size_t index, size_t total, const std::string& label, const std::string& why)> on_failure;
};

struct BenchOutcome {
  std::vector<BenchResult> runs;      // in the order of the points that succeeded
  std::vector<std::string> failures;  // "LABEL: why", one per failed point
  size_t points = 0;
};

// Throws ridge::Error before anything is measured: options the device cannot honour, a point whose shapes do
// not bind ("batch 4: ..."), an op the executor lacks, a run that does not fit in memory. An exception from
// on_result (a file that cannot be written) stops the matrix.
BenchOutcome bench(const BenchRequest& request, const BenchHooks& hooks);

}  // namespace ridge::exec
