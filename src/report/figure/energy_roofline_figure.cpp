#include "report/figure/energy_roofline_figure.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "report/format.h"
#include "roofline/energy.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Escaped for a single-quoted Vega string.
std::string quoted(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

bool drawable(const EnergyPoint& p) {
  return p.flops > 0 && p.bytes > 0 && p.energy_j > 0 && std::isfinite(p.flops) && std::isfinite(p.bytes) &&
         std::isfinite(p.energy_j) && std::isfinite(p.flops / p.bytes) && std::isfinite(p.flops / p.energy_j);
}

Json curve_marks() {
  Json lines = {{"type", "group"},
                {"from", {{"facet", {{"name", "curve"}, {"data", "curves"}, {"groupby", "series"}}}}},
                {"marks", Json::array({{{"type", "line"},
                                        {"name", "curve_lines"},
                                        {"from", {{"data", "curve"}}},
                                        {"encode",
                                         {{"enter",
                                           {{"x", {{"scale", "x"}, {"field", "intensity"}}},
                                            {"y", {{"scale", "y"}, {"field", "flops_per_joule"}}},
                                            {"stroke", {{"scale", "series_color"}, {"field", "series"}}},
                                            {"strokeWidth", {{"value", 2}}},
                                            {"strokeDash", {{"scale", "dash"}, {"field", "label"}}}}}}}}})}};
  Json bends = {{"type", "symbol"},
                {"from", {{"data", "bends"}}},
                {"encode",
                 {{"enter",
                   {{"x", {{"scale", "x"}, {"field", "ridge_point"}}},
                    {"y", {{"scale", "y"}, {"field", "ridge_flops_per_joule"}}},
                    {"shape", {{"value", "diamond"}}},
                    {"size", {{"value", 50}}},
                    {"fill", {{"value", "white"}}},
                    {"stroke", {{"scale", "series_color"}, {"field", "series"}}},
                    {"strokeWidth", {{"value", 1.5}}}}}}}};
  add_tooltip(bends["encode"]["enter"],
              {{"mode", "datum.series"},
               {"ridge point", "format(datum.ridge_point, '.4~r') + ' FLOP/B'"},
               {"there", si_expr("ridge_flops_per_joule", "FLOP/J")},
               {"energy balance e_byte/e_flop", "format(datum.energy_balance, '.4~r') + ' FLOP/B'"},
               {"coefficients", "datum.label"}});
  return Json::array({lines, bends});
}

}  // namespace

