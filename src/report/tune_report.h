#pragma once
// `ridge tune` results as a document: every mode predicted (JSON/CSV), the Pareto front and named modes
// for people, the best mode for the objective, its savings against the default mode, and the commands
// that set it.
#include <nlohmann/json.hpp>
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

// A tuning as a value: the device it chose a mode for, what `roofline::tune` found, and how it was asked.
struct Tuning {
  std::string device_id, device_name;
  roofline::TuneResult result;
  TuneContext context;
};

Document tune_document(const Tuning& tuning);

// The one JSON codec of tunings: the document's JSON (what `tune -f json` prints) plus `tuning`, the value itself
// with every member, so the store and `ridge results import` read back what tune computed.
nlohmann::ordered_json encode_tuning(const Tuning& tuning);
bool is_tuning(const nlohmann::json& doc);
// Throws ridge::Error naming `where` on JSON that is not `ridge tune -f json` output.
Tuning decode_tuning(const nlohmann::json& doc, const std::string& where);
// "best MODE: 12.3% less energy" (the objective's figure), as listings show it.
std::string tuning_headline(const Tuning& tuning);

}  // namespace ridge::report
