#include "roofline/calibrate.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/device_options.h"
#include "cli/output_options.h"
#include "hw/device_db.h"
#include "report/format.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct CalibrateOptions {
  DeviceOptions predict;
  std::string measured, output, format = "table";
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
  roofline::RunSelection run;
  auto measured = roofline::read_node_times(o.measured, &run);
  auto fit = roofline::fit_calibration(prediction, measured, o.measured);
  auto output = o.output.empty() ? device.id + ".calibrated.yaml" : o.output;
  {
    std::ofstream file(output);
    file << roofline::calibrated_device_yaml(device.file, fit.calibration);
    if (!file.flush()) throw Error(fmt::format("cannot write '{}'", output));
  }
  report::Document doc;
  doc.command = "calibrate";
  doc.subject = device.id;
  report::add_ridge_version(doc);
  doc.field("device", "device", device.id, device.id);
  doc.field("measured", "measured", o.measured, o.measured);
  if (run.runs > 1)
    doc.notes.push_back(fmt::format("{} holds {} runs; calibrated on the last: {}", o.measured, run.runs, run.chosen));
  doc.field("run", "", "", run.chosen, report::kJson);
  doc.field("nodes", "nodes fitted", std::to_string(fit.calibration.nodes), fit.calibration.nodes);
  doc.field("unmatched", "measured names that are no node of the model", std::to_string(fit.unmatched), fit.unmatched);
  doc.field("without_work", "nodes without work (matched, not fitted)", std::to_string(fit.without_work),
            fit.without_work);
  doc.field("overhead_s", "overhead per op", report::duration(fit.calibration.overhead_s), fit.calibration.overhead_s);
  auto& t = doc.table("efficiency", "efficiency per op family:");
  t.column({.key = "family"}).column({.key = "efficiency", .style = report::Style::kFixed, .decimals = 3});
  for (const auto& [family, e] : fit.calibration.efficiency) t.add({family, e});
  for (const auto& family : fit.dropped) t.add({family, report::Value{}});
  if (!fit.dropped.empty()) t.footer.push_back("empty: not fitted (no positive slope)");
  doc.field("output", "wrote", fmt::format("{}: use it with --device {}", output, output), output).at_end = true;
  emit(doc, o.format);
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
  add_format_option(*app, o->format);
  return {app, [o] { return run_calibrate(*o); }};
}

}  // namespace ridge::cli