Figure energy_roofline_figure(const EnergyRooflineInput& input) {
  Figure fig{.kind = "energy-roofline", .title = input.title};
  // The modes that can be drawn: energy ceilings, the compute ceiling and a DRAM bandwidth.
  std::vector<const hw::Roofline*> modes;
  for (const auto& r : input.modes) {
    if (!r.energy) {
      fig.notes.push_back("mode " + r.mode + ": energy not predicted: " + r.energy_missing);
      continue;
    }
    if (roofline::flops_per_joule(r, input.peak_key, 1.0) <= 0) {
      fig.notes.push_back(
          fmt::format("mode {}: no '{}' ceiling with energy per FLOP, or no DRAM bandwidth", r.mode, input.peak_key));
      continue;
    }
    modes.push_back(&r);
  }
  if (modes.empty())
    throw Error(fmt::format("no energy roofline to draw on '{}': {}", input.peak_key,
                            fig.notes.empty() ? std::string("no power mode given") : fig.notes.front()));
  std::vector<const EnergyPoint*> drawn;
  std::vector<std::string> skipped;
  double total_j = 0;
  for (const auto& p : input.points) {
    if (drawable(p)) {
      drawn.push_back(&p);
      total_j += p.energy_j;
    } else {
      skipped.push_back(p.name);
    }
  }

  // x: every point, and every curve's bend (its ridge point) and energy balance, with room either side
  // for the curves to reach their flat parts.
  double x_lo = kInf, x_hi = 0;
  auto cover_x = [&](double x) {
    if (x > 0 && std::isfinite(x)) x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
  };
  for (const auto* p : drawn) cover_x(p->flops / p->bytes);
  double flat_from = 0;  // past 30x its ridge point a curve is within a few percent of its top
  for (const auto* r : modes) {
    cover_x(r->ridge_point(input.peak_key));
    cover_x(roofline::energy_balance(*r->energy, input.peak_key));
    flat_from = std::max(flat_from, 30 * r->ridge_point(input.peak_key));
  }
  if (x_hi == 0) cover_x(1);
  auto [x_min, x_max] = decade_domain(x_lo / 3, std::max(x_hi * 3, flat_from));

  // The curves, sampled log-spaced, with each ridge point added so the bend is drawn where it is.
  Json curves = Json::array(), bends = Json::array();
  double y_lo = kInf, y_hi = 0;
  auto cover_y = [&](double y) {
    if (y > 0 && std::isfinite(y)) y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
  };
  const int samples = static_cast<int>(std::lround(std::log10(x_max / x_min) * kEnergyCurveSamplesPerDecade));
  std::set<std::string> labels;
  std::string legend_text;  // a Vega object literal: mode -> its legend line
  for (const auto* r : modes) {
    std::vector<double> xs;
    for (int i = 0; i <= samples; ++i) xs.push_back(x_min * std::pow(x_max / x_min, static_cast<double>(i) / samples));
    double ridge = r->ridge_point(input.peak_key);
    if (ridge > x_min && ridge < x_max) xs.push_back(ridge);
    std::sort(xs.begin(), xs.end());
    const auto& label = r->energy->label;
    labels.insert(label);
    for (double x : xs) {
      double y = roofline::flops_per_joule(*r, input.peak_key, x);
      cover_y(y);
      curves.push_back(Json{{"series", r->mode}, {"label", label}, {"intensity", x}, {"flops_per_joule", y}});
    }
    double top = roofline::flops_per_joule(*r, input.peak_key, x_max);
    bends.push_back(Json{{"series", r->mode},
                         {"label", label},
                         {"ridge_point", ridge},
                         {"ridge_flops_per_joule", roofline::flops_per_joule(*r, input.peak_key, ridge)},
                         {"energy_balance", roofline::energy_balance(*r->energy, input.peak_key)},
                         {"top_flops_per_joule", top},
                         {"text", fmt::format("{}: up to {} ({})", r->mode, si(top, "FLOP/J"), label)}});
    legend_text += fmt::format("{}'{}': '{}'", legend_text.empty() ? "" : ", ", quoted(r->mode),
                               quoted(fmt::format("{}: up to {} ({})", r->mode, si(top, "FLOP/J"), label)));
  }
  Json points = Json::array();
  for (const auto* p : drawn) {
    cover_y(p->flops / p->energy_j);
    points.push_back(Json{{"series", input.points_series},
                          {"name", p->name},
                          {"op", p->op},
                          {"family", p->family.empty() ? p->op : p->family},
                          {"ceiling", p->ceiling},
                          {"flops", p->flops},
                          {"bytes", p->bytes},
                          {"energy_j", p->energy_j},
                          {"time_s", p->time_s},
                          {"label", input.points_label},
                          {"intensity", p->flops / p->bytes},
                          {"flops_per_joule", p->flops / p->energy_j},
                          {"share", total_j > 0 ? p->energy_j / total_j : 0}});
  }
  auto [y_min, y_max] = decade_domain(y_lo / 1.5, y_hi * 2);

  Json spec = base_spec(input.title, 640, 420);
  add_data(spec, "curves", std::move(curves));
  add_data(spec, "bends", std::move(bends));
  add_data(spec, "points", std::move(points));
  std::vector<std::string> series;
  for (const auto* r : modes) series.push_back(r->mode);
  spec["scales"] = Json::array(
      {{{"name", "x"}, {"type", "log"}, {"domain", {x_min, x_max}}, {"range", "width"}, {"nice", false}},
       {{"name", "y"}, {"type", "log"}, {"domain", {y_min, y_max}}, {"range", "height"}, {"nice", false}},
       {{"name", "color"},
        {"type", "ordinal"},
        {"domain", {{"data", "points"}, {"field", "family"}, {"sort", true}}},
        {"range", {{"scheme", "tableau10"}}}},
       {{"name", "series_color"}, {"type", "ordinal"}, {"domain", series}, {"range", {{"scheme", "dark2"}}}},
       {{"name", "dash"},
        {"type", "ordinal"},
        {"domain", {hw::kMeasured, hw::kDatasheet, hw::kEstimate}},
        {"range", {Json::array(), {2, 2}, {7, 3}}}},
       {{"name", "size"}, {"type", "linear"}, {"domain", {0, 1}}, {"range", {25, 900}}, {"zero", true}}});
  spec["axes"] = Json::array({{{"orient", "bottom"},
                               {"scale", "x"},
                               {"title", "arithmetic intensity (FLOP/byte)"},
                               {"grid", true},
                               {"gridOpacity", 0.15},
                               {"format", "~g"}},
                              {{"orient", "left"},
                               {"scale", "y"},
                               {"title", "energy efficiency (FLOP/J)"},
                               {"grid", true},
                               {"gridOpacity", 0.15},
                               {"format", "~s"}}});
  spec["legends"] = Json::array(
      {{{"stroke", "series_color"},
        {"title", "power mode (" + input.peak_key + " ceiling)"},
        {"symbolType", "stroke"},
        {"orient", "right"},
        {"titleLimit", 300},
        {"labelLimit", 360},
        {"encode", {{"labels", {{"update", {{"text", {{"signal", "{" + legend_text + "}[datum.value]"}}}}}}}}}},
       {{"strokeDash", "dash"},
        {"title", "energy coefficients"},
        {"symbolType", "stroke"},
        {"orient", "right"},
        {"values", Json(std::vector<std::string>(labels.begin(), labels.end()))}}});
  if (!drawn.empty())
    spec["legends"].push_back({{"fill", "color"},
                               {"title", "op family (nodes in " + input.points_series + ")"},
                               {"titleLimit", 300},
                               {"symbolType", "circle"},
                               {"orient", "right"}});
  spec["marks"] = curve_marks();
  Json symbols = {{"type", "symbol"},
                  {"name", "point_marks"},
                  {"from", {{"data", "points"}}},
                  {"encode",
                   {{"enter",
                     {{"x", {{"scale", "x"}, {"field", "intensity"}}},
                      {"y", {{"scale", "y"}, {"field", "flops_per_joule"}}},
                      {"size", {{"scale", "size"}, {"field", "share"}}},
                      {"fill", {{"scale", "color"}, {"field", "family"}}},
                      {"fillOpacity", {{"value", 0.75}}},
                      {"stroke", {{"value", "#333"}}},
                      {"strokeWidth", {{"value", 0.5}}}}},
                    {"hover", {{"fillOpacity", {{"value", 1}}}, {"strokeWidth", {{"value", 2}}}}},
                    {"update", {{"fillOpacity", {{"value", 0.75}}}, {"strokeWidth", {{"value", 0.5}}}}}}}};
  add_tooltip(symbols["encode"]["enter"], {{"node", "datum.name"},
                                           {"op", "datum.op"},
                                           {"ceiling", "datum.ceiling"},
                                           {"FLOPs", si_expr("flops", "FLOP")},
                                           {"bytes", si_expr("bytes", "B")},
                                           {"intensity", "format(datum.intensity, '.4~r') + ' FLOP/B'"},
                                           {"energy", si_expr("energy_j", "J") + " + ' (' + datum.label + ')'"},
                                           {"efficiency", si_expr("flops_per_joule", "FLOP/J")},
                                           {"mode", "datum.series"}});
  spec["marks"].push_back(std::move(symbols));
  fig.spec = std::move(spec);
  if (labels.count(hw::kEstimate))
    fig.notes.push_back(
        "curves labelled estimate come from energy coefficients estimated by the rule in docs/energy.md, not "
        "measured");
  if (!skipped.empty()) {
    std::string names;
    for (size_t i = 0; i < skipped.size() && i < 5; ++i) names += (i ? ", " : "") + skipped[i];
    fig.notes.push_back(fmt::format("{} node(s) without FLOPs, bytes or predicted energy are not drawn ({}{})",
                                    skipped.size(), names, skipped.size() > 5 ? ", ..." : ""));
  }
  return fig;
}

}  // namespace ridge::report::figure
