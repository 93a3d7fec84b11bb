#include "report/figure/roofline_figure.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

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

struct SeriesPeaks {
  double max_flops = 0, max_bandwidth = 0;
};

Json ceiling_marks() {
  Json rules = {{"type", "rule"},
                {"name", "ceiling_lines"},
                {"from", {{"data", "ceilings"}}},
                {"encode",
                 {{"enter",
                   {{"x", {{"scale", "x"}, {"field", "x1"}}},
                    {"y", {{"scale", "y"}, {"field", "y1"}}},
                    {"x2", {{"scale", "x"}, {"field", "x2"}}},
                    {"y2", {{"scale", "y"}, {"field", "y2"}}},
                    {"stroke", {{"scale", "series_color"}, {"field", "series"}}},
                    {"strokeWidth", {{"value", 1.6}}},
                    {"strokeDash", {{"scale", "dash"}, {"field", "label"}}}}}}}};
  add_tooltip(rules["encode"]["enter"], {{"ceiling", "datum.text"}, {"series", "datum.series"}});
  Json labels = {{"type", "text"},
                 {"from", {{"data", "ceilings"}}},
                 {"encode",
                  {{"enter",
                    {{"x", {{"scale", "x"}, {"field", "label_x"}}},
                     {"y", {{"scale", "y"}, {"field", "label_y"}}},
                     {"text", {{"field", "text"}}},
                     {"align", {{"signal", "datum.kind === 'compute' ? 'right' : 'left'"}}},
                     {"baseline", {{"value", "bottom"}}},
                     {"dy", {{"value", -2}}},
                     {"fontSize", {{"value", 10}}},
                     {"fill", {{"scale", "series_color"}, {"field", "series"}}}}}}}};
  return Json::array({rules, labels});
}

}  // namespace

