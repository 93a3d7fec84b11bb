#pragma once
// Measured and predicted results read from documents in their JSON form (`ridge bench -f json`,
// `ridge predict -f json` with or without --sweep, or stored results decoded by report/document_codec)
// into the plain inputs of the result figures: sweeps, breakdowns, accuracy, algorithms, modes.
#include <cstdint>
#include <string>
#include <vector>

#include "report/figure/figure.h"
#include "store/record.h"
#include "store/store.h"

namespace ridge::report::figure {

struct LayerTime {
  std::string name, op, algorithm;  // algorithm: the convolution algorithm a measured node ran
  double time_s = 0;                // 0: not measured / not predicted
  double flops = 0;                 // measured: the run's predicted_flops; predicted: flops
};

// One measured point of `ridge bench` (one entry of runs[]).
struct MeasuredRun {
  std::string source, model;
  std::string hardware;  // what measured: the GPU's name for a GPU run, else the CPU's; empty: not recorded
  std::string mode, precision, memory_format, conv_algo, input_size;
  int64_t batch = 0;
  bool training = false;
  double mean_ms = 0, std_ms = 0, min_ms = 0, max_ms = 0, throughput = 0;
  double flops = 0;  // the FLOPs of its nodes (predicted_flops summed); 0 when it has none
  std::vector<LayerTime> layers;
};

// One prediction: a `ridge predict` document (with its layers) or one point of a predict sweep.
struct PredictedRun {
  std::string source, model, device;
  std::string device_name;  // the device file's name ("NVIDIA H200 SXM 141GB")
  std::string power_mode, precision;
  int64_t batch = 0;  // from throughput x latency (predict documents do not name it)
  double time_s = 0, throughput = 0;
  double flops = 0;  // the layers' FLOPs summed; 0 for a sweep point
  bool calibrated = false;
  std::vector<LayerTime> layers;  // empty for a sweep point
};

struct ResultSet {
  std::vector<MeasuredRun> measured;
  std::vector<PredictedRun> predicted;
  std::vector<std::string> notes;  // what was read but cannot be drawn
};

// Adds the runs of one document; `source` names it (a file, "result 12"). Throws ridge::Error for a
// document that is neither a bench nor a predict output.
void add_document(ResultSet& set, const Json& doc, const std::string& source);
ResultSet read_results(const std::vector<Json>& documents);
// Adds stored bench and predict results (named "result ID"); failed results and those of other
// commands are counted in the notes. A stored prediction takes its model from the record.
void add_records(ResultSet& set, const std::vector<store::Record>& records);

// Keeps the runs `filter` selects: model (a part of its path), batch, executor mode and precision for
// measured runs; model, device, batch and precision for predictions (whose mode is a power mode).
// Counts what it dropped in the notes.
void keep_selected(ResultSet& set, const store::Filter& filter);

// Whether a prediction for the device named `device_name` describes the hardware a run measured on (the GPU's name
// for a GPU run, else the CPU's): every word of the measured name, without parentheses, "cuda:N" and the words every
// CPU name has, is in the device's ("NVIDIA H200" in "NVIDIA H200 SXM 141GB"; a host file from `ridge ert --profile`
// carries the CPU's own name).
bool same_hardware(const std::string& measured_on, const std::string& device_name);

// The first prediction with per-layer times (nullptr when none has them).
const PredictedRun* first_with_layers(const std::vector<PredictedRun>& predicted);

// A short name of what distinguishes `run` from the others of `runs` (mode, precision, algorithm,
// memory format, input size, batch, training): "optimized bf16"; "measured" when nothing does.
// `except` names the dimensions left out ("batch", "input", "mode", "conv_algo").
std::string run_label(const MeasuredRun& run, const std::vector<MeasuredRun>& runs,
                      const std::vector<std::string>& except = {});
// "t4 default fp32" style name of a prediction.
std::string prediction_label(const PredictedRun& run);

// A run's input size without its batch dimension ("3x224x224" of "8x3x224x224"; "224" stays).
std::string input_shape(const MeasuredRun& run);

// The leading integer of an input size ("224", "1x3x224x224" gives the last dimension); 0 when none.
double input_extent(const std::string& input_size);

}  // namespace ridge::report::figure
