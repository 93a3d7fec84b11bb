#pragma once
// `ridge calibrate`'s results as documents, and their one JSON codec. The codec's JSON is the document's (what
// `calibrate -f json` prints): every figure of the fit is a field or a table cell there, so decoding it gives back
// the value the command computed, and the store keeps it typed (docs/json-schema.md):
//   family: {fit "family", device, measured, run, runs_in_file, nodes, unmatched, without_work, overhead_s,
//            efficiency[] {family, efficiency|null}, notes[], output}
//   shape:  {fit "shape", device, evidence[], samples, folds, models[] {model, fit, points, median_abs_error,
//            p90_abs_error, within_10}, notes[], files {samples, overhead, model}, output}
//   energy: {fit "energy", device, mode, measured[], traffic, e_flop_j, e_byte_j, p_static_w, standard_error,
//            at_bound[], error {median_rel, max_rel}, r2, degrees_of_freedom, runs[] {label, source, flops, bytes,
//            time_s, measured_j, fitted_j, rel_error}, skipped[], notes[], output}
#include <nlohmann/json.hpp>
#include <string>

#include "calib/calibration_result.h"
#include "report/document.h"

namespace ridge::report {

Document calibration_document(const calib::Calibration& calibration);

nlohmann::ordered_json encode_calibration(const calib::Calibration& calibration);
// Throws ridge::Error naming `where` and the field on JSON that is not `ridge calibrate -f json` output.
calib::Calibration decode_calibration(const nlohmann::json& doc, const std::string& where);
bool is_calibration(const nlohmann::json& doc);

// The headline people read in listings: "53 nodes, 4.2 us per op", "212 layers, median |error| 6.1%",
// "e_flop 1.2 pJ, median |error| 5.4%".
std::string calibration_headline(const calib::Calibration& calibration);

}  // namespace ridge::report
