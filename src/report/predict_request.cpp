#include "report/predict_request.h"

#include "analysis/request_builder.h"
#include "hw/device_db.h"
#include "onnx/model_reader.h"
#include "report/result_codec.h"
#include "report/result_record.h"
#include "roofline/prediction_codec.h"
#include "util/error.h"

namespace ridge::report {

std::vector<int64_t> predict_batches(const analysis::Request& model, const std::string& sweep) {
  if (sweep.empty()) return {};
  auto [key, values] = analysis::parse_sweep(sweep);
  if (key != "batch") throw Error("predict sweeps batch sizes only: --sweep batch=v1,v2,...");
  analysis::check_sweep_conflicts(model, key);
  return values;
}

store::Params predict_params(const analysis::ModelOptions& model, const PredictRequest& request,
                             const std::vector<PredictionPoint>& points) {
  auto params = prediction_params(model, request.device + (request.modes.empty() ? "" : ":" + request.modes),
                                  request.choices, points.size() == 1 ? points[0].batch : 0);
  params.precision = request.choices.precision.empty() ? model.dtype : request.choices.precision;
  return params;
}

std::vector<PredictionPoint> predict_model(const PredictRequest& request) {
  // The device and its modes are resolved (and bad ones rejected) before any model work.
  auto resolved = hw::resolve_device_modes({request.device}, request.modes);
  const auto& device = resolved.front().device;
  if (device.file == "(detected)")
    throw Error(
        "device 'host' has no DRAM bandwidth or measured peaks yet: measure this machine with `ridge ert --profile "
        "host.yaml`, then predict with --device host.yaml");
  auto batches = request.batches;
  if (batches.empty()) batches.push_back(request.model.bindings.batch.value_or(0));
  auto pristine = onnx::load_model(request.model.model_path);
  std::vector<PredictionPoint> points;
  for (auto batch : batches) {
    auto point_request = request.model;
    if (batch > 0) point_request.bindings.batch = batch;
    auto analysis = analysis::rerun(pristine, point_request);
    for (const auto& roofline : resolved.front().rooflines) {
      auto prediction =
          calib::predict_on_device(analysis, device, roofline,
                                   calib::prediction_options(request.choices, point_request), point_request.model_path);
      points.push_back({roofline.mode, point_request.bindings.batch.value_or(1), std::move(prediction)});
    }
  }
  return points;
}

void predict_and_keep(PredictRequest request, const std::string& sweep, const analysis::ModelOptions& model,
                      const std::string& format, const StoreOptions& store, std::ostream& out) {
  request.batches = predict_batches(request.model, sweep);
  auto points = predict_model(request);
  auto doc = points.size() == 1 ? prediction_document(points[0].prediction) : prediction_sweep_document(points);
  TypedResult value{.kind = "predict"};
  for (const auto& point : points) value.predictions.push_back(point.prediction);
  emit(
      doc, format, [&] { return roofline::encode_predictions(value.predictions); }, out);
  keep_result(store, doc, predict_params(model, request, points), value);
}

}  // namespace ridge::report
