#pragma once
// The layer sample a shape-aware calibration is fitted on: single-layer graphs (with the epilogues
// optimized mode fuses into them) over the shapes real models use, run on this machine's executor
// in each mode and thread count asked for. Like nn-Meter's adaptive sampler it then samples more
// where the model fitted so far predicts worst.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "calib/model.h"
#include "calib/sample.h"
#include "exec/engine.h"
#include "graph/graph.h"

namespace ridge::calib {

// One configuration: a template (conv, depthwise, linear, ...) and its parameters.
struct LayerConfig {
  std::string layer;                     // template name, a row of the template table
  std::map<std::string, int64_t> param;  // e.g. batch, channels, size, kernel, stride, epilogue
  std::string label() const;             // "conv batch=1 channels=64 kernel=3 ..."
};

// The template names, in table order.
std::vector<std::string> layer_templates();

// The graph of one configuration, shapes bound and inferred, weights random at run time.
// Throws ridge::Error for an unknown template or parameters it cannot take.
graph::Model build_layer_model(const LayerConfig& config);

// Configurations drawn from each template's parameter grid (log-spaced sizes), `per_template`
// times the template's weight each, skipping those above the work limit; deterministic for a seed.
std::vector<LayerConfig> draw_configs(int per_template, uint64_t seed);
// Configurations one grid step away from `config` in one or two parameters.
std::vector<LayerConfig> neighbours(const LayerConfig& config, int count, uint64_t seed);

struct SampleOptions {
  bool quick = false;  // fewer configurations, one refinement round: 5 to 15 minutes on 2 cores
  std::vector<int> threads{1};
  std::vector<exec::Mode> modes{exec::Mode::kEager, exec::Mode::kOptimized};
  uint64_t seed = 0;
  Ceilings ceilings;             // the floor the refinement's interim fits use
  double seconds_per_run = 0.1;  // measuring budget per configuration, mode and thread count, over its visits
  // Passes over the configurations; each keeps its fastest visit (its run's median), as other tenants of a shared
  // machine only add time. 0: 2 on the CPU, 1 on a GPU (a device the run has to itself).
  int visits = 0;
  int per_template = 0;    // 0: 8 (quick) or 24, times each template's weight
  int refine_rounds = -1;  // -1: 1 (quick) or 2
  // The GPU executor (an engine of exec::Backend::kCuda): modes eager and cuda-graph, threads {0} (it has none), the
  // GPU's plan (shape arithmetic folded), and each run's node times scaled to its median where they sum to more
  // (a graph replay's node times come from eager passes that wait on the host).
  bool gpu = false;
};

struct SampleProgress {
  int done = 0, total = 0;  // measurements (configuration x mode x threads) done and planned
  std::string stage;        // "sample", "refine 1", ...
  std::string label;
  double elapsed_s = 0;
};

struct SampleRun {
  std::vector<Sample> samples;
  std::vector<OverheadSample> overheads;
  std::vector<std::string> failures;  // configurations the executor refused, with the reason
  int configurations = 0;
  int runs = 0;           // graph runs measured (a configuration once per mode and thread count)
  int anchored_runs = 0;  // of them, runs whose nodes summed to more than the run: scaled to it (node_time_anchor)
};

// Measures the sample. Samples carry `environment` (cpu, torch, ridge revision, time) and the
// configuration as label. A configuration that fails is named in `failures`; the rest goes on.
SampleRun run_layer_sample(exec::Engine& engine, const SampleOptions& options,
                           const std::function<void(const SampleProgress&)>& on_progress = {});

// Measures a list of configurations as run_layer_sample does (no refinement).
SampleRun measure_configs(exec::Engine& engine, const std::vector<LayerConfig>& configs, const SampleOptions& options,
                          const std::string& stage, const std::function<void(const SampleProgress&)>& on_progress,
                          int done_before = 0, int total = 0);

}  // namespace ridge::calib
