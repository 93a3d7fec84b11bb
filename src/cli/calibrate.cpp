#include "roofline/calibrate.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/device_options.h"
#include "hw/device_db.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct CalibrateOptions {
  DeviceOptions predict;
  std::string measured, output;
};

int run_calibrate(const CalibrateOptions& o) {
  auto request = make_request(o.predict.model);
  auto [device_id, mode_text] = hw::split_device_and_mode(o.predict.device);
  auto device = hw::find_device(device_id);
  if (device.file == "(detected)")
    throw Error("calibrate needs a device file: the detected host has no measured bandwidth yet");
  device.calibration.reset();  // fit against the raw roofline
  auto analysis = analysis::run(request);
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, mode_text));
  auto prediction = roofline::predict(analysis.cost, roofline, predict_options(o.predict, request));
  auto measured = roofline::read_node_times(o.measured);
  auto fit = roofline::fit_calibration(prediction, measured, o.measured);
  auto output = o.output.empty() ? device.id + ".calibrated.yaml" : o.output;
  std::ofstream(output) << roofline::calibrated_device_yaml(device.file, fit.calibration);
  fmt::print(std::cout, "calibrated {} from {} nodes of {} ({} measured names matched no node)\n", device.id,
             fit.calibration.nodes, o.measured, fit.unmatched);
  fmt::print(std::cout, "overhead per op: {:.2f} us\n", fit.calibration.overhead_s * 1e6);
  for (const auto& [family, e] : fit.calibration.efficiency)
    fmt::print(std::cout, "efficiency {:<14} {:.3f}\n", family, e);
  for (const auto& family : fit.dropped)
    fmt::print(std::cout, "efficiency {:<14} not fitted (no positive slope)\n", family);
  fmt::print(std::cout, "wrote {}: use it with --device {}\n", output, output);
  return 0;
}

}  // namespace

Command add_calibrate_command(CLI::App& parent) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* app =
      parent.add_subcommand("calibrate", "fit per-op-family efficiency and per-op overhead from measured node times");
  app->footer(
      "The measurements are a CSV with a node column (node or name) and a time column whose name\n"
      "carries its unit (seconds, time_s, mean_ms, median_us, ...). Writes a copy of the device\n"
      "file with a calibration section.\n"
      "Example:\n"
      "  ridge calibrate models/resnet50.onnx --device t4 --measured node_times.csv -o t4-calibrated.yaml");
  add_model_options(*app, o->predict.model, false);
  add_device_options(*app, o->predict);
  app->add_option("--measured", o->measured, "CSV of measured per-node times")->required();
  app->add_option("-o,--output", o->output, "device file to write (default ID.calibrated.yaml)");
  return {app, [o] { return run_calibrate(*o); }};
}

}  // namespace ridge::cli
