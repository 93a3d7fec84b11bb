#include "report/figure/accuracy_figure.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "util/error.h"

namespace ridge::report::figure {

namespace {

// The pair to draw: a prediction for the hardware that measured (at the run's batch, where one is), else, where
// the results do not say what measured or what was predicted for (hand-made files), the first of each.
std::pair<const roofline::Prediction*, const exec::BenchResult*> pair_of(const ResultSet& results) {
  const roofline::Prediction* predicted = nullptr;
  const exec::BenchResult* measured = nullptr;
  bool named = false;  // both sides say their hardware: only a pair on the same one may be drawn
  for (const auto& x : results.predicted) {
    const auto& p = x.prediction;
    if (p.nodes.empty()) continue;
    for (const auto& y : results.measured) {
      const auto& m = y.run;
      if (m.nodes.empty() || m.training) continue;
      auto on = hardware(m);
      if (on.empty() || p.device_name.empty()) continue;
      named = true;
      if (!same_hardware(on, p.device_name)) continue;
      if (!measured || (measured->batch != predicted->batch && m.batch == p.batch)) predicted = &p, measured = &m;
    }
  }
  if (measured || named) return {predicted, measured};
  const auto* first = first_with_layers(results.predicted);
  predicted = first ? &first->prediction : nullptr;
  for (const auto& y : results.measured) {
    const auto& r = y.run;
    if (r.nodes.empty() || r.training) continue;
    if (!measured || (predicted && measured->batch != predicted->batch && r.batch == predicted->batch)) measured = &r;
  }
  return {predicted, measured};
}

}  // namespace

Figure accuracy_figure(const ResultSet& results, const AccuracyOptions& o) {
  auto [predicted, measured] = pair_of(results);
  if (!predicted && !measured && !results.predicted.empty() && !results.measured.empty())
    throw Error(
        "accuracy needs a prediction for the hardware that measured: no predicted device's name holds the GPU or CPU "
        "of a measured run (predict with that device, or a host file from `ridge ert --profile`)");
  if (!predicted || !measured)
    throw Error(std::string("accuracy needs a predict and a bench result of the same model (missing: ") +
                (!predicted && !measured ? "both"
                 : !predicted            ? "a predict result with its layers"
                                         : "a bench result with per-node times") +
                ")");
  if (!predicted->model.empty() && !measured->model.empty() && predicted->model != measured->model)
    throw Error("accuracy needs a predict and a bench result of the same model (predicted: " + predicted->model +
                ", measured: " + measured->model + ")");
  auto predicted_layers = layers(*predicted);
  auto measured_layers = layers(*measured);
  std::map<std::string, const LayerTime*> by_name;
  for (const auto& l : predicted_layers) by_name[l.name] = &l;
  Figure fig{.kind = "accuracy"};
  Json points = Json::array();
  int matched = 0, within = 0, unmatched = 0, untimed = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& m : measured_layers) {
    auto it = by_name.find(m.name);
    if (it == by_name.end()) {
      ++unmatched;
      continue;
    }
    ++matched;
    const auto& p = *it->second;
    if (m.time_s <= 0 || p.time_s <= 0) {
      ++untimed;
      continue;
    }
    double error = p.time_s / m.time_s - 1;
    bool in = std::abs(error) <= o.tolerance + 1e-12;
    within += in;
    lo = std::min({lo, m.time_s, p.time_s}), hi = std::max({hi, m.time_s, p.time_s});
    points.push_back(Json{{"name", m.name},
                          {"op", m.op.empty() ? p.op : m.op},
                          {"measured_s", m.time_s},
                          {"predicted_s", p.time_s},
                          {"error", error},
                          {"within", in}});
  }
  if (matched == 0 || points.empty())
    throw Error(
        fmt::format("accuracy needs a predict and a bench result of the same model: none of the {} measured layers {}",
                    measured_layers.size(), matched == 0 ? "is in the prediction" : "has both times"));
  if (matched * 2 < static_cast<int>(measured_layers.size()))
    throw Error(fmt::format(
        "accuracy needs a predict and a bench result of the same model: {} of the {} measured layers are not "
        "in the prediction",
        unmatched, measured_layers.size()));
  int drawn = static_cast<int>(points.size());
  double fraction = static_cast<double>(within) / drawn;
  int percent = static_cast<int>(std::lround(o.tolerance * 100));
  fig.title = !o.title.empty() ? o.title
                               : fmt::format(
                                     "Predicted against measured per layer: {:.0f}% of {} within {}% ({}, "
                                     "batch {})",
                                     fraction * 100, drawn, percent, prediction_label(*predicted), measured->batch);
  if (unmatched > 0)
    fig.notes.push_back(std::to_string(unmatched) + " measured layer(s) are not in the prediction (fused or renamed)");
  if (untimed > 0) fig.notes.push_back(std::to_string(untimed) + " layer(s) without a measured or predicted time");
  if (measured->batch != predicted->batch)
    fig.notes.push_back(
        fmt::format("the measured run is at batch {}, the prediction at batch {}", measured->batch, predicted->batch));
  auto [d_lo, d_hi] = decade_domain(lo / 1.5, hi * 1.5);
  Json diagonal = Json::array();
  for (double x : {d_lo, d_hi})
    diagonal.push_back(
        Json{{"x", x}, {"y", x}, {"band_lo", x * (1 - o.tolerance)}, {"band_hi", x * (1 + o.tolerance)}});
  Json spec = base_spec(fig.title, 460, 460);
  add_data(spec, "diagonal", std::move(diagonal));
  add_data(spec, "points", std::move(points));
  spec["scales"] =
      Json::array({{{"name", "x"}, {"type", "log"}, {"domain", {d_lo, d_hi}}, {"range", "width"}, {"nice", false}},
                   {{"name", "y"}, {"type", "log"}, {"domain", {d_lo, d_hi}}, {"range", "height"}, {"nice", false}},
                   {{"name", "color"},
                    {"type", "ordinal"},
                    {"domain", {{"data", "points"}, {"field", "op"}, {"sort", true}}},
                    {"range", {{"scheme", "tableau10"}}}}});
  spec["axes"] = Json::array({{{"orient", "bottom"},
                               {"scale", "x"},
                               {"title", "measured time (s)"},
                               {"grid", true},
                               {"gridOpacity", 0.15},
                               {"format", "~s"}},
                              {{"orient", "left"},
                               {"scale", "y"},
                               {"title", "predicted time (s)"},
                               {"grid", true},
                               {"gridOpacity", 0.15},
                               {"format", "~s"}}});
  spec["legends"] = Json::array({{{"fill", "color"}, {"title", "op"}, {"orient", "right"}}});
  spec["marks"] = Json::array({{{"type", "area"},
                                {"from", {{"data", "diagonal"}}},
                                {"encode",
                                 {{"enter",
                                   {{"x", {{"scale", "x"}, {"field", "x"}}},
                                    {"y", {{"scale", "y"}, {"field", "band_lo"}}},
                                    {"y2", {{"scale", "y"}, {"field", "band_hi"}}},
                                    {"fill", {{"value", "#59a14f"}}},
                                    {"fillOpacity", {{"value", 0.18}}}}}}}},
                               {{"type", "line"},
                                {"from", {{"data", "diagonal"}}},
                                {"encode",
                                 {{"enter",
                                   {{"x", {{"scale", "x"}, {"field", "x"}}},
                                    {"y", {{"scale", "y"}, {"field", "y"}}},
                                    {"stroke", {{"value", "#555"}}},
                                    {"strokeDash", {{"value", {4, 3}}}}}}}}}});
  Json symbols{{"type", "symbol"},
               {"name", "point_marks"},
               {"from", {{"data", "points"}}},
               {"encode",
                {{"enter",
                  {{"x", {{"scale", "x"}, {"field", "measured_s"}}},
                   {"y", {{"scale", "y"}, {"field", "predicted_s"}}},
                   {"size", {{"value", 60}}},
                   {"fill", {{"scale", "color"}, {"field", "op"}}},
                   {"fillOpacity", {{"value", 0.8}}},
                   {"shape", {{"signal", "datum.within ? 'circle' : 'diamond'"}}},
                   {"stroke", {{"value", "#333"}}},
                   {"strokeWidth", {{"value", 0.5}}}}}}}};
  add_tooltip(symbols["encode"]["enter"], {{"layer", "datum.name"},
                                           {"op", "datum.op"},
                                           {"measured", ms_expr("measured_s")},
                                           {"predicted", ms_expr("predicted_s")},
                                           {"error", "format(datum.error * 100, '+.1f') + ' %'"}});
  spec["marks"].push_back(std::move(symbols));
  fig.spec = std::move(spec);
  return fig;
}

}  // namespace ridge::report::figure
