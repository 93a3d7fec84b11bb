#pragma once
// `ridge predict` results as documents: one prediction per node, or a sweep over batch and modes.
#include <vector>

#include "report/document.h"
#include "roofline/predict.h"

namespace ridge::report {

Document prediction_document(const roofline::Prediction& p);

struct PredictionPoint {
  std::string mode;
  int64_t batch = 1;
  roofline::Prediction prediction;
};
Document prediction_sweep_document(const std::vector<PredictionPoint>& points);

}  // namespace ridge::report
