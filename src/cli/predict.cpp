#include <fmt/format.h>
#include <fmt/ostream.h>

#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/common.h"
#include "graph/shape.h"
#include "hw/device_db.h"
#include "onnx/model_reader.h"
#include "report/prediction_report.h"
#include "roofline/calibrate.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct PredictOptions {
  ModelOptions model;
  std::string device, modes, sweep, precision, traffic = "unfused", format = "table";
  bool allow_tf32 = false;
};

roofline::PredictOptions predict_options(const PredictOptions& o, const analysis::Request& request) {
  roofline::PredictOptions p;
  p.precision = o.precision.empty() ? (request.options.activation_dtype ? std::string(graph::dtype_name(*request.options.activation_dtype)) : "fp32")
                                    : o.precision;
  p.allow_tf32 = o.allow_tf32;
  p.traffic = o.traffic == "fused" ? roofline::Traffic::kFused : roofline::Traffic::kUnfused;
  p.batch = request.bindings.batch.value_or(1);
  return p;
}

void add_device_options(CLI::App& app, PredictOptions& o) {
  app.add_option("-d,--device", o.device, "ID[:MODE], host, or path/to/device.yaml[:MODE] (see `ridge devices`)")->required();
  app.add_option("--precision", o.precision, "arithmetic precision: fp32 (default, or --dtype's), fp16, bf16, int8, fp64")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16", "int8", "fp64", "fp8"}));
  app.add_flag("--allow-tf32", o.allow_tf32, "let fp32 convolutions and matrix products use TF32 tensor units");
  app.add_option("--traffic", o.traffic, "memory traffic per node: unfused (default) or fused")
      ->check(CLI::IsMember({"unfused", "fused"}));
}

int run_predict(const PredictOptions& o) {
  auto request = make_request(o.model);
  auto format = report::parse_format(o.format);
  auto [device_id, mode_text] = hw::split_device_and_mode(o.device);
  auto device = hw::find_device(device_id);
  std::vector<std::string> modes;
  if (o.modes == "all") {
    for (const auto& m : device.modes) modes.push_back(m.name);
  } else if (!o.modes.empty()) {
    if (!mode_text.empty()) throw Error("give the mode either in --device ID:MODE or in --modes, not both");
    size_t pos = 0;
    while (pos <= o.modes.size()) {
      auto comma = o.modes.find(',', pos);
      if (comma == std::string::npos) comma = o.modes.size();
      modes.push_back(o.modes.substr(pos, comma - pos));
      pos = comma + 1;
    }
  } else {
    modes.push_back(mode_text);
  }
  std::vector<int64_t> batches{request.bindings.batch.value_or(0)};
  if (!o.sweep.empty()) {
    auto eq = o.sweep.find('=');
    if (eq == std::string::npos || o.sweep.substr(0, eq) != "batch") throw Error("--sweep expects batch=v1,v2,...");
    batches = graph::parse_integer_list(o.sweep.substr(eq + 1), ",", "--sweep batch");
    for (auto b : batches)
      if (b <= 0) throw Error(fmt::format("--sweep batch: {} is not a positive integer", b));
  }
  auto pristine = onnx::load_model(request.model_path);
  std::vector<report::PredictionPoint> points;
  for (auto batch : batches) {
    auto point_request = request;
    if (batch > 0) point_request.bindings.batch = batch;
    auto analysis = analysis::rerun(pristine, point_request);
    for (const auto& mode : modes) {
      auto roofline = hw::roofline_for(device, hw::resolve_mode(device, mode));
      auto prediction = roofline::predict(analysis.cost, roofline, predict_options(o, point_request));
      points.push_back({roofline.mode, point_request.bindings.batch.value_or(1), std::move(prediction)});
    }
  }
  if (points.size() == 1) report::write_prediction(std::cout, points[0].prediction, format);
  else report::write_prediction_sweep(std::cout, points, format);
  return 0;
}

struct CalibrateOptions {
  PredictOptions predict;
  std::string measured, output;
};

int run_calibrate(const CalibrateOptions& o) {
  auto request = make_request(o.predict.model);
  auto [device_id, mode_text] = hw::split_device_and_mode(o.predict.device);
  auto device = hw::find_device(device_id);
  if (device.file == "(detected)") throw Error("calibrate needs a device file: the detected host has no measured bandwidth yet");
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
  for (const auto& [family, e] : fit.calibration.efficiency) fmt::print(std::cout, "efficiency {:<14} {:.3f}\n", family, e);
  for (const auto& family : fit.dropped) fmt::print(std::cout, "efficiency {:<14} not fitted (no positive slope)\n", family);
  fmt::print(std::cout, "wrote {}: use it with --device {}\n", output, output);
  return 0;
}

}  // namespace

Command add_predict_command(CLI::App& parent) {
  auto o = std::make_shared<PredictOptions>();
  auto* app = parent.add_subcommand("predict", "roofline prediction of each node's time and the model's latency on a device");
  app->footer(
      "time = max(FLOPs / compute ceiling, bytes / DRAM bandwidth) + per-op overhead, per node.\n"
      "Examples:\n"
      "  ridge predict models/resnet50.onnx --device h100-sxm --dtype bf16\n"
      "  ridge predict models/resnet50.onnx --device jetson-agx-orin-64gb --modes all --sweep batch=1,8\n"
      "  ridge predict models/bert_base.onnx --dim seq=128 --device a100-sxm-80gb --training --format json");
  add_model_options(*app, o->model, true);
  add_device_options(*app, *o);
  app->add_option("--modes", o->modes, "power modes to sweep: all, or MODE1,MODE2,...");
  app->add_option("--sweep", o->sweep, "batch sizes to sweep: batch=1,2,4,8");
  app->add_option("-f,--format", o->format, "table (default), csv, json, md")->check(CLI::IsMember({"table", "csv", "json", "md"}));
  return {app, [o] { return run_predict(*o); }};
}

Command add_calibrate_command(CLI::App& parent) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* app = parent.add_subcommand("calibrate", "fit per-op-family efficiency and per-op overhead from measured node times");
  app->footer(
      "The measurements are a CSV with a node column (node or name) and a time column (seconds,\n"
      "time_s or mean_ms). Writes a copy of the device file with a calibration section.\n"
      "Example:\n"
      "  ridge calibrate models/resnet50.onnx --device t4 --measured node_times.csv -o t4-calibrated.yaml");
  add_model_options(*app, o->predict.model, false);
  add_device_options(*app, o->predict);
  app->add_option("--measured", o->measured, "CSV of measured per-node times")->required();
  app->add_option("-o,--output", o->output, "device file to write (default ID.calibrated.yaml)");
  return {app, [o] { return run_calibrate(*o); }};
}

}  // namespace ridge::cli
