#pragma once
// The evidence a shape-aware calibration is fitted on: measured layers (from the layer sample or
// from the per-node profile of whole-model bench runs) and measured framework overhead, each kept
// with where and how it was measured, in CSV files a user can read, merge and refit from.
#include <istream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "calib/features.h"

namespace ridge::calib {

struct Sample {
  LayerFeatures features;
  std::string mode = "eager";  // executor mode measured: eager, optimized
  double measured_s = 0;       // the node's mean time (per-node profile), anchored to its run (node_time_anchor)
  std::string source;          // "layer-sample", "bench:models/resnet50.onnx", ...
  std::string label;           // the configuration or node name
  std::string run;  // the measured run the node belongs to (its OverheadSample has the same); "" when unknown
  std::map<std::string, std::string> environment;  // cpu, torch, ridge_revision, timestamp, ...
};

// One measured graph run: the framework's time outside the node timers is
// per_run + per_node x nodes, fitted per mode and thread count. threads is 0 for the GPU executor.
struct OverheadSample {
  std::string mode = "eager";
  int threads = 1;
  int nodes = 0;          // nodes the executor ran
  double node_sum_s = 0;  // summed node times (profiled run)
  double run_s = 0;       // the run's mean latency (unprofiled)
  std::string source;
  std::string run;  // names the run, as its node samples do: the GPU fit checks nodes against their run's time
};

// The factor a CPU run's node times are multiplied by so that they sum to at most the run's median (1 where they
// already do, and always on a GPU). The per-node pass times each node between its own timers, which adds what the
// whole run does not pay: the timers themselves, threads woken per node, and any stall of the machine that fell
// in the profiled passes but not in the timed runs (on a 2-vCPU VM, 7% of one layer sample's 1620 runs summed to more
// than 1.2x their run, up to 21x). Where the nodes sum to less, the rest is the framework's own time (an
// OverheadSample). GPU node times are kept as measured: each is what the device spent on the node after the previous
// one, its work and any wait for the host's launch, which the GPU fit separates with the run's own time (gpu_model.h);
// scaling them alike would blur the two.
double node_time_anchor(double node_sum_s, double run_median_s, bool gpu);

// The executor a sample measured: "pytorch" (a layer of PyTorch's timings: environment framework), "cuda" (the GPU
// executor's layers have no thread count) or "cpu"; and that executor as people read it ("the GPU executor").
std::string executor_of(const Sample& sample);
std::string executor_name(const std::string& executor);

// CSV with a header; columns are found by name on reading, so files from older ridge versions
// with fewer environment columns still load. Throws ridge::Error naming the file and line.
void write_samples_csv(std::ostream& out, const std::vector<Sample>& samples);
std::vector<Sample> read_samples_csv(std::istream& in, const std::string& source_name);
void write_overhead_csv(std::ostream& out, const std::vector<OverheadSample>& samples);
std::vector<OverheadSample> read_overhead_csv(std::istream& in, const std::string& source_name);

}  // namespace ridge::calib
