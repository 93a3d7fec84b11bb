// libFuzzer target: arbitrary JSON as the input of `ridge plot KIND --from` / `--measured` (a
// hand-edited or foreign file), through report/figure's readers, the roofline builder and every result
// figure `ridge report` draws. Any input
// must end in a figure whose spec serialises, or a ridge::Error; never a crash or another exception.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "report/figure/result_figures.h"
#include "report/figure/result_sources.h"
#include "report/figure/roofline_figure.h"
#include "report/figure/sources.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fig = ridge::report::figure;
  auto json = fig::Json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  auto kind = fig::document_kind(json);
  fig::RooflineInput input{
      .title = "fuzz", .ceilings = {{"d", "fp32", true, 1e12, "datasheet"}, {"d", "dram", false, 1e11, "measured"}}};
  input.points = fig::prediction_points(json, "d");
  auto kernels = fig::kernel_points(json, "d");
  input.points.insert(input.points.end(), kernels.begin(), kernels.end());
  int runs = 0;
  std::vector<std::string> unmatched;
  auto measured = fig::bench_points(json, json, 1, runs, unmatched);
  input.points.insert(input.points.end(), measured.begin(), measured.end());
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