Figure roofline_figure(const RooflineInput& input) {
  Figure fig{.kind = input.hierarchical ? "hierarchical-roofline" : "roofline", .title = input.title};
  // Series peaks, and the points that can be drawn.
  std::map<std::string, SeriesPeaks> peaks;
  // Ceiling series are told apart by colour, point series by shape.
  std::vector<std::string> ceiling_series, series_order;
  auto note = [](std::vector<std::string>& list, const std::string& s) {
    if (std::find(list.begin(), list.end(), s) == list.end()) list.push_back(s);
  };
  for (const auto& c : input.ceilings) {
    note(ceiling_series, c.series);
    auto& p = peaks[c.series];
    (c.compute ? p.max_flops : p.max_bandwidth) = std::max(c.compute ? p.max_flops : p.max_bandwidth, c.value);
  }
  std::map<std::string, double> series_time_s;
  std::vector<const RooflinePoint*> drawn;
  std::vector<std::string> skipped;
  for (const auto& p : input.points) {
    if (p.flops > 0 && p.bytes > 0 && p.time_s > 0 && std::isfinite(p.flops / p.bytes) &&
        std::isfinite(p.flops / p.time_s) && std::isfinite(p.flops) && std::isfinite(p.time_s)) {
      drawn.push_back(&p);
      note(series_order, p.series);
    } else {
      skipped.push_back(p.name);
    }
  }
  // A point's size is its share of its series' time; a kernel's time counts once, not once per level.
  std::set<std::pair<std::string, std::string>> counted;
  for (const auto* p : drawn)
    if (!input.hierarchical || counted.insert({p->series, p->name}).second) series_time_s[p->series] += p->time_s;
  if (drawn.empty() && input.ceilings.empty())
    throw Error("nothing to draw: no ceilings and no point with FLOPs, bytes and time");

  // Axis ranges: every point, and every ridge point (where a ceiling meets the top one of the other kind).
  double x_lo = kInf, x_hi = 0, y_lo = kInf, y_hi = 0;
  auto cover_x = [&](double x) { x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x); };
  auto cover_y = [&](double y) { y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y); };
  for (const auto* p : drawn) cover_x(p->flops / p->bytes), cover_y(p->flops / p->time_s);
  for (const auto& c : input.ceilings) {
    const auto& s = peaks[c.series];
    if (c.compute) {
      cover_y(c.value);
      if (s.max_bandwidth > 0) cover_x(c.value / s.max_bandwidth);
    } else if (s.max_flops > 0) {
      cover_x(s.max_flops / c.value);
    }
  }
  if (x_hi == 0) cover_x(1);
  if (y_hi == 0) cover_y(1);
  auto [x_min, x_max] = decade_domain(x_lo / 2, x_hi * 2);
  double lowest = y_lo;
  for (const auto* p : drawn) lowest = std::min(lowest, p->flops / p->time_s);
  auto [y_min, y_max] = decade_domain(std::min(lowest, y_hi / 1e4) / 2, y_hi * 1.5);

  Json spec = base_spec(input.title, 640, 420);
  Json ceilings = Json::array();
  for (const auto& c : input.ceilings) {
    const auto& s = peaks[c.series];
    Json row{{"series", c.series},
             {"key", c.key},
             {"kind", c.compute ? "compute" : "memory"},
             {"label", c.label},
             {"value", c.value}};
    double x1, y1, x2, y2;
    if (c.compute) {
      x1 = s.max_bandwidth > 0 ? std::max(x_min, c.value / s.max_bandwidth) : x_min;
      y1 = y2 = c.value, x2 = x_max;
      row["text"] = c.key + " " + si(c.value, "FLOP/s") + " (" + c.label + ")";
      row["label_x"] = x_max, row["label_y"] = c.value;
    } else {
      x1 = std::max(x_min, y_min / c.value);
      x2 = s.max_flops > 0 ? std::min(x_max, s.max_flops / c.value) : x_max;
      y1 = c.value * x1, y2 = c.value * x2;
      row["text"] = c.key + " " + si(c.value, "B/s") + " (" + c.label + ")";
      row["label_x"] = x1 * 1.3, row["label_y"] = c.value * x1 * 1.3;
    }
    row["x1"] = x1, row["y1"] = y1, row["x2"] = x2, row["y2"] = y2;
    ceilings.push_back(std::move(row));
  }
  // Ceilings of one series at the same value and source (fp32 and fp64 tensor on an H100) would print
  // their labels on top of each other: the first carries one label naming them all.
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
  add_data(spec, "ceilings", std::move(ceilings));

  Json points = Json::array();
  for (const auto* p : drawn) {
    double total = series_time_s[p->series];
    points.push_back(Json{{"series", p->series},
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
  add_data(spec, "points", std::move(points));

  spec["scales"] = Json::array(
      {{{"name", "x"}, {"type", "log"}, {"domain", {x_min, x_max}}, {"range", "width"}, {"nice", false}},
       {{"name", "y"}, {"type", "log"}, {"domain", {y_min, y_max}}, {"range", "height"}, {"nice", false}},
       {{"name", "color"},
        {"type", "ordinal"},
        {"domain", {{"data", "points"}, {"field", "family"}, {"sort", true}}},
        {"range", {{"scheme", "tableau10"}}}},
       {{"name", "series_color"}, {"type", "ordinal"}, {"domain", ceiling_series}, {"range", {{"scheme", "dark2"}}}},
       {{"name", "dash"},
        {"type", "ordinal"},
        {"domain", {hw::kDatasheet, hw::kTheoretical, hw::kMeasured}},
        {"range", {Json::array(), {6, 3}, {2, 2}}}},
       {{"name", "size"}, {"type", "linear"}, {"domain", {0, 1}}, {"range", {25, 900}}, {"zero", true}},
       {{"name", "shape"},
        {"type", "ordinal"},
        {"domain",
         input.hierarchical ? Json{{"data", "points"}, {"field", "level"}, {"sort", true}} : Json(series_order)},
        {"range", {"circle", "square", "triangle-up", "diamond", "cross", "triangle-down"}}}});
  spec["axes"] = Json::array({{{"orient", "bottom"},
                               {"scale", "x"},
                               {"title", "arithmetic intensity (FLOP/byte)"},
                               {"grid", true},
                               {"gridOpacity", 0.15},
                               {"format", "~g"}},
                              {{"orient", "left"},
                               {"scale", "y"},
                               {"title", "performance (FLOP/s)"},
                               {"grid", true},
                               {"gridOpacity", 0.15},
                               {"format", "~s"}}});
  spec["legends"] = Json::array(
      {{{"fill", "color"},
        {"title", input.hierarchical ? "kernel group" : "op family"},
        {"symbolType", "circle"},
        {"orient", "right"}},
       {{"stroke", "series_color"}, {"title", "device / mode"}, {"symbolType", "stroke"}, {"orient", "right"}},
       {{"strokeDash", "dash"}, {"title", "ceiling source"}, {"symbolType", "stroke"}, {"orient", "right"}}});
  if (input.hierarchical || series_order.size() > 1)
    spec["legends"].push_back(
        {{"shape", "shape"}, {"title", input.hierarchical ? "memory level" : "series"}, {"orient", "right"}});
  spec["marks"] = ceiling_marks();
  if (input.hierarchical) {
    Json links = Json::array();
    std::map<std::pair<std::string, std::string>, std::pair<double, double>> span;
    for (const auto* p : drawn) {
      auto [it, fresh] = span.try_emplace({p->series, p->name}, kInf, 0.0);
      it->second.first = std::min(it->second.first, p->flops / p->bytes);
      it->second.second = std::max(it->second.second, p->flops / p->bytes);
    }
    for (const auto* p : drawn) {
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
    add_data(spec, "links", std::move(links));
    spec["marks"].push_back({{"type", "rule"},
                             {"from", {{"data", "links"}}},
                             {"encode",
                              {{"enter",
                                {{"x", {{"scale", "x"}, {"field", "x1"}}},
                                 {"x2", {{"scale", "x"}, {"field", "x2"}}},
                                 {"y", {{"scale", "y"}, {"field", "y"}}},
                                 {"stroke", {{"scale", "color"}, {"field", "family"}}},
                                 {"strokeOpacity", {{"value", 0.5}}}}}}}});
  }
  Json symbols = {{"type", "symbol"},
                  {"name", "point_marks"},
                  {"from", {{"data", "points"}}},
                  {"encode",
                   {{"enter",
                     {{"x", {{"scale", "x"}, {"field", "intensity"}}},
                      {"y", {{"scale", "y"}, {"field", "flops_per_s"}}},
                      {"size", {{"scale", "size"}, {"field", "share"}}},
                      {"fill", {{"scale", "color"}, {"field", "family"}}},
                      {"fillOpacity", {{"value", 0.75}}},
                      {"stroke", {{"value", "#333"}}},
                      {"strokeWidth", {{"value", 0.5}}}}},
                    {"hover", {{"fillOpacity", {{"value", 1}}}, {"strokeWidth", {{"value", 2}}}}},
                    {"update", {{"fillOpacity", {{"value", 0.75}}}, {"strokeWidth", {{"value", 0.5}}}}}}}};
  if (input.hierarchical || series_order.size() > 1)
    symbols["encode"]["enter"]["shape"] = {{"scale", "shape"}, {"field", input.hierarchical ? "level" : "series"}};
  std::vector<TooltipField> tip{{input.hierarchical ? "kernel" : "node", "datum.name"},
                                {"op", "datum.op"},
                                {"FLOPs", si_expr("flops", "FLOP")},
                                {"bytes", si_expr("bytes", "B")},
                                {"intensity", "format(datum.intensity, '.4~r') + ' FLOP/B'"},
                                {"time", ms_expr("time_s") + " + ' (' + datum.time_kind + ')'"},
                                {"achieved", si_expr("flops_per_s", "FLOP/s")}};
  if (input.hierarchical) tip.insert(tip.begin() + 1, {"level", "datum.level"});
  if (series_order.size() > 1) tip.push_back({"series", "datum.series"});
  add_tooltip(symbols["encode"]["enter"], tip);
  spec["marks"].push_back(std::move(symbols));
  fig.spec = std::move(spec);
  if (!skipped.empty()) {
    std::vector<std::string> unique;
    for (const auto& name : skipped)
      if (std::find(unique.begin(), unique.end(), name) == unique.end()) unique.push_back(name);
    std::string names;
    for (size_t i = 0; i < unique.size() && i < 5; ++i) names += (i ? ", " : "") + unique[i];
    fig.notes.push_back(std::to_string(unique.size()) + " node(s) without FLOPs, bytes or time are not drawn (" +
                        names + (unique.size() > 5 ? ", ..." : "") + ")");
  }
  return fig;
}

}  // namespace ridge::report::figure
