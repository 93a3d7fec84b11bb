#pragma once
// Whole-model `ridge bench` runs as calibration evidence: every node of the per-node profile
// becomes a measured layer (its features from the model, analysed again at the run's batch and
// input size, fused as the run's executor mode fuses), and every run a measurement of the
// framework's overhead. What cannot be used (training runs, other precisions, missing models,
// node names the model lacks) is said in notes, never dropped in silence.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run.h"
#include "calib/sample.h"
#include "graph/graph.h"
#include "shape/infer.h"

namespace ridge::calib {

struct BenchEvidence {
  std::vector<Sample> samples;            // one per measured node (per executed layer)
  std::vector<OverheadSample> overheads;  // one per run with both a latency and a per-node profile
  int runs = 0;                           // runs turned into evidence (skipped ones are in notes)
  std::vector<std::string> notes;         // runs skipped and why, node rows not used and why
  std::vector<std::string> models;        // distinct model paths read, as the runs recorded them
  std::string executor;                   // "cpu", "cuda" (ridge's executors) or "pytorch": what the used runs measured
  std::string gpu;                        // the GPU the runs name (cuda, pytorch)
  std::string framework;                  // pytorch: "PyTorch 2.11.0+cu130", as its timings name it
};

// Each path: a directory written by `ridge bench --csv DIR` (reads DIR/overall.csv and
// DIR/nodes.csv; a path to either file stands for its directory), or a `ridge bench -f json`
// output file. Runs whose recorded model path equals `exclude_model`, or has its file name, are
// skipped (leave-one-model-out validation). Runs of a training step, of a precision other than
// fp32, of a forced convolution algorithm or of channels-last memory are skipped with a note: the
// calibration predicts fp32 inference with the executor's default choices. GPU runs (modes eager and
// cuda-graph, cuDNN's heuristic algorithms) are evidence for the GPU executor; runs of both executors
// in one call are refused (a calibration fits one device). Each run's node times are scaled down to
// its median where they sum to more (the per-node pass's own timers and waits; bench_evidence.cpp).
// Throws ridge::Error (one line, naming the file and line) on unreadable or malformed input.
// The bindings a bench run used, recovered from what it recorded: the batch, and either the swept
// size (bound as bench bound it: shape::bind_input_size) or the first input's whole shape ("8x3x224x224").
// Throws ridge::Error when the size fits no input.
shape::Bindings bindings_for(const graph::Model& model, int64_t batch, const std::string& input_size);

// The model file a bench run names: the path as given, else relative to each of `dirs` (where the
// results lie); nullopt when none exists.
std::optional<std::string> find_bench_model(const std::string& model, const std::vector<std::filesystem::path>& dirs);

// A path ending in .jsonl is PyTorch's whole-model timings (calib/torch_timings.h): each run becomes the layers
// the GPU executor would run, untimed, and the run's time; `dims` binds named dims of runs that recorded no input
// size (a sequence length). Runs of ridge's executors and PyTorch's in one call are refused.
// Kernel times of the GPU executor (an Nsight Compute export of `model` analysed as `analysis`, mapped per layer:
// profile/ncu_layer_times.h) as evidence for the GPU fit: each layer the executor runs one sample of mode "device"
// (a device time itself: calib/gpu_model.h), with the source the model's bench runs have ("bench:MODEL"), so
// leaving the model out leaves them out too. Layers the executor's plan folds are counted in `notes` (`label`
// names the export there).
std::vector<Sample> kernel_time_samples(const analysis::Result& analysis, const std::string& model, int64_t batch,
                                        const std::vector<std::pair<std::string, double>>& layer_seconds,
                                        const std::string& label, std::vector<std::string>& notes);

// Whether a run of `model` is the one --exclude-model names: the same path, file name, or network name
// ("resnet50" for models/resnet50.onnx, as PyTorch's timings name it).
bool excluded_model(const std::string& model, const std::string& exclude);

BenchEvidence read_bench_evidence(const std::vector<std::string>& paths, const std::string& exclude_model = "",
                                  const std::map<std::string, int64_t>& dims = {});

}  // namespace ridge::calib
