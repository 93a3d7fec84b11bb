#include "report/tune_request.h"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "analysis/request_builder.h"
#include "hw/device_db.h"
#include "hw/mode_control.h"
#include "onnx/model_reader.h"
#include "report/prediction_report.h"
#include "report/result_codec.h"
#include "report/result_record.h"
#include "util/error.h"

namespace ridge::report {

std::vector<int64_t> tune_batches(const analysis::Request& model, const std::string& sweep) {
  if (sweep.empty()) return {model.bindings.batch.value_or(1)};
  auto [key, values] = analysis::parse_sweep(sweep);
  if (key != "batch") throw Error("tune sweeps batch sizes only: --sweep batch=v1,v2,...");
  analysis::check_sweep_conflicts(model, key);
  return values;
}

void set_tune_limits(roofline::TuneOptions& options, const std::string& objective, double latency_max_ms,
                     double power_max_w) {
  options.objective = roofline::parse_objective(objective);
  if (latency_max_ms > 0) options.latency_max_s = latency_max_ms / 1e3;
  if (power_max_w > 0) options.power_max_w = power_max_w;
}

store::Params tune_params(const analysis::ModelOptions& model, const TuneRequest& request, const Tuning& tuning) {
  auto params = model_params(model, request.batches.size() == 1 ? request.batches.front() : 0);
  params.device = tuning.device_id;
  params.precision = tuning.context.precision;
  return params;
}

Tuning tune_model(const TuneRequest& o) {
  const auto& request = o.model;
  auto [id, mode_text] = hw::split_device_and_mode(o.device);
  if (!mode_text.empty())
    throw Error(fmt::format("tune searches every power mode: give --device {} without ':{}'", id, mode_text));
  auto device = hw::find_device(id);
  if (device.file == "(detected)")
    throw Error(
        "device 'host' has no DRAM bandwidth or measured peaks yet: measure it with `ridge ert --profile "
        "host.yaml`, then tune with --device host.yaml");
  if (o.apply) {
    if (device.kind != "soc")
      throw Error(fmt::format("--apply refused: '{}' is not a Jetson module; nothing was changed", device.id));
    if (auto why = hw::not_a_jetson_reason(); !why.empty())
      throw Error("--apply refused: " + why + "; nothing was changed");
  }
  const auto& batches = o.batches;

  // One analysis per batch size, reused by every mode: only the ceilings change between modes.
  auto pristine = onnx::load_model(request.model_path);
  std::map<int64_t, std::pair<analysis::Request, analysis::Result>> analyses;
  std::string calibration;
  auto predict = [&](const hw::Roofline& roofline, int64_t batch) {
    auto it = analyses.find(batch);
    if (it == analyses.end()) {
      auto point = request;
      point.bindings.batch = batch;
      auto analysis = analysis::rerun(pristine, point);
      it = analyses.emplace(batch, std::pair{point, std::move(analysis)}).first;
    }
    const auto& [point, analysis] = it->second;
    auto p = calib::predict_on_device(analysis, device, roofline, calib::prediction_options(o.choices, point),
                                      point.model_path);
    if (calibration.empty()) calibration = calibration_text(p);
    return p;
  };
  auto result = roofline::tune(device, batches, predict, o.options);

  TuneContext context;
  context.model = request.model_path;
  context.precision = calib::prediction_options(o.choices, request).roofline.precision;
  context.batches = batches;
  context.options = o.options;
  context.calibration = calibration;
  auto set_best = roofline::mode_commands(device, result, result.modes.at(*result.best));
  context.commands = set_best.commands;
  context.command_notes = set_best.notes;
  if (o.apply) context.applied = hw::apply_mode_steps(set_best.steps);
  return Tuning{device.id, device.name, std::move(result), std::move(context)};
}

void tune_and_keep(const TuneRequest& request, const analysis::ModelOptions& model, const std::string& format,
                   const StoreOptions& store, std::ostream& out) {
  TypedResult value{.kind = "tune", .tuning = tune_model(request)};
  auto doc = tune_document(*value.tuning);
  emit(
      doc, format, [&] { return encode_tuning(*value.tuning); }, out);
  keep_result(store, doc, tune_params(model, request, *value.tuning), value);
}

}  // namespace ridge::report
