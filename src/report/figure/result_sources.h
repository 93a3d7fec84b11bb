#pragma once
// The inputs of the result figures (sweeps, breakdowns, accuracy, algorithms, modes): bench runs and predictions as
// their codecs decode them, from `ridge bench|predict -f json` files, from the typed results the store keeps, or
// measured in process. Nothing here parses JSON itself.
#include <cstdint>
#include <string>
#include <vector>

#include "exec/measurement.h"
#include "report/figure/figure.h"
#include "roofline/predict.h"
#include "store/record.h"
#include "store/store.h"

namespace ridge::report::figure {

struct LayerTime {
  std::string name, op, algorithm;  // algorithm: the convolution algorithm a measured node ran
  double time_s = 0;                // 0: not measured / not predicted
  double flops = 0;                 // measured: the run's predicted_flops; predicted: flops
};

// One measured point: a bench run as the bench codec decoded it (its own environment included), and where it was
// read from ("'bench.json'", "result 12").
struct Measured {
  std::string source;
  exec::BenchResult run;
};

// One prediction as the prediction codec decoded it (a sweep gives one per point), and where it was read from.
struct Predicted {
  std::string source;
  roofline::Prediction prediction;
};

struct ResultSet {
  std::vector<Measured> measured;
  std::vector<Predicted> predicted;
  std::vector<std::string> notes;  // what was read but cannot be drawn
};

// Adds the results of one JSON file (`ridge bench -f json` or `ridge predict -f json`), decoded by its codec;
// `source` names it. Throws ridge::Error (one line, from the codec) for anything else or a malformed file.
void add_document(ResultSet& set, const Json& doc, const std::string& source);
ResultSet read_results(const std::vector<Json>& documents);
// Adds stored bench and predict results (named "result ID") from their typed results; failed results, those of
// other commands and those stored before ridge kept typed results are counted in the notes.
void add_records(ResultSet& set, const std::vector<store::Record>& records);
// Runs measured in process (`source` names them).
void add_runs(ResultSet& set, const std::vector<exec::BenchResult>& runs, const std::string& source);

// The hardware a run measured on: the GPU for a GPU run, else the CPU; empty when the run does not record it.
std::string hardware(const exec::BenchResult& run);
// Per-layer times of a run (mean_ms) and of a prediction (time_s; 0 for nodes not predicted).
std::vector<LayerTime> layers(const exec::BenchResult& run);
std::vector<LayerTime> layers(const roofline::Prediction& prediction);
// The FLOPs of a run's nodes (their predicted_flops) and of a prediction's nodes; 0 when a run has none.
double work_flops(const exec::BenchResult& run);
double work_flops(const roofline::Prediction& prediction);

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
const Predicted* first_with_layers(const std::vector<Predicted>& predicted);

// A short name of what distinguishes `run` from the others of `runs` (mode, precision, algorithm,
// memory format, input size, batch, training): "optimized bf16"; "measured" when nothing does.
// `except` names the dimensions left out ("batch", "input", "mode", "conv_algo").
std::string run_label(const exec::BenchResult& run, const std::vector<Measured>& runs,
                      const std::vector<std::string>& except = {});
// "t4 default fp32" style name of a prediction.
std::string prediction_label(const roofline::Prediction& prediction);

// A run's input size without its batch dimension ("3x224x224" of "8x3x224x224"; "224" stays).
std::string input_shape(const exec::BenchResult& run);

// The leading integer of an input size ("224", "1x3x224x224" gives the last dimension); 0 when none.
double input_extent(const std::string& input_size);

}  // namespace ridge::report::figure
