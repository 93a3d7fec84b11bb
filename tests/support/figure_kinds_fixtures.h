#pragma once
// What the in-process tests of the result figures share (tests/report/test_figure_kinds.cpp, test_result_plot.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/figure/accuracy_figure.h"
#include "report/figure/algorithm_figure.h"
#include "report/figure/breakdown_figure.h"
#include "report/figure/modes_figure.h"
#include "report/figure/render.h"
#include "report/figure/result_figures.h"
#include "report/figure/result_sources.h"
#include "report/figure/sweep_figure.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::figure_kinds_fixtures {

using report::figure::Json;
namespace fig = report::figure;

inline Json node(const std::string& name, const std::string& op, double mean_ms, double flops = 0,
                 const std::string& algorithm = "") {
  Json n{{"name", name}, {"op", op}, {"mean_ms", mean_ms}, {"percent", 0}};
  if (!algorithm.empty()) n["algorithm"] = algorithm;
  if (flops > 0) n["predicted_flops"] = flops;
  return n;
}

inline Json bench(Json runs) {
  return Json{{"model", "tiny.onnx"},
              {"environment", {{"device", "cpu"}, {"threads", 2}}},
              {"runs", std::move(runs)},
              {"notes", {}}};
}

inline Json predict(Json nodes, double time_s, int64_t batch = 1) {
  return Json{{"device", {{"id", "t4"}, {"name", "T4"}}},
              {"mode", "default"},
              {"precision", "fp32"},
              {"ceilings", Json::object()},
              {"nodes", std::move(nodes)},
              {"totals", {{"time_s", time_s}, {"throughput", static_cast<double>(batch) / time_s}}}};
}

inline const Json& points(const fig::Figure& f) { return fig::data_values(f.spec, "points"); }

}  // namespace ridge::test::figure_kinds_fixtures
