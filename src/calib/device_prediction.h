#pragma once
// The prediction a device gives a model: its roofline's, then, when the device file carries a shape-aware
// calibration, that model's for the executor mode and thread count, with the energy from the calibrated times.
// Every command that predicts (predict, compare, plot, report, tune) predicts through this.
#include <string>

#include "analysis/run.h"
#include "hw/device.h"
#include "hw/roofline.h"
#include "roofline/predict.h"

namespace ridge::calib {

struct DevicePredictionOptions {
  roofline::PredictOptions roofline;
  std::string exec_mode;  // "": eager; optimized (CPU), cuda-graph (GPU)
  int threads = 0;        // 0: the machine's logical CPUs (a CPU calibration); none for a GPU's
};

// What a command asks of a prediction as its options say it, before the model is bound.
struct PredictionChoices {
  std::string precision;            // "": the model's activation dtype (--dtype), else fp32
  std::string traffic = "unfused";  // or "fused"
  bool allow_tf32 = false;
  std::string exec_mode;  // "" / 0: not given (see DevicePredictionOptions)
  int threads = 0;
};
// The options for a model bound by `request` (its batch, its activation dtype as the default precision).
DevicePredictionOptions prediction_options(const PredictionChoices& choices, const analysis::Request& request);

// Throws ridge::Error for an executor mode or thread count the device's calibration cannot predict (or given to a
// device without one: they would change nothing), and for a precision it was not fitted for.
roofline::Prediction predict_on_device(const analysis::Result& analysis, const hw::Device& device,
                                       const hw::Roofline& roofline, const DevicePredictionOptions& options,
                                       const std::string& model_path);

}  // namespace ridge::calib
