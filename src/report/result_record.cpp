#include "report/result_record.h"

#include "report/document_codec.h"

namespace ridge::report {

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
