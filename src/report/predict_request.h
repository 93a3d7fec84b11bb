#pragma once
// `ridge predict` as one call: a model on a device in each power mode asked for and at each batch of a sweep,
// calibrated where the device carries a calibration.
#include <iostream>
#include <string>
#include <vector>

#include "analysis/request_builder.h"
#include "analysis/run.h"
#include "calib/device_prediction.h"
#include "report/command_output.h"
#include "report/prediction_report.h"
#include "store/record.h"

namespace ridge::report {

struct PredictRequest {
  analysis::Request model;       // the model and its bindings
  std::string device;            // ID[:MODE], host or a device file
  std::string modes;             // power modes: "", "all" or MODE1,MODE2
  std::vector<int64_t> batches;  // a sweep's batch sizes; empty: the model's own binding
  calib::PredictionChoices choices;
};

// One point per batch and mode, batches outer. Throws ridge::Error (one line) for a device or mode that does not
// exist, before any model work, and for the detected host, which has no bandwidth to predict with.
std::vector<PredictionPoint> predict_model(const PredictRequest& request);

// The batch sizes `ridge predict --sweep` predicts: a sweep is batch=v1,v2,... only (empty: none, the model's own
// binding), and one the model's options already fix is refused (ridge::Error, one line each).
std::vector<int64_t> predict_batches(const analysis::Request& model, const std::string& sweep);

// The parameters the store keeps with the prediction of `request`'s model, bound by `model` as given: the device with
// its modes as given, the batch when one point was predicted, and the precision (--precision, else --dtype).
store::Params predict_params(const analysis::ModelOptions& model, const PredictRequest& request,
                             const std::vector<PredictionPoint>& points);

// `ridge predict` printed and kept: `request` (its model made from `model`) predicted at the batches of `sweep`
// (predict_batches), the document of the one point or of the sweep printed on `out` in `format` (-f json: the
// prediction codec's), and every point kept as one result with predict_params.
void predict_and_keep(PredictRequest request, const std::string& sweep, const analysis::ModelOptions& model,
                      const std::string& format, const StoreOptions& store, std::ostream& out = std::cout);

}  // namespace ridge::report
