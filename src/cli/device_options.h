#pragma once
// Options shared by the commands that place a model on a device (predict, calibrate).
#include <CLI/CLI.hpp>
#include <string>

#include "analysis/run.h"
#include "cli/common.h"
#include "hw/device.h"
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
};

void add_device_options(CLI::App& app, DeviceOptions& options);
roofline::PredictOptions predict_options(const DeviceOptions& options, const analysis::Request& request);

// --exec-mode and --threads, for the commands that predict with a calibrated device.
void add_calibrated_options(CLI::App& app, DeviceOptions& options);

// The roofline prediction, then, when the device file carries a shape-aware calibration, that
// model's prediction for the executor mode and thread count (eager and the machine's logical CPUs
// unless given). --exec-mode or --threads without such a calibration is refused: they would
// change nothing.
// Each of `specs` (ID[:MODE] or FILE.yaml[:MODE]) with the rooflines of its power modes: every mode
// with `modes` "all", those listed ("15W,MAXN"), else the ID:MODE suffix or the default mode. Throws
// ridge::Error for an unknown device or mode, or a mode given both ways.
struct DeviceModes {
  hw::Device device;
  std::vector<hw::Roofline> rooflines;
};
std::vector<DeviceModes> resolve_device_modes(const std::vector<std::string>& specs, const std::string& modes);

// "a,b,c" as {"a", "b", "c"}.
std::vector<std::string> split_commas(const std::string& text);

roofline::Prediction predict_on_device(const analysis::Result& analysis, const hw::Device& device,
                                       const hw::Roofline& roofline, const DeviceOptions& options,
                                       const analysis::Request& request);

}  // namespace ridge::cli
