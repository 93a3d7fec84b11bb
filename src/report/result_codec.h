#pragma once
// The typed result a store record keeps, as one JSON value tagged with its kind: {"kind": "bench", "result":
// exec::encode_bench}, {"kind": "predict", "result": roofline::encode_predictions} or {"kind": "analyze", "result":
// analysis::encode_analysis (or _sweep)}, {"kind": "import ncu", "result": encode_ncu_import} or {"kind":
// "import torch", "result": encode_torch_imports}, {"kind": "calibrate", "result": encode_calibration}, {"kind":
// "compare", "result": encode_comparison}. Writing and reading it go through the kind's own codec, so what the store
// hands to figures, report and export is the value the command computed, environment included, never cells a printer
// wrote.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/analysis_codec.h"
#include "calib/calibration_result.h"
#include "exec/measurement.h"
#include "report/compare_report.h"
#include "report/ert_codec.h"
#include "report/ncu_report.h"
#include "report/torch_import_codec.h"
#include "report/tune_report.h"
#include "roofline/predict.h"
#include "store/record.h"

namespace ridge::report {

struct TypedResult {
  std::string
      kind;  // "bench", "predict", "analyze", "import ncu", "import torch", "calibrate", "compare", "ert" or "tune"
  std::vector<exec::BenchResult> runs;            // bench
  std::vector<roofline::Prediction> predictions;  // predict (several for a sweep)
  std::vector<analysis::Analysis> analyses;       // analyze (a sweep: one per point, without nodes)
  std::string sweep;                              // analyze: the swept key; empty for one analysis
  std::optional<profile::NcuImport> ncu;          // import ncu
  std::string missing_device;                     // import ncu: why its device could not be resolved again
  std::optional<profile::TorchImports> torch;     // import torch
  std::optional<calib::Calibration> calibration;  // calibrate (a per-family, shape-aware or energy fit)
  std::optional<Comparison> comparison;           // compare
  std::optional<ErtMeasurement> ert;              // ert (the CPU's or a GPU's)
  std::optional<Tuning> tuning;                   // tune
};

// The value tagged with its kind, through the kind's codec (what the store keeps).
nlohmann::ordered_json encode_typed(const TypedResult& value);

// Throws ridge::Error naming `where` on a value no codec reads.
TypedResult decode_typed(const nlohmann::json& typed, const std::string& where);
// The record's typed result; nullopt when it has none (a failed cell, or a result stored before ridge kept
// them typed).
std::optional<TypedResult> typed_result(const store::Record& record);

// The headline figure of a typed result as people read it in listings ("mean 12.345 ms", "1.19 ms predicted",
// "8.21 GFLOP", "6 points").
std::string headline(const TypedResult& result);

}  // namespace ridge::report
