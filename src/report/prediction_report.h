#pragma once
// `ridge predict` results as documents: one prediction per node, or a sweep over batch and modes.
#include <vector>

#include "report/document.h"
#include "roofline/predict.h"

namespace ridge::report {

Document prediction_document(const roofline::Prediction& p);

// Which calibration made the times, for people ("calibrated estimate for eager mode, 2 threads
// (MODEL; held-out error ...)" or "uncalibrated: ... roofline bounds"), and its JSON fields
// (calibrated, estimate, calibration_source or calibration {model, exec_mode, threads, validation}).
std::string calibration_text(const roofline::Prediction& p);
// Why an uncalibrated bound leaves the per-op overhead out and how to measure it; empty when nothing was left out.
std::string overhead_note(const roofline::Prediction& p);
// How to calibrate an uncalibrated GPU or SoC prediction (the commands, for this device); empty otherwise.
std::string calibration_hint(const roofline::Prediction& p);
void add_calibration_fields(Document& doc, const roofline::Prediction& p);

// The energy coefficients behind a prediction's energy figures, for people ("estimate coefficients:
// estimate from TDP ...") or why there are none ("not predicted: ..."); and the JSON field `energy`
// ({predicted, label, source} or {predicted: false, missing}) with the note an estimate carries.
std::string energy_text(const roofline::Prediction& p);
void add_energy_field(Document& doc, const roofline::Prediction& p);
// What the board's power limit did to a prediction, for people; empty when it changed nothing.
std::string power_limit_note(const roofline::Prediction& p);

struct PredictionPoint {
  std::string mode;
  int64_t batch = 1;
  roofline::Prediction prediction;
};
Document prediction_sweep_document(const std::vector<PredictionPoint>& points);

}  // namespace ridge::report
