#pragma once
// A Document as JSON that loses nothing (column styles, audiences, nested tables, which cells are
// integers), so the results store keeps what a command printed and `ridge results --show` prints it
// again in any format, exactly as the command did. The JSON printer's output is for programs and
// drops what people see; this is for ridge itself.
#include <nlohmann/json.hpp>

#include "report/document.h"

namespace ridge::report {

nlohmann::ordered_json encode_document(const Document& doc);
// Throws ridge::Error naming what is malformed (a store written by hand or damaged).
Document decode_document(const nlohmann::ordered_json& json);

}  // namespace ridge::report
