#pragma once
// Writers of `ridge predict` results: table, CSV, JSON, Markdown; sweeps over batch and modes.
#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "report/analysis_report.h"
#include "roofline/predict.h"

namespace ridge::report {

nlohmann::json prediction_json(const roofline::Prediction& p, bool with_nodes);
void write_prediction(std::ostream& out, const roofline::Prediction& p, Format format);

struct PredictionPoint {
  std::string mode;
  int64_t batch = 1;
  roofline::Prediction prediction;
};
void write_prediction_sweep(std::ostream& out, const std::vector<PredictionPoint>& points, Format format);

}  // namespace ridge::report
