#pragma once
// `ridge compare`: a prediction against a measured run, node by node and for the whole model.
// The measured side is one run of `ridge bench` (the exec::BenchResult its file decodes to, or one measured now); nodes
// are matched by name, and those only one side has are kept and named, never dropped.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exec/bench_csv.h"
#include "exec/measurement.h"
#include "report/document.h"
#include "roofline/predict.h"

namespace ridge::report {

// Which run of a bench file to compare: unset / empty matches any.
struct RunSelection {
  std::optional<int64_t> batch;
  std::string mode;
  bool training = false;  // a training step's run (and only one) is wanted
  std::string optimizer;  // with training: the run's optimizer ("" any)
};

// Reads the bench runs of `path` (a `ridge bench -f json` file or a `bench --csv` directory, exec/bench_csv) and
// picks the inference run (or training run) `want` selects. Throws ridge::Error with one line: unreadable or malformed
// file, no run or several runs matching (the message lists the runs the file holds), an inference run without
// per-node times.
exec::LoadedRun select_bench_run(const std::string& path, const RunSelection& want);

enum class Match {
  kCompared,      // predicted and measured
  kNotMeasured,   // predicted, absent from the run
  kNotPredicted,  // measured, without a prediction (no cost rule, or not a node of the model)
  kFused,         // runs inside another layer (optimized mode): its time is counted there
  kRemoved,       // folded or a no-op in optimized mode: no kernel runs
};
std::string_view name(Match match);

struct NodeComparison {
  std::string name, op, bound;  // bound: the roofline prediction's (compute/memory/overhead/none)
  Match match = Match::kCompared;
  std::string fused_into;  // the layer a fused node runs in
  std::string note;        // why a node is not compared
  std::optional<double> predicted_s, measured_s;
  // The roofline bound time (of the node and the nodes fused into it): max(FLOPs / peak, bytes / bandwidth).
  std::optional<double> roofline_s;
  // Compared nodes: predicted - measured; its share of the sum of |predicted - measured| over the
  // compared nodes; predicted / measured - 1 and roofline_s / measured_s (none where measured is 0).
  std::optional<double> difference_s, share, error, ceiling_fraction;
};

struct Comparison {
  std::string model;  // the model compared
  std::vector<std::pair<std::string, std::string>> inputs;
  roofline::Prediction prediction;  // its nodes are in `nodes`
  exec::BenchResult measured;       // its nodes are in `nodes`
  std::string measured_source;      // the bench file, or "measured now"
  // Whole model: the prediction's total (framework overhead included) against the run's median.
  double predicted_s = 0, measured_s = 0;
  std::optional<double> error;
  // Sums over the compared nodes, and over the nodes only one side has.
  double predicted_nodes_s = 0, measured_nodes_s = 0, abs_difference_s = 0;
  double not_measured_s = 0, not_predicted_s = 0;
  int compared = 0, not_measured = 0, not_predicted = 0, fused = 0;
  // Largest |predicted - measured| first; then the nodes only one side has, longest first;
  // then fused and removed nodes in graph order.
  std::vector<NodeComparison> nodes;
  std::vector<std::string> notes;
};

// `measured`: one bench run, its whole-model latency the median, its nodes their mean times; `source` names it.
// Throws ridge::Error when no measured node is a node of the prediction (another model's run).
Comparison compare(std::string model, const roofline::Prediction& prediction, const exec::BenchResult& measured,
                   std::string source);

// People see the `top` nodes with the largest difference (0: all) and every node only one side
// has; JSON gets everything; `-f csv` one row for the whole model, then one per node.
Document compare_document(const Comparison& comparison, int top);

}  // namespace ridge::report
