#include "report/result_record.h"

#include "report/document_codec.h"

namespace ridge::report {

store::Params model_params(const analysis::ModelOptions& model, int64_t bound_batch) {
  store::Params p;
  p.model = model.model;
  if (bound_batch > 0)
    p.batch = bound_batch;
  else if (model.batch > 0)
    p.batch = model.batch;
  p.precision = model.dtype;
  p.training = model.training;
  if (model.training) p.optimizer = model.optimizer;
  return p;
}

store::Params prediction_params(const analysis::ModelOptions& model, const std::string& device,
                                const calib::PredictionChoices& choices, int64_t bound_batch) {
  auto p = model_params(model, bound_batch);
  p.device = device;
  p.mode = choices.exec_mode;
  if (choices.threads > 0) p.threads = choices.threads;
  return p;
}

namespace {

std::string calibration_of(const roofline::Prediction& p) {
  return p.calibration_model.empty() ? p.calibration_source : p.calibration_model;
}

}  // namespace

store::Record result_record(const Document& doc, store::Params params, const TypedResult& value,
                            store::Environment environment, store::Cell cell) {
  store::Record record;
  record.command = doc.command;
  record.subject = doc.subject;
  record.params = std::move(params);
  record.environment = std::move(environment);
  record.cell = std::move(cell);
  record.document = encode_document(doc);
  record.summary = headline(value);
  for (const auto& run : value.runs) {
    record.environment.random_weights = run.random_weights;
    const auto& env = run.environment;  // the libraries that measured
    if (!env.torch_version.empty()) record.environment.versions["torch"] = env.torch_version;
    if (!env.backend_info.empty()) record.environment.versions["backend"] = env.backend_info;
    if (!record.params.threads && env.threads > 0) record.params.threads = env.threads;
  }
  for (const auto& p : value.predictions) record.environment.calibration = calibration_of(p);
  if (value.comparison) {
    record.environment.random_weights = value.comparison->measured.random_weights;
    record.environment.calibration = calibration_of(value.comparison->prediction);
  }
  record.result = encode_typed(value);
  return record;
}

}  // namespace ridge::report
