#pragma once
// `ridge tune` as one call: every power mode of a device (named, and the custom modes its clock tables allow)
// predicted for a model at one or more batch sizes, the best under an objective and limits, the commands that set
// it, and, asked to, the best mode set on this Jetson.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/request_builder.h"
#include "analysis/run.h"
#include "calib/device_prediction.h"
#include "report/command_output.h"
#include "report/tune_report.h"
#include "roofline/tune.h"
#include "store/record.h"

namespace ridge::report {

struct TuneRequest {
  analysis::Request model;           // the model (its batch is replaced by each of `batches`)
  std::vector<int64_t> batches;      // batch sizes compared (energy per sample decides)
  std::string device;                // ID or a device file, without a mode: every mode is searched
  calib::PredictionChoices choices;  // precision, traffic, TF32; a calibrated device's mode and threads
  roofline::TuneOptions options;
  bool apply = false;  // set the best mode on this Jetson (root)
};

// The batch sizes `ridge tune --sweep` compares: without a sweep, the model's batch (1 where it binds none); a sweep
// is batch=v1,v2,... only, and one the model's options already fix is refused (ridge::Error, one line each).
std::vector<int64_t> tune_batches(const analysis::Request& model, const std::string& sweep);

// Throws ridge::Error (one line) for a device given with a mode, the undetected host, --apply off a Jetson (nothing
// changed), and a model that does not analyse.
Tuning tune_model(const TuneRequest& request);

// `ridge tune`'s objective by name (energy, latency, edp) and its limits as given: the latency in ms, the average power
// in W (0: no limit). A bad objective throws ridge::Error.
void set_tune_limits(roofline::TuneOptions& options, const std::string& objective, double latency_max_ms,
                     double power_max_w);

// The parameters the store keeps with `tuning`: the model's as given (`model`), the batch when one was compared, the
// device as found and the precision predicted.
store::Params tune_params(const analysis::ModelOptions& model, const TuneRequest& request, const Tuning& tuning);

// `ridge tune` printed and kept: tune_model, its document printed on `out` in `format` (-f json: the tuning's codec,
// which the store and `results import` read back), and the tuning kept with tune_params of `model` (as given).
void tune_and_keep(const TuneRequest& request, const analysis::ModelOptions& model, const std::string& format,
                   const StoreOptions& store, std::ostream& out = std::cout);

}  // namespace ridge::report
