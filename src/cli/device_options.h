#pragma once
// Options shared by the commands that place a model on a device (predict, calibrate).
#include <CLI/CLI.hpp>
#include <string>

#include "calib/device_prediction.h"
#include "cli/common.h"

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

// --exec-mode and --threads, for the commands that predict with a calibrated device.
void add_calibrated_options(CLI::App& app, DeviceOptions& options);

}  // namespace ridge::cli
