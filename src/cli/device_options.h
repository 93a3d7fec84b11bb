#pragma once
// Options shared by the commands that place a model on a device (predict, calibrate).
#include <CLI/CLI.hpp>
#include <string>

#include "analysis/run.h"
#include "cli/common.h"
#include "roofline/predict.h"

namespace ridge::cli {

struct DeviceOptions {
  ModelOptions model;
  std::string device, precision, traffic = "unfused";
  bool allow_tf32 = false;
};

void add_device_options(CLI::App& app, DeviceOptions& options);
roofline::PredictOptions predict_options(const DeviceOptions& options, const analysis::Request& request);

}  // namespace ridge::cli
