#include "report/figure/accuracy_figure.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "report/figure/axes.h"
#include "report/figure/legends.h"
#include "report/figure/scales.h"
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

// The measured layers matched by name with the predicted ones: a point per layer with both times.
struct Matched {
  Json points = Json::array();
  int matched = 0, within = 0, unmatched = 0, untimed = 0;
  Extent times;
};

Matched match_layers(const std::vector<LayerTime>& measured_layers, const std::vector<LayerTime>& predicted_layers,
                     double tolerance) {
  std::map<std::string, const LayerTime*> by_name;
  for (const auto& l : predicted_layers) by_name[l.name] = &l;
  Matched out;
  for (const auto& m : measured_layers) {
    auto it = by_name.find(m.name);
    if (it == by_name.end()) {
      ++out.unmatched;
      continue;
    }
    ++out.matched;
    const auto& p = *it->second;
    if (m.time_s <= 0 || p.time_s <= 0) {
      ++out.untimed;
      continue;
    }
    double error = p.time_s / m.time_s - 1;
    bool in = std::abs(error) <= tolerance + 1e-12;
    out.within += in;
    out.times.cover(m.time_s), out.times.cover(p.time_s);
    out.points.push_back(Json{{"name", m.name},
                              {"op", m.op.empty() ? p.op : m.op},
                              {"measured_s", m.time_s},
                              {"predicted_s", p.time_s},
                              {"error", error},
                              {"within", in}});
  }
  return out;
}

// The band of +-tolerance around y = x, the line itself, and the layers: circles within the band, diamonds outside.
Json accuracy_marks() {
  Json band{{"type", "area"},
            {"from", {{"data", "diagonal"}}},
            {"encode",
             {{"enter",
               {{"x", {{"scale", "x"}, {"field", "x"}}},
                {"y", {{"scale", "y"}, {"field", "band_lo"}}},
                {"y2", {{"scale", "y"}, {"field", "band_hi"}}},
                {"fill", {{"value", "#59a14f"}}},
                {"fillOpacity", {{"value", 0.18}}}}}}}};
  Json diagonal{{"type", "line"},
                {"from", {{"data", "diagonal"}}},
                {"encode",
                 {{"enter",
                   {{"x", {{"scale", "x"}, {"field", "x"}}},
                    {"y", {{"scale", "y"}, {"field", "y"}}},
                    {"stroke", {{"value", "#555"}}},
                    {"strokeDash", {{"value", {4, 3}}}}}}}}};
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
  return Json::array({band, diagonal, symbols});
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
  auto m = match_layers(measured_layers, predicted_layers, o.tolerance);
  if (m.matched == 0 || m.points.empty())
    throw Error(
        fmt::format("accuracy needs a predict and a bench result of the same model: none of the {} measured layers {}",
                    measured_layers.size(), m.matched == 0 ? "is in the prediction" : "has both times"));
  if (m.matched * 2 < static_cast<int>(measured_layers.size()))
    throw Error(fmt::format(
        "accuracy needs a predict and a bench result of the same model: {} of the {} measured layers are not "
        "in the prediction",
        m.unmatched, measured_layers.size()));
  Figure fig{.kind = "accuracy"};
  int drawn = static_cast<int>(m.points.size());
  double fraction = static_cast<double>(m.within) / drawn;
  int percent = static_cast<int>(std::lround(o.tolerance * 100));
  fig.title = !o.title.empty() ? o.title
                               : fmt::format(
                                     "Predicted against measured per layer: {:.0f}% of {} within {}% ({}, "
                                     "batch {})",
                                     fraction * 100, drawn, percent, prediction_label(*predicted), measured->batch);
  if (m.unmatched > 0)
    fig.notes.push_back(std::to_string(m.unmatched) +
                        " measured layer(s) are not in the prediction (fused or renamed)");
  if (m.untimed > 0) fig.notes.push_back(std::to_string(m.untimed) + " layer(s) without a measured or predicted time");
  if (measured->batch != predicted->batch)
    fig.notes.push_back(
        fmt::format("the measured run is at batch {}, the prediction at batch {}", measured->batch, predicted->batch));
  auto [d_lo, d_hi] = decade_domain(m.times.lo / 1.5, m.times.hi * 1.5);
  Json diagonal = Json::array();
  for (double x : {d_lo, d_hi})
    diagonal.push_back(
        Json{{"x", x}, {"y", x}, {"band_lo", x * (1 - o.tolerance)}, {"band_hi", x * (1 + o.tolerance)}});
  Json spec = base_spec(fig.title, 460, 460);
  add_data(spec, "diagonal", std::move(diagonal));
  add_data(spec, "points", std::move(m.points));
  spec["scales"] = Json::array({log_scale("x", d_lo, d_hi, "width"), log_scale("y", d_lo, d_hi, "height"),
                                category_scale("color", field_domain("points", "op"), "tableau10")});
  spec["axes"] = log_log_axes("measured time (s)", "predicted time (s)", "~s", "~s");
  spec["legends"] = Json::array({legend("fill", "color", "op")});
  spec["marks"] = accuracy_marks();
  fig.spec = std::move(spec);
  return fig;
}

}  // namespace ridge::report::figure
