#include "report/figure/roofline_figure.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "report/figure/axes.h"
#include "report/figure/ceiling_layer.h"
#include "report/figure/legends.h"
#include "report/figure/marks.h"
#include "report/figure/scales.h"
#include "report/format.h"
#include "util/error.h"

namespace ridge::report::figure {

std::vector<RooflineCeiling> ceilings_of(const hw::Roofline& roofline, const std::string& series) {
  std::vector<RooflineCeiling> out;
  for (const auto& [key, c] : roofline.peak_flops)
    if (c.value > 0) out.push_back({series, key, true, c.value, c.label});
  for (const auto& [key, c] : roofline.bandwidth)
    if (c.value > 0) out.push_back({series, key, false, c.value, c.label});
  return out;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kWidthPx = 640, kHeightPx = 420;  // the plot area (base_spec)

struct SeriesPeaks {
  double max_flops = 0, max_bandwidth = 0;
};

// The input sorted out: what can be drawn, and what each series needs to draw it.
struct Drawn {
  std::map<std::string, SeriesPeaks> peaks;
  // Ceiling series are told apart by colour, point series by shape; both in the order given.
  std::vector<std::string> ceiling_series, point_series;
  std::vector<const RooflinePoint*> points;
  std::vector<std::string> skipped;  // points without FLOPs, bytes or time
  std::map<std::string, double> series_time_s;
};

void add_once(std::vector<std::string>& list, const std::string& s) {
  if (std::find(list.begin(), list.end(), s) == list.end()) list.push_back(s);
}

Drawn sort_out(const RooflineInput& input) {
  Drawn d;
  for (const auto& c : input.ceilings) {
    add_once(d.ceiling_series, c.series);
    auto& top = c.compute ? d.peaks[c.series].max_flops : d.peaks[c.series].max_bandwidth;
    top = std::max(top, c.value);
  }
  for (const auto& p : input.points) {
    if (p.flops > 0 && p.bytes > 0 && p.time_s > 0 && std::isfinite(p.flops / p.bytes) &&
        std::isfinite(p.flops / p.time_s) && std::isfinite(p.flops) && std::isfinite(p.time_s)) {
      d.points.push_back(&p);
      add_once(d.point_series, p.series);
    } else {
      d.skipped.push_back(p.name);
    }
  }
  // A point's size is its share of its series' time; a kernel's time counts once, not once per level.
  std::set<std::pair<std::string, std::string>> counted;
  for (const auto* p : d.points)
    if (!input.hierarchical || counted.insert({p->series, p->name}).second) d.series_time_s[p->series] += p->time_s;
  return d;
}

// The axes cover every point and every ridge point (where a ceiling meets the top one of the other kind), with
// room around them; y reaches four decades under the top ceiling, so the bandwidth lines show their slope.
LogLogFrame frame_of(const RooflineInput& input, const Drawn& d) {
  Extent x, y;
  for (const auto* p : d.points) x.cover(p->flops / p->bytes), y.cover(p->flops / p->time_s);
  for (const auto& c : input.ceilings) {
    const auto& s = d.peaks.at(c.series);
    if (c.compute) {
      y.cover(c.value);
      if (s.max_bandwidth > 0) x.cover(c.value / s.max_bandwidth);
    } else if (s.max_flops > 0) {
      x.cover(s.max_flops / c.value);
    }
  }
  if (x.empty()) x.cover(1);
  if (y.empty()) y.cover(1);
  auto [x_min, x_max] = decade_domain(x.lo / 2, x.hi * 2);
  auto [y_min, y_max] = decade_domain(std::min(y.lo, y.hi / 1e4) / 2, y.hi * 1.5);
  return {x_min, x_max, y_min, y_max, kWidthPx, kHeightPx};
}

// One segment per ceiling: a compute ceiling from where the series' highest bandwidth reaches it to the right
// edge; a bandwidth from the bottom (or left) edge to where it meets the series' highest compute ceiling.
Json ceiling_rows(const RooflineInput& input, const Drawn& d, const LogLogFrame& f) {
  Json rows = Json::array();
  for (const auto& c : input.ceilings) {
    const auto& s = d.peaks.at(c.series);
    Json row{{"series", c.series},
             {"key", c.key},
             {"kind", c.compute ? "compute" : "memory"},
             {"label", c.label},
             {"value", c.value}};
    double x1, y1, x2, y2;
    if (c.compute) {
      x1 = s.max_bandwidth > 0 ? std::max(f.x_min, c.value / s.max_bandwidth) : f.x_min;
      y1 = y2 = c.value, x2 = f.x_max;
      row["text"] = c.key + " " + si(c.value, "FLOP/s") + " (" + c.label + ")";
      row["label_x"] = f.x_max, row["label_y"] = c.value;  // until placed (a merged label stays empty here)
    } else {
      x1 = std::max(f.x_min, f.y_min / c.value);
      x2 = s.max_flops > 0 ? std::min(f.x_max, s.max_flops / c.value) : f.x_max;
      y1 = c.value * x1, y2 = c.value * x2;
      row["text"] = c.key + " " + si(c.value, "B/s") + " (" + c.label + ")";
      row["label_x"] = x1 * 1.3, row["label_y"] = c.value * x1 * 1.3;
    }
    row["x1"] = x1, row["y1"] = y1, row["x2"] = x2, row["y2"] = y2;
    row["tip"] = row["text"];  // the line's own ceiling, kept where merge_equal_labels empties the label
    rows.push_back(std::move(row));
  }
  return rows;
}

// Ceilings of one series at the same value and source (fp32 and fp64 tensor on an H100) would print their labels
// on top of each other: the first carries one label naming them all, the others none.
void merge_equal_labels(Json& ceilings) {
  for (size_t i = 0; i < ceilings.size(); ++i) {
    auto& first = ceilings[i];
    if (first["text"] == "") continue;
    std::string keys = first["key"];
    for (size_t j = i + 1; j < ceilings.size(); ++j) {
      auto& other = ceilings[j];
      if (other["series"] == first["series"] && other["kind"] == first["kind"] && other["value"] == first["value"] &&
          other["label"] == first["label"]) {
        keys += ", " + other["key"].get<std::string>();
        other["text"] = "";
      }
    }
    auto text = first["text"].get<std::string>();
    first["text"] = keys + text.substr(first["key"].get<std::string>().size());
  }
  // Equal ceilings of several series (three power modes of a Jetson share one DRAM bandwidth) are one line drawn
  // over itself, with no room beside it for a label per series: one label serves them all, on the shortest segment
  // (the part they share; of equal ones the last drawn, whose colour shows).
  auto span = [](const Json& row) { return row["x2"].get<double>() / row["x1"].get<double>(); };
  for (size_t i = 0; i < ceilings.size(); ++i) {
    if (ceilings[i]["text"] == "") continue;
    size_t keep = i;
    std::vector<size_t> same{i};
    for (size_t j = i + 1; j < ceilings.size(); ++j) {
      const auto& other = ceilings[j];
      if (other["text"] == ceilings[i]["text"] && other["kind"] == ceilings[i]["kind"] &&
          other["value"] == ceilings[i]["value"] && other["label"] == ceilings[i]["label"]) {
        same.push_back(j);
        if (span(other) <= span(ceilings[keep])) keep = j;
      }
    }
    for (size_t j : same)
      if (j != keep) ceilings[j]["text"] = "";
  }
}

Json point_rows(const Drawn& d) {
  Json rows = Json::array();
  for (const auto* p : d.points) {
    double total = d.series_time_s.at(p->series);
    rows.push_back(Json{{"series", p->series},
                        {"name", p->name},
                        {"op", p->op},
                        {"family", p->family.empty() ? p->op : p->family},
                        {"level", p->level},
                        {"flops", p->flops},
                        {"bytes", p->bytes},
                        {"time_s", p->time_s},
                        {"time_kind", p->time_kind},
                        {"intensity", p->flops / p->bytes},
                        {"flops_per_s", p->flops / p->time_s},
                        {"share", total > 0 ? p->time_s / total : 0}});
  }
  return rows;
}

// Hierarchical: one horizontal link per kernel, from its lowest to its highest intensity over the memory levels.
Json link_rows(const Drawn& d) {
  Json links = Json::array();
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> span;
  for (const auto* p : d.points) {
    auto [it, fresh] = span.try_emplace({p->series, p->name}, kInf, 0.0);
    it->second.first = std::min(it->second.first, p->flops / p->bytes);
    it->second.second = std::max(it->second.second, p->flops / p->bytes);
  }
  for (const auto* p : d.points) {
    auto it = span.find({p->series, p->name});
    if (it == span.end()) continue;
    links.push_back(Json{{"series", p->series},
                         {"name", p->name},
                         {"family", p->family.empty() ? p->op : p->family},
                         {"x1", it->second.first},
                         {"x2", it->second.second},
                         {"y", p->flops / p->time_s}});
    span.erase(it);
  }
  return links;
}

Json link_layer() {
  return Json{{"type", "rule"},
              {"from", {{"data", "links"}}},
              {"encode",
               {{"enter",
                 {{"x", {{"scale", "x"}, {"field", "x1"}}},
                  {"x2", {{"scale", "x"}, {"field", "x2"}}},
                  {"y", {{"scale", "y"}, {"field", "y"}}},
                  {"stroke", {{"scale", "color"}, {"field", "family"}}},
                  {"strokeOpacity", {{"value", 0.5}}}}}}}};
}

// The points: colour by family, area by share, shape by series (or memory level) where there are several.
Json point_layer(const RooflineInput& input, const Drawn& d) {
  Json symbols = share_points("points", "intensity", "flops_per_s");
  auto& enter = symbols["encode"]["enter"];
  if (input.hierarchical || d.point_series.size() > 1)
    enter["shape"] = {{"scale", "shape"}, {"field", input.hierarchical ? "level" : "series"}};
  std::vector<TooltipField> tip{{input.hierarchical ? "kernel" : "node", "datum.name"},
                                {"op", "datum.op"},
                                {"FLOPs", si_expr("flops", "FLOP")},
                                {"bytes", si_expr("bytes", "B")},
                                {"intensity", "format(datum.intensity, '.4~r') + ' FLOP/B'"},
                                {"time", ms_expr("time_s") + " + ' (' + datum.time_kind + ')'"},
                                {"achieved", si_expr("flops_per_s", "FLOP/s")}};
  if (input.hierarchical) tip.insert(tip.begin() + 1, {"level", "datum.level"});
  if (d.point_series.size() > 1) tip.push_back({"series", "datum.series"});
  add_tooltip(enter, tip);
  return symbols;
}

Json scales_of(const RooflineInput& input, const Drawn& d, const LogLogFrame& f) {
  return Json::array(
      {log_scale("x", f.x_min, f.x_max, "width"), log_scale("y", f.y_min, f.y_max, "height"),
       category_scale("color", field_domain("points", "family"), "tableau10"),
       category_scale("series_color", d.ceiling_series, "dark2"),
       ordinal_scale("dash", {hw::kDatasheet, hw::kTheoretical, hw::kMeasured}, {Json::array(), {6, 3}, {2, 2}}),
       share_size_scale(),
       ordinal_scale("shape", input.hierarchical ? field_domain("points", "level") : Json(d.point_series),
                     {"circle", "square", "triangle-up", "diamond", "cross", "triangle-down"})});
}

Json legends_of(const RooflineInput& input, const Drawn& d) {
  Json legends = Json::array({legend("fill", "color", input.hierarchical ? "kernel group" : "op family", "circle"),
                              category_legend("stroke", "series_color", "device / mode", d.ceiling_series, "stroke"),
                              legend("strokeDash", "dash", "ceiling source", "stroke")});
  if (input.hierarchical)
    legends.push_back(legend("shape", "shape", "memory level"));
  else if (d.point_series.size() > 1)
    legends.push_back(category_legend("shape", "shape", "series", d.point_series));
  return legends;
}

}  // namespace

Figure roofline_figure(const RooflineInput& input) {
  Figure fig{.kind = input.hierarchical ? "hierarchical-roofline" : "roofline", .title = input.title};
  const auto d = sort_out(input);
  if (d.points.empty() && input.ceilings.empty())
    throw Error("nothing to draw: no ceilings and no point with FLOPs, bytes and time");
  const auto frame = frame_of(input, d);
  Json spec = base_spec(input.title, kWidthPx, kHeightPx);
  Json ceilings = ceiling_rows(input, d, frame);
  merge_equal_labels(ceilings);
  std::vector<std::pair<double, double>> point_pixels;
  for (const auto* p : d.points) point_pixels.emplace_back(frame.x(p->flops / p->bytes), frame.y(p->flops / p->time_s));
  place_ceiling_labels(ceilings, frame, point_pixels);
  add_data(spec, "ceilings", std::move(ceilings));
  add_data(spec, "points", point_rows(d));
  spec["scales"] = scales_of(input, d, frame);
  spec["axes"] = log_log_axes("arithmetic intensity (FLOP/byte)", "performance (FLOP/s)");
  spec["legends"] = legends_of(input, d);
  spec["marks"] = ceiling_layer("ceilings", "series_color", "dash");
  if (input.hierarchical) {
    add_data(spec, "links", link_rows(d));
    spec["marks"].push_back(link_layer());
  }
  spec["marks"].push_back(point_layer(input, d));
  fig.spec = std::move(spec);
  if (!d.skipped.empty()) fig.notes.push_back(not_drawn_note(d.skipped, "without FLOPs, bytes or time are not drawn"));
  return fig;
}

}  // namespace ridge::report::figure
