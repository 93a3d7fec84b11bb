#pragma once
// The one JSON codec of comparisons (`ridge compare`): the document's JSON (what `compare -f json` prints, every
// node) plus `comparison` {prediction (the prediction codec's, without nodes), measured (the bench codec's file of
// the one run, without nodes)}, so a comparison read back from the store or `ridge results import` is the value
// compare computed: the run with the environment that measured it, the prediction with its device and calibration,
// and every node's figures (docs/json-schema.md).
#include <nlohmann/json.hpp>
#include <string>

#include "report/compare_report.h"

namespace ridge::report {

nlohmann::ordered_json encode_comparison(const Comparison& comparison);
bool is_comparison(const nlohmann::json& doc);
// Throws ridge::Error naming `where` and the field on JSON that is not `ridge compare -f json` output.
Comparison decode_comparison(const nlohmann::json& doc, const std::string& where);

// "1.190 ms vs 1.520 ms measured (-21.7%)": the headline people read in listings (predicted first).
std::string comparison_headline(const Comparison& comparison);

}  // namespace ridge::report
