#pragma once
// The typed result a store record keeps, as one JSON value tagged with its kind: {"kind": "bench", "result":
// exec::encode_bench} or {"kind": "predict", "result": roofline::encode_predictions}. Writing and reading it
// go through the kind's own codec, so what the store hands to figures, report and export is the value the command
// computed, environment included, never cells a printer wrote.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "exec/measurement.h"
#include "roofline/predict.h"
#include "store/record.h"

namespace ridge::report {

struct TypedResult {
  std::string kind;                               // "bench" or "predict"
  std::vector<exec::BenchResult> runs;            // bench
  std::vector<roofline::Prediction> predictions;  // predict (several for a sweep)
};

nlohmann::ordered_json typed_bench(const exec::BenchResult& run);
nlohmann::ordered_json typed_predictions(const std::vector<roofline::Prediction>& predictions);

// Throws ridge::Error naming `where` on a value no codec reads.
TypedResult decode_typed(const nlohmann::json& typed, const std::string& where);
// The record's typed result; nullopt when it has none (a failed cell, or a result stored before ridge kept
// them typed).
std::optional<TypedResult> typed_result(const store::Record& record);

// The headline figure of a typed result as people read it in listings ("mean 12.345 ms", "1.19 ms predicted",
// "6 points").
std::string headline(const TypedResult& result);

}  // namespace ridge::report
