#include "report/figure/energy_roofline_figure.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/figure/axes.h"
#include "report/figure/legends.h"
#include "report/figure/marks.h"
#include "report/figure/scales.h"
#include "report/format.h"
#include "roofline/energy.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

bool drawable(const EnergyPoint& p) {
  return p.flops > 0 && p.bytes > 0 && p.energy_j > 0 && std::isfinite(p.flops) && std::isfinite(p.bytes) &&
         std::isfinite(p.energy_j) && std::isfinite(p.flops / p.bytes) && std::isfinite(p.flops / p.energy_j);
}

// The modes that can be drawn: energy ceilings, the compute ceiling and a DRAM bandwidth; the others are named in
// the notes. Throws when none can.
std::vector<const hw::Roofline*> drawable_modes(const EnergyRooflineInput& input, std::vector<std::string>& notes) {
  std::vector<const hw::Roofline*> modes;
  for (const auto& r : input.modes) {
    if (!r.energy) {
      notes.push_back("mode " + r.mode + ": energy not predicted: " + r.energy_missing);
      continue;
    }
    if (roofline::flops_per_joule(r, input.peak_key, 1.0) <= 0) {
      notes.push_back(
          fmt::format("mode {}: no '{}' ceiling with energy per FLOP, or no DRAM bandwidth", r.mode, input.peak_key));
      continue;
    }
    modes.push_back(&r);
  }
  if (modes.empty())
    throw Error(fmt::format("no energy roofline to draw on '{}': {}", input.peak_key,
                            notes.empty() ? std::string("no power mode given") : notes.front()));
  return modes;
}

// x: every point, and every curve's bend (its ridge point) and energy balance, with room either side for the curves
// to reach their flat parts (past 30x its ridge point a curve is within a few percent of its top).
std::pair<double, double> x_domain(const EnergyRooflineInput& input, const std::vector<const hw::Roofline*>& modes,
                                   const std::vector<const EnergyPoint*>& drawn) {
  Extent x;
  for (const auto* p : drawn) x.cover_positive(p->flops / p->bytes);
  double flat_from = 0;
  for (const auto* r : modes) {
    x.cover_positive(r->ridge_point(input.peak_key));
    x.cover_positive(roofline::energy_balance(*r->energy, input.peak_key));
    flat_from = std::max(flat_from, 30 * r->ridge_point(input.peak_key));
  }
  if (x.empty()) x.cover(1);
  return decade_domain(x.lo / 3, std::max(x.hi * 3, flat_from));
}

// The legend line of a mode: how efficient it gets, and where its coefficients come from.
std::string mode_text(const hw::Roofline& r, double top) {
  return fmt::format("{}: up to {} ({})", r.mode, si(top, "FLOP/J"), r.energy->label);
}

// One curve per mode, sampled log-spaced over [x_min, x_max] with its ridge point added so the bend is drawn where
// it is; and each mode's bend.
struct Curves {
  Json rows = Json::array(), bends = Json::array();
  Extent y;
  std::set<std::string> labels;                    // the coefficients' sources
  std::vector<std::string> series;                 // the modes, in order
  std::map<std::string, std::string> legend_text;  // mode -> its legend line
};

Curves curves_of(const EnergyRooflineInput& input, const std::vector<const hw::Roofline*>& modes, double x_min,
                 double x_max) {
  Curves out;
  const int samples = static_cast<int>(std::lround(std::log10(x_max / x_min) * kEnergyCurveSamplesPerDecade));
  for (const auto* r : modes) {
    std::vector<double> xs;
    for (int i = 0; i <= samples; ++i) xs.push_back(x_min * std::pow(x_max / x_min, static_cast<double>(i) / samples));
    double ridge = r->ridge_point(input.peak_key);
    if (ridge > x_min && ridge < x_max) xs.push_back(ridge);
    std::sort(xs.begin(), xs.end());
    const auto& label = r->energy->label;
    out.labels.insert(label);
    out.series.push_back(r->mode);
    for (double x : xs) {
      double v = roofline::flops_per_joule(*r, input.peak_key, x);
      out.y.cover_positive(v);
      out.rows.push_back(Json{{"series", r->mode}, {"label", label}, {"intensity", x}, {"flops_per_joule", v}});
    }
    double top = roofline::flops_per_joule(*r, input.peak_key, x_max);
    out.bends.push_back(Json{{"series", r->mode},
                             {"label", label},
                             {"ridge_point", ridge},
                             {"ridge_flops_per_joule", roofline::flops_per_joule(*r, input.peak_key, ridge)},
                             {"energy_balance", roofline::energy_balance(*r->energy, input.peak_key)},
                             {"top_flops_per_joule", top},
                             {"text", mode_text(*r, top)}});
    out.legend_text[r->mode] = mode_text(*r, top);
  }
  return out;
}

