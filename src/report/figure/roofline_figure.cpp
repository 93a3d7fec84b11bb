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
constexpr int kWidthPx = 640, kHeightPx = 420;  // the plot area (base_spec)
constexpr int kLabelFontPx = 10;
// A ceiling label's extent at kLabelFontPx in sans-serif: about 0.55 em per character, 8 px above the baseline
// and 2 below. Estimates on the wide side: placement keeps a margin rather than measuring glyphs.
constexpr double kCharPx = 5.6, kAscentPx = 8, kDescentPx = 2;

// Pixel positions of the log-log plot area (y from the top, as drawn).
struct Pixels {
  double lx0, lx1, ly0, ly1;
  double x(double v) const { return (std::log10(v) - lx0) / (lx1 - lx0) * kWidthPx; }
  double y(double v) const { return (1 - (std::log10(v) - ly0) / (ly1 - ly0)) * kHeightPx; }
  double x_value(double px) const { return std::pow(10.0, lx0 + px / kWidthPx * (lx1 - lx0)); }
  double y_value(double py) const { return std::pow(10.0, ly0 + (1 - py / kHeightPx) * (ly1 - ly0)); }
};

struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

struct Segment {
  double x0, y0, x1, y1;
  // Whether the segment passes through `b` (sampled finely enough for boxes of a few pixels).
  bool crosses(const Box& b) const {
    for (int i = 0; i <= 200; ++i) {
      double t = i / 200.0, x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0);
      if (x > b.x0 && x < b.x1 && y > b.y0 && y < b.y1) return true;
    }
    return false;
  }
};

// Where one label goes: its anchor (baseline point) and alignment; the box it covers.
struct Placement {
  double px, py;
  bool right_aligned;
  Box box;
};

Placement place_at(double px, double py, bool right_aligned, double width) {
  Box b{right_aligned ? px - width : px, py - kAscentPx, right_aligned ? px : px + width, py + kDescentPx};
  return {px, py, right_aligned, b};
}

// Ceiling labels that overlap neither each other nor their own line, inside the plot area, crossing as few other
// ceiling lines as they can: compute ceilings (highest first) try above their line at its right end, below it,
// then further left, along it and beyond its start at its height; memory ceilings try points along their line,
// below-right of it (the line rises away from the text) or above-left. Crossing another ceiling's line costs
// three, covering a point one (a label on another line reads as that line's). The first candidate of least cost
// wins.
void place_labels(Json& ceilings, const Pixels& px, const std::vector<std::pair<double, double>>& points) {
  std::vector<Segment> lines;
  for (const auto& c : ceilings)
    lines.push_back({px.x(c["x1"].get<double>()), px.y(c["y1"].get<double>()), px.x(c["x2"].get<double>()),
                     px.y(c["y2"].get<double>())});
  std::vector<size_t> order(ceilings.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    bool ca = ceilings[a]["kind"] == "compute", cb = ceilings[b]["kind"] == "compute";
    if (ca != cb) return ca;
    return ceilings[a]["value"].get<double>() > ceilings[b]["value"].get<double>();
  });
  std::vector<Box> placed;
  // Leaving the plot area or covering another label is never chosen when anything else is possible; crossing
  // its own line neither; crossing another ceiling's line costs three, covering a point one.
  auto cost = [&](const Box& b, size_t own) {
    int c = 0;
    if (b.x0 < 0 || b.x1 > kWidthPx || b.y0 < 0 || b.y1 > kHeightPx) c += 10000;
    for (const auto& o : placed)
      if (o.overlaps(b)) c += 1000;
    for (size_t j = 0; j < lines.size(); ++j)
      if (lines[j].crosses(b)) c += j == own ? 1000 : 3;
    for (const auto& [x, y] : points)  // a point under the text: it hides the point
      if (x > b.x0 - 4 && x < b.x1 + 4 && y > b.y0 - 4 && y < b.y1 + 4) c += 1;
    return c;
  };
  for (size_t i : order) {
    auto& c = ceilings[i];
    const auto text = c["text"].get<std::string>();
    if (text.empty()) continue;
    const double width = kCharPx * static_cast<double>(text.size());
    const auto& l = lines[i];
    std::vector<Placement> candidates;
    if (c["kind"] == "compute") {
      // Along the line first; then further left at the line's height, where the line has not started.
      for (double right = l.x1; right - width >= 0; right -= width / 2) {
        candidates.push_back(place_at(right, l.y0 - 3, true, width));
        candidates.push_back(place_at(right, l.y0 + 3 + kAscentPx, true, width));
      }
      if (candidates.empty()) candidates.push_back(place_at(l.x1, l.y0 - 3, true, width));
    } else {
      for (int k = 0; k <= 24; ++k) {
        double t = k / 24.0, x = l.x0 + t * (l.x1 - l.x0), y = l.y0 + t * (l.y1 - l.y0);
        candidates.push_back(place_at(x + 3, y + 3 + kAscentPx, false, width));
        candidates.push_back(place_at(x - 3, y - 3, true, width));
      }
    }
    const Placement* chosen = &candidates.front();
    int best = cost(chosen->box, i);
    for (const auto& p : candidates) {
      int c = cost(p.box, i);
      if (c < best) chosen = &p, best = c;
      if (best == 0) break;
    }
    placed.push_back(chosen->box);
    c["label_x"] = px.x_value(chosen->px);
    c["label_y"] = px.y_value(chosen->py);
    c["label_align"] = chosen->right_aligned ? "right" : "left";
  }
}

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
                     {"align", {{"field", "label_align"}}},
                     {"baseline", {{"value", "alphabetic"}}},
                     {"fontSize", {{"value", kLabelFontPx}}},
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

  Json spec = base_spec(input.title, kWidthPx, kHeightPx);
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
  const Pixels pixels{std::log10(x_min), std::log10(x_max), std::log10(y_min), std::log10(y_max)};
  std::vector<std::pair<double, double>> point_pixels;
  for (const auto* p : drawn) point_pixels.emplace_back(pixels.x(p->flops / p->bytes), pixels.y(p->flops / p->time_s));
  place_labels(ceilings, pixels, point_pixels);
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
