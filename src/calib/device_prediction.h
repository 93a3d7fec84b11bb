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

// Throws ridge::Error for an executor mode or thread count the device's calibration cannot predict (or given to a
// device without one: they would change nothing), and for a precision it was not fitted for.
roofline::Prediction predict_on_device(const analysis::Result& analysis, const hw::Device& device,
                                       const hw::Roofline& roofline, const DevicePredictionOptions& options,
                                       const std::string& model_path);

}  // namespace ridge::calib
