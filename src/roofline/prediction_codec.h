#pragma once
// The one JSON codec of predictions: `ridge predict -f json` writes with it, the results store keeps what it
// writes, and every reader of predictions (figures, report, `results import`) decodes with it into the same
// roofline::Prediction the prediction produced. A single prediction:
//   {ridge {version, revision}, model, batch, device {id, name}, mode, precision, calibrated, estimate,
//    calibration_source?, calibration? {model, exec_mode, threads, validation?}, energy {predicted, label?, source?,
//    missing?}, ceilings {key: label}, unpredicted_ops {op: count}, nodes[], totals {...}, notes[]}
// and a sweep (`--sweep`, `--modes`): the same head, with `points[]`, one whole prediction each (docs/json-schema.md).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "roofline/predict.h"

namespace ridge::roofline {

nlohmann::ordered_json encode_prediction(const Prediction& prediction);
// One prediction, or a sweep of them (`points`) when there are several.
nlohmann::ordered_json encode_predictions(const std::vector<Prediction>& predictions);

// The predictions of either form. Throws ridge::Error with one line naming `where` and the field on a document that
// is no prediction.
std::vector<Prediction> decode_predictions(const nlohmann::json& doc, const std::string& where);
// Whether `doc` has the shape of a prediction or a sweep of them (a device and nodes, totals or points).
bool is_prediction(const nlohmann::json& doc);

}  // namespace ridge::roofline
