#pragma once
// What every executor's bench shares: the warm-up, the timed runs under the stopping rule, the
// layer descriptors of layers.csv and the per-node profile's summary. Only how one run is timed
// differs (the CPU's wall clock, the GPU's CUDA events).
#include <functional>

#include "exec/measurement.h"
#include "exec/options.h"
#include "graph/graph.h"

namespace ridge::exec {

// Runs `step` at least `min_warmup` times and `warmup_seconds` long (only the minimum with a fixed
// iteration count); sets result.warmup_runs.
void warm_up(const std::function<void()>& step, const BenchOptions& options, BenchResult& result);

// Timed runs until the stopping rule (or the fixed iteration count) is met: `timed_step` runs once and
// returns its time in ms. Sets latency_ms, stop_reason and the steady-clock window of the runs.
void measure(const std::function<double()>& timed_step, const BenchOptions& options, BenchResult& result);

// Channels and kernel size of convolutions and matrix products, for layers.csv.
void describe_layer(const graph::Graph& g, const graph::Node& node, NodeTiming& timing);

// Per-node and per-op-type shares of the summed node times, and what is left per node of a profiled
// run (`profiled_total_s` over `runs` runs) beyond the node times: the executor's overhead.
void summarize_profile(BenchResult& result, double profiled_total_s, int64_t runs);

}  // namespace ridge::exec
