#pragma once
// Options shared by the commands that place a model on a device (predict, calibrate).
#include <CLI/CLI.hpp>
#include <string>

#include "analysis/run.h"
#include "calib/device_prediction.h"
#include "cli/common.h"
#include "hw/device.h"
#include "hw/device_db.h"
#include "hw/roofline.h"
#include "roofline/predict.h"

namespace ridge::cli {

struct DeviceOptions {
  ModelOptions model;
  std::string device, precision, traffic = "unfused";
  bool allow_tf32 = false;
  // The executor conditions a shape-aware calibration predicts (empty / 0: not given).
  std::string exec_mode;
  int threads = 0;

  calib::PredictionChoices choices() const { return {precision, traffic, allow_tf32, exec_mode, threads}; }
};

// -d/--device (required), then add_prediction_choice_options.
void add_device_options(CLI::App& app, DeviceOptions& options);
// --precision, --allow-tf32 and --traffic: how a roofline prediction counts the model (PredictionChoices), the same
// for every command that predicts (predict, calibrate, tune, compare, report, plot roofline / energy-roofline).
void add_prediction_choice_options(CLI::App& app, DeviceOptions& options);
roofline::PredictOptions predict_options(const DeviceOptions& options, const analysis::Request& request);

// --exec-mode and --threads, for the commands that predict with a calibrated device.
void add_calibrated_options(CLI::App& app, DeviceOptions& options);

// Devices with the rooflines of the power modes asked for (hw::resolve_device_modes).
using hw::DeviceModes;
using hw::resolve_device_modes;

// calib::predict_on_device with the command's options: the roofline prediction, then the device's shape-aware
// calibration's for --exec-mode and --threads (refused without one: they would change nothing).
roofline::Prediction predict_on_device(const analysis::Result& analysis, const hw::Device& device,
                                       const hw::Roofline& roofline, const DeviceOptions& options,
                                       const analysis::Request& request);

}  // namespace ridge::cli
