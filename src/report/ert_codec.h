#pragma once
// The one JSON codec of `ridge ert` results, CPU and GPU: the document's JSON (what `ert -f json` prints) plus `ert`,
// the measured result itself with every field (sys::Summary statistics, the host CPU or GPU properties, every
// point), so a result read back from the store or `ridge results import` is the measurement, not cells a printer
// wrote. The values are (de)serialised with nlohmann's type macros: a field per member, missing ones read as their
// defaults (files written before a field existed), a mistyped one refused in one line.
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "hw/ert/ert.h"
#include "hw/ert/gpu_ert.h"

namespace ridge::report {

using ErtMeasurement = std::variant<hw::ert::ErtResult, hw::ert::GpuErtResult>;

nlohmann::ordered_json encode_ert(const ErtMeasurement& result);
bool is_ert(const nlohmann::json& doc);
// Throws ridge::Error naming `where` on JSON that is not `ridge ert -f json` output.
ErtMeasurement decode_ert(const nlohmann::json& doc, const std::string& where);

// "fp32 1.23 TFLOP/s, DRAM 45.6 GB/s": the best measured fp32 rate and DRAM bandwidth.
std::string ert_headline(const ErtMeasurement& result);

}  // namespace ridge::report
