#pragma once
// What `ridge calibrate` computes, as values: one of three fits, each with the device file it wrote. Documents
// (report/calibration_report) and the store's codec (report/calibration_codec) are made from these, so a
// calibration read back is the fit that was computed, not cells a printer wrote.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "calib/model.h"
#include "roofline/energy_fit.h"
#include "roofline/family_calibration.h"

namespace ridge::calib {

// The per-family fit of one model's measured node times (`ridge calibrate MODEL --measured FILE`).
struct FamilyCalibration {
  std::string device;    // the device id calibrated
  std::string measured;  // the node-times file or Nsight Compute export
  std::string run;       // of a file holding several runs, the one used ("" when it holds one)
  int runs_in_file = 0;  // distinct runs the file holds (0: not a `ridge bench --csv` layout)
  roofline::CalibrationFit fit;
  std::vector<std::string> notes;
  std::string output;  // the calibrated device file written
};

// The held-out error of one shape-aware model ("KIND/MODE", or "all" for every layer).
struct ModelValidation {
  std::string key, fit;              // fit: what the model was fitted on, as ShapeModel::describe says it
  std::optional<ErrorStats> errors;  // none: a single sample, nothing to hold out
};

// The shape-aware calibration (`ridge calibrate --sample | --measured DIR | --samples FILE`).
struct ShapeCalibration {
  std::string device;
  std::vector<std::string> evidence;  // one line per source of samples
  int64_t samples = 0;                // layers fitted
  int folds = 0;                      // cross-validation folds
  std::string held_out;               // how the held-out errors were made, for the table's title
  std::vector<ModelValidation> models;
  std::vector<std::string> notes;
  std::string samples_file, overhead_file, model_file;  // the evidence and the fitted model, kept beside the output
  std::string output;
};

// The energy roofline of one power mode fitted to measured runs (`ridge calibrate --energy`).
struct EnergyCalibration {
  std::string device, mode;
  std::vector<std::string> measured;  // the files given
  std::string traffic;                // how W and Q were counted: "unfused" or "fused" (`predict --traffic`)
  std::vector<roofline::EnergyRun> runs;
  roofline::EnergyFit fit;
  std::vector<std::string> skipped;  // runs not used and why
  std::vector<std::string> notes;
  std::string output;
};

using Calibration = std::variant<FamilyCalibration, ShapeCalibration, EnergyCalibration>;

}  // namespace ridge::calib
