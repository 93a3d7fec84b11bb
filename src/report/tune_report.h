#pragma once
// `ridge tune` results as a document: every mode predicted (JSON/CSV), the Pareto front and named modes
// for people, the best mode for the objective, its savings against the default mode, and the commands
// that set it.
#include <string>
#include <vector>

#include "hw/device.h"
#include "report/document.h"
#include "roofline/tune.h"

namespace ridge::report {

struct TuneContext {
  std::string model, precision;
  std::vector<int64_t> batches;
  roofline::TuneOptions options;
  std::string calibration;            // how the times were made (prediction_report's calibration_text)
  std::vector<std::string> commands;  // that set the best mode
  std::vector<std::string> command_notes;
  std::vector<std::string> applied;  // what --apply did
};

Document tune_document(const hw::Device& device, const roofline::TuneResult& result, const TuneContext& context);

}  // namespace ridge::report
