#pragma once
// `ridge predict` as one call: a model on a device in each power mode asked for and at each batch of a sweep,
// calibrated where the device carries a calibration.
#include <string>
#include <vector>

#include "analysis/run.h"
#include "calib/device_prediction.h"
#include "report/prediction_report.h"

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

}  // namespace ridge::report
