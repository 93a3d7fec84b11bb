#include "report/figure/ceiling_layer.h"

#include <algorithm>
#include <cmath>

namespace ridge::report::figure {

double LogLogFrame::x(double v) const {
  return (std::log10(v) - std::log10(x_min)) / (std::log10(x_max) - std::log10(x_min)) * width;
}
double LogLogFrame::y(double v) const {
  return (1 - (std::log10(v) - std::log10(y_min)) / (std::log10(y_max) - std::log10(y_min))) * height;
}
double LogLogFrame::x_value(double px) const {
  return std::pow(10.0, std::log10(x_min) + px / width * (std::log10(x_max) - std::log10(x_min)));
}
double LogLogFrame::y_value(double py) const {
  return std::pow(10.0, std::log10(y_min) + (1 - py / height) * (std::log10(y_max) - std::log10(y_min)));
}

namespace {

constexpr double kCharPx = kLabelCharEm * kCeilingLabelFontPx, kAscentPx = kLabelAscentEm * kCeilingLabelFontPx,
                 kDescentPx = kLabelDescentEm * kCeilingLabelFontPx;

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

// The candidates of one label, best first: compute ceilings (horizontal) above their line at its right end, below
// it, then further left, along it and beyond its start at its height; memory ceilings at points along their line,
// below-right of it (the line rises away from the text) or above-left.
std::vector<Placement> candidates(const Json& ceiling, const Segment& l, double width) {
  std::vector<Placement> out;
  if (ceiling["kind"] == "compute") {
    for (double right = l.x1; right - width >= 0; right -= width / 2) {
      out.push_back(place_at(right, l.y0 - 3, true, width));
      out.push_back(place_at(right, l.y0 + 3 + kAscentPx, true, width));
    }
    if (out.empty()) out.push_back(place_at(l.x1, l.y0 - 3, true, width));
  } else {
    for (int k = 0; k <= 24; ++k) {
      double t = k / 24.0, x = l.x0 + t * (l.x1 - l.x0), y = l.y0 + t * (l.y1 - l.y0);
      out.push_back(place_at(x + 3, y + 3 + kAscentPx, false, width));
      out.push_back(place_at(x - 3, y - 3, true, width));
    }
  }
  return out;
}

}  // namespace

// Compute ceilings are placed first, highest first, then the bandwidths: the horizontal lines have the fewest
// free places. The first candidate of least cost wins.
void place_ceiling_labels(Json& ceilings, const LogLogFrame& frame,
                          const std::vector<std::pair<double, double>>& points) {
  std::vector<Segment> lines;
  for (const auto& c : ceilings)
    lines.push_back({frame.x(c["x1"].get<double>()), frame.y(c["y1"].get<double>()), frame.x(c["x2"].get<double>()),
                     frame.y(c["y2"].get<double>())});
  std::vector<size_t> order(ceilings.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    bool ca = ceilings[a]["kind"] == "compute", cb = ceilings[b]["kind"] == "compute";
    if (ca != cb) return ca;
    return ceilings[a]["value"].get<double>() > ceilings[b]["value"].get<double>();
  });
  std::vector<Box> placed;
  // Leaving the plot area or covering another label is never chosen when anything else is possible; crossing
  // its own line neither; crossing another ceiling's line costs three (a label on another line reads as that
  // line's), covering a point one (it hides the point).
  auto cost = [&](const Box& b, size_t own) {
    int c = 0;
    if (b.x0 < 0 || b.x1 > frame.width || b.y0 < 0 || b.y1 > frame.height) c += 10000;
    for (const auto& o : placed)
      if (o.overlaps(b)) c += 1000;
    for (size_t j = 0; j < lines.size(); ++j)
      if (lines[j].crosses(b)) c += j == own ? 1000 : 3;
    for (const auto& [x, y] : points)
      if (x > b.x0 - 4 && x < b.x1 + 4 && y > b.y0 - 4 && y < b.y1 + 4) c += 1;
    return c;
  };
  for (size_t i : order) {
    auto& c = ceilings[i];
    const auto text = c["text"].get<std::string>();
    if (text.empty()) continue;
    auto options = candidates(c, lines[i], kCharPx * static_cast<double>(text.size()));
    const Placement* chosen = &options.front();
    int best = cost(chosen->box, i);
    for (const auto& p : options) {
      int c = cost(p.box, i);
      if (c < best) chosen = &p, best = c;
      if (best == 0) break;
    }
    placed.push_back(chosen->box);
    c["label_x"] = frame.x_value(chosen->px);
    c["label_y"] = frame.y_value(chosen->py);
    c["label_align"] = chosen->right_aligned ? "right" : "left";
  }
}

Json ceiling_layer(const std::string& data, const std::string& color_scale, const std::string& dash_scale) {
  Json rules = {{"type", "rule"},
                {"name", "ceiling_lines"},
                {"from", {{"data", data}}},
                {"encode",
                 {{"enter",
                   {{"x", {{"scale", "x"}, {"field", "x1"}}},
                    {"y", {{"scale", "y"}, {"field", "y1"}}},
                    {"x2", {{"scale", "x"}, {"field", "x2"}}},
                    {"y2", {{"scale", "y"}, {"field", "y2"}}},
                    {"stroke", {{"scale", color_scale}, {"field", "series"}}},
                    {"strokeWidth", {{"value", 1.6}}},
                    {"strokeDash", {{"scale", dash_scale}, {"field", "label"}}}}}}}};
  add_tooltip(rules["encode"]["enter"], {{"ceiling", "datum.text"}, {"series", "datum.series"}});
  Json labels = {{"type", "text"},
                 {"from", {{"data", data}}},
                 {"encode",
                  {{"enter",
                    {{"x", {{"scale", "x"}, {"field", "label_x"}}},
                     {"y", {{"scale", "y"}, {"field", "label_y"}}},
                     {"text", {{"field", "text"}}},
                     {"align", {{"field", "label_align"}}},
                     {"baseline", {{"value", "alphabetic"}}},
                     {"fontSize", {{"value", kCeilingLabelFontPx}}},
                     {"fill", {{"scale", color_scale}, {"field", "series"}}}}}}}};
  return Json::array({rules, labels});
}

}  // namespace ridge::report::figure
