// libFuzzer target: arbitrary JSON as the input of `ridge plot KIND --from` / `--measured` (a hand-edited or foreign
// file) or of `ridge results import`, through the prediction, bench, analysis, calibration, compare, ert and tune
// codecs, report/figure's sources, the roofline builder and every result figure `ridge report` draws. Any input must
// end in a figure whose spec serialises, or a ridge::Error; never a crash or another exception.
// fuzz-max-len: 65536 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "analysis/analysis_codec.h"
#include "exec/bench_codec.h"
#include "report/calibration_report.h"
#include "report/compare_codec.h"
#include "report/ert_codec.h"
#include "report/figure/result_figures.h"
#include "report/figure/result_sources.h"
#include "report/figure/roofline_figure.h"
#include "report/figure/sources.h"
#include "report/tune_report.h"
#include "roofline/prediction_codec.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fig = ridge::report::figure;
  auto json = fig::Json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  auto kind = fig::document_kind(json);
  fig::RooflineInput input{
      .title = "fuzz", .ceilings = {{"d", "fp32", true, 1e12, "datasheet"}, {"d", "dram", false, 1e11, "measured"}}};
  // Predictions and bench runs through their codecs (which refuse a malformed file with a ridge::Error), then into
  // the figure's points.
  try {
    for (const auto& p : ridge::roofline::decode_predictions(json, "fuzz")) {
      auto points = fig::prediction_points(p, "d");
      input.points.insert(input.points.end(), points.begin(), points.end());
      (void)fig::energy_points(p);
    }
  } catch (const ridge::Error&) {
  }
  try {
    int runs = 0;
    std::vector<std::string> unmatched;
    auto bench = ridge::exec::decode_bench(json, "fuzz");
    auto measured = fig::bench_points(bench.runs, ridge::cost::ModelCost{}, 1, runs, unmatched);
    input.points.insert(input.points.end(), measured.begin(), measured.end());
  } catch (const ridge::Error&) {
  }
  try {
    for (const auto& a : ridge::analysis::decode_analyses(json, "fuzz"))
      (void)ridge::analysis::encode_analysis(a).dump();
  } catch (const ridge::Error&) {
  }
  // The calibration, compare, ert and tune codecs (`ridge results import` of their JSON): decoded values encode again.
  try {
    (void)ridge::report::encode_calibration(ridge::report::decode_calibration(json, "fuzz")).dump();
  } catch (const ridge::Error&) {
  }
  try {
    (void)ridge::report::encode_comparison(ridge::report::decode_comparison(json, "fuzz")).dump();
  } catch (const ridge::Error&) {
  }
  try {
    (void)ridge::report::encode_ert(ridge::report::decode_ert(json, "fuzz")).dump();
  } catch (const ridge::Error&) {
  }
  try {
    (void)ridge::report::encode_tuning(ridge::report::decode_tuning(json, "fuzz")).dump();
  } catch (const ridge::Error&) {
  }
  auto kernels = fig::kernel_points(json, "d");
  input.points.insert(input.points.end(), kernels.begin(), kernels.end());
  input.hierarchical = kind == "kernels";
  try {
    auto figure = fig::roofline_figure(input);
    (void)figure.spec.dump();
  } catch (const ridge::Error&) {
  }
  try {
    fig::ResultSet set;
    fig::add_document(set, json, "fuzz");
  } catch (const ridge::Error&) {
  }
  try {
    for (const auto& figure : fig::result_figures({json, json})) (void)figure.spec.dump();
  } catch (const ridge::Error&) {
  }
  return 0;
}