// The modes (each named with its top efficiency: long on purpose, so not shortened), the coefficients' sources
// and, with points, their op families.
Json legends_of(const EnergyRooflineInput& input, const Curves& curves, bool points) {
  Json modes = legend("stroke", "series_color", "power mode (" + input.peak_key + " ceiling)", "stroke");
  modes["titleLimit"] = 300, modes["labelLimit"] = 360;
  modes["encode"] = {
      {"labels",
       {{"update", {{"text", {{"signal", lookup_expr(curves.legend_text, "datum.value", "datum.label")}}}}}}}};
  Json sources = legend("strokeDash", "dash", "energy coefficients", "stroke");
  sources["values"] = Json(std::vector<std::string>(curves.labels.begin(), curves.labels.end()));
  Json legends = Json::array({modes, sources});
  if (points) {
    Json families = legend("fill", "color", "op family (nodes in " + input.points_series + ")", "circle");
    families["titleLimit"] = 300;
    legends.push_back(families);
  }
  return legends;
}

Json bend_layer() {
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
  return bends;
}

Json point_layer() {
  Json symbols = share_points("points", "intensity", "flops_per_joule");
  add_tooltip(symbols["encode"]["enter"], {{"node", "datum.name"},
                                           {"op", "datum.op"},
                                           {"ceiling", "datum.ceiling"},
                                           {"FLOPs", si_expr("flops", "FLOP")},
                                           {"bytes", si_expr("bytes", "B")},
                                           {"intensity", "format(datum.intensity, '.4~r') + ' FLOP/B'"},
                                           {"energy", si_expr("energy_j", "J") + " + ' (' + datum.label + ')'"},
                                           {"efficiency", si_expr("flops_per_joule", "FLOP/J")},
                                           {"mode", "datum.series"}});
  return symbols;
}

}  // namespace

Figure energy_roofline_figure(const EnergyRooflineInput& input) {
  Figure fig{.kind = "energy-roofline", .title = input.title};
  const auto modes = drawable_modes(input, fig.notes);
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
  auto [x_min, x_max] = x_domain(input, modes, drawn);

  auto curves = curves_of(input, modes, x_min, x_max);
  Extent y = curves.y;
  Json points = Json::array();
  for (const auto* p : drawn) {
    y.cover_positive(p->flops / p->energy_j);
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
  auto [y_min, y_max] = decade_domain(y.lo / 1.5, y.hi * 2);

  Json spec = base_spec(input.title, 640, 420);
  add_data(spec, "curves", std::move(curves.rows));
  add_data(spec, "bends", std::move(curves.bends));
  add_data(spec, "points", std::move(points));
  spec["scales"] = Json::array(
      {log_scale("x", x_min, x_max, "width"), log_scale("y", y_min, y_max, "height"),
       category_scale("color", field_domain("points", "family"), "tableau10"),
       category_scale("series_color", curves.series, "dark2"),
       ordinal_scale("dash", {hw::kMeasured, hw::kDatasheet, hw::kEstimate}, {Json::array(), {2, 2}, {7, 3}}),
       share_size_scale()});
  spec["axes"] = log_log_axes("arithmetic intensity (FLOP/byte)", "energy efficiency (FLOP/J)");
  spec["legends"] = legends_of(input, curves, !drawn.empty());
  spec["marks"] = Json::array({series_lines({.data = "curves",
                                             .facet = "curve",
                                             .group_field = "series",
                                             .x_field = "intensity",
                                             .y_field = "flops_per_joule",
                                             .color_scale = "series_color",
                                             .dash_field = "label",
                                             .name = "curve_lines"}),
                               bend_layer(), point_layer()});
  fig.spec = std::move(spec);
  if (curves.labels.count(hw::kEstimate))
    fig.notes.push_back(
        "curves labelled estimate come from energy coefficients estimated by the rule in docs/energy.md, not "
        "measured");
  if (!skipped.empty())
    fig.notes.push_back(not_drawn_note(skipped, "without FLOPs, bytes or predicted energy are not drawn"));
  return fig;
}

}  // namespace ridge::report::figure
