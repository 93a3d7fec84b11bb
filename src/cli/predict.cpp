#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "cli/command.h"
#include "cli/device_options.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "hw/device_db.h"
#include "onnx/model_reader.h"
#include "report/prediction_report.h"
#include "report/result_codec.h"
#include "roofline/prediction_codec.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct PredictOptions {
  DeviceOptions device;
  StoreOptions store;
  std::string modes, sweep, format = "table";
};

int run_predict(const PredictOptions& o) {
  auto request = make_request(o.device.model);
  // The device and its modes are resolved (and bad ones rejected) before any model work.
  auto resolved = resolve_device_modes({o.device.device}, o.modes);
  const auto& device = resolved.front().device;
  if (device.file == "(detected)")
    throw Error(
        "device 'host' has no DRAM bandwidth or measured peaks yet: measure this machine with `ridge ert --profile "
        "host.yaml`, then predict with --device host.yaml");
  std::vector<int64_t> batches{request.bindings.batch.value_or(0)};
  if (!o.sweep.empty()) {
    auto [key, values] = parse_sweep(o.sweep);
    if (key != "batch") throw Error("predict sweeps batch sizes only: --sweep batch=v1,v2,...");
    check_sweep_conflicts(request, key);
    batches = values;
  }
  const auto& rooflines = resolved.front().rooflines;
  auto pristine = onnx::load_model(request.model_path);
  std::vector<report::PredictionPoint> points;
  for (auto batch : batches) {
    auto point_request = request;
    if (batch > 0) point_request.bindings.batch = batch;
    auto analysis = analysis::rerun(pristine, point_request);
    for (const auto& roofline : rooflines) {
      auto prediction = predict_on_device(analysis, device, roofline, o.device, point_request);
      points.push_back({roofline.mode, point_request.bindings.batch.value_or(1), std::move(prediction)});
    }
  }
  auto doc = points.size() == 1 ? report::prediction_document(points[0].prediction)
                                : report::prediction_sweep_document(points);
  report::TypedResult value{.kind = "predict"};
  for (const auto& point : points) value.predictions.push_back(point.prediction);
  emit(doc, o.format, [&] { return roofline::encode_predictions(value.predictions); });
  auto params = params_of(o.device.model, points.size() == 1 ? points[0].batch : 0);
  params.device = o.device.device + (o.modes.empty() ? "" : ":" + o.modes);
  params.precision = o.device.precision.empty() ? o.device.model.dtype : o.device.precision;
  params.mode = o.device.exec_mode;
  if (o.device.threads > 0) params.threads = o.device.threads;
  keep_result(o.store, doc, params, value);
  return 0;
}

}  // namespace

Command add_predict_command(CLI::App& parent) {
  auto o = std::make_shared<PredictOptions>();
  auto* app =
      parent.add_subcommand("predict", "roofline prediction of each node's time and the model's latency on a device");
  app->footer(
      "time = max(FLOPs / compute ceiling, bytes / DRAM bandwidth) + per-op overhead, per node.\n"
      "Examples:\n"
      "  ridge predict models/resnet50.onnx --device h100-sxm --dtype bf16\n"
      "  ridge predict models/resnet50.onnx --device jetson-agx-orin-64gb --modes all --sweep batch=1,8\n"
      "  ridge predict models/bert_base.onnx --dim seq=128 --device a100-sxm-80gb --training --format json\n"
      "With a device calibrated by `ridge calibrate --sample`, each node's time is the fitted model's estimate\n"
      "for --exec-mode and --threads, and the output states the calibration's validation error.");
  add_model_options(*app, o->device.model, true);
  add_device_options(*app, o->device);
  add_calibrated_options(*app, o->device);
  app->add_option("--modes", o->modes, "power modes to sweep: all, or MODE1,MODE2,...");
  app->add_option("--sweep", o->sweep, "batch sizes to sweep: batch=1,2,4,8");
  add_format_option(*app, o->format);
  add_store_options(*app, o->store);
  return {app, [o] { return run_predict(*o); }};
}

}  // namespace ridge::cli
