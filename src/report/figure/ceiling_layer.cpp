#include "report/figure/ceiling_layer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

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
// The gap between a line and the text beside it.
constexpr double kGapPx = 3;

struct Segment {
  double x0, y0, x1, y1;
  double length() const { return std::hypot(x1 - x0, y1 - y0); }
};

// A label's box in pixels, rotated with its text: the anchor (baseline point), the text's direction (ux, uy) and
// its extent from the anchor, `along` that direction and `across` it (downwards from the baseline, as drawn).
struct Box {
  double ax, ay, ux, uy;
  double along0, along1, across0, across1;
  bool covers(double x, double y, double margin = 0) const {
    double along = (x - ax) * ux + (y - ay) * uy, across = -(x - ax) * uy + (y - ay) * ux;
    return along > along0 - margin && along < along1 + margin && across > across0 - margin && across < across1 + margin;
  }
  std::array<std::pair<double, double>, 4> corners() const {
    std::array<std::pair<double, double>, 4> out;
    int i = 0;
    for (double along : {along0, along1})
      for (double across : {across0, across1})
        out[i++] = {ax + along * ux - across * uy, ay + along * uy + across * ux};
    return out;
  }
  // Two boxes overlap unless one of their four edge directions separates them.
  bool overlaps(const Box& o) const {
    auto ca = corners(), cb = o.corners();
    for (auto axis : {std::pair{ux, uy}, {-uy, ux}, {o.ux, o.uy}, {-o.uy, o.ux}}) {
      // Named copies, not a structured binding: clang before 16 cannot capture a binding in a lambda.
      const double dx = axis.first, dy = axis.second;
      auto span = [&](const std::array<std::pair<double, double>, 4>& cs) {
        double lo = cs[0].first * dx + cs[0].second * dy, hi = lo;
        for (auto [x, y] : cs) lo = std::min(lo, x * dx + y * dy), hi = std::max(hi, x * dx + y * dy);
        return std::pair{lo, hi};
      };
      auto [alo, ahi] = span(ca);
      auto [blo, bhi] = span(cb);
      if (ahi <= blo || bhi <= alo) return false;
    }
    return true;
  }
  // Whether the segment passes through the box (sampled finely enough for boxes of a few pixels).
  bool crossed_by(const Segment& l, double margin = 0) const {
    for (int i = 0; i <= 400; ++i) {
      double t = i / 400.0;
      if (covers(l.x0 + t * (l.x1 - l.x0), l.y0 + t * (l.y1 - l.y0), margin)) return true;
    }
    return false;
  }
};

// Where one label goes: its anchor, alignment and angle (degrees, clockwise, as Vega draws text); the box it covers.
struct Placement {
  double px, py;
  bool right_aligned;
  double angle;
  Box box;
  int penalty;  // for its distance from the line
};

// The label of `l` (left to right) at distance `s` along it, written along it, above it or below it, `away` pixels
// further from it than the usual gap.
Placement place_along(const Segment& l, double s, bool above, bool right_aligned, double width, double away = 0) {
  double len = std::max(l.length(), 1e-9), ux = (l.x1 - l.x0) / len, uy = (l.y1 - l.y0) / len;
  // (nx, ny) is the line's normal pointing up the screen: the bottom of the text sits kGapPx above the line, or its
  // top kGapPx below it.
  double nx = uy, ny = -ux, off = above ? kGapPx + away + kDescentPx : -(kGapPx + away + kAscentPx);
  double px = l.x0 + s * ux + off * nx, py = l.y0 + s * uy + off * ny;
  Box b{px, py, ux, uy, right_aligned ? -width : 0, right_aligned ? 0 : width, -kAscentPx, kDescentPx};
  return {px, py, right_aligned, std::atan2(uy, ux) * 180 / std::numbers::pi, b, static_cast<int>(away / 3)};
}

// The candidates of one label, best first, all written along their line so that a label fits between two lines a
// text's height apart (an H200's L2 and DRAM bandwidths lie about ten pixels apart, a horizontal label between
// them is crossed by one): compute ceilings (horizontal) right-aligned at their right end, above then below, then
// further left, up to the plot's left edge; bandwidths left-aligned from their lower start upwards, above then
// below. Then the same further from the line, for a bundle of lines closer than a text's height (a Xavier's four
// power modes, bandwidths 6 to 9 pixels apart): its labels go outside it, each in its series' colour.
std::vector<Placement> candidates(const Json& ceiling, const Segment& l, double width) {
  std::vector<Placement> out;
  double len = l.length();
  for (double away = 0; away <= 36; away += 6) {
    if (ceiling["kind"] == "compute") {
      // A ceiling shorter than its label (the highest, right of its ridge point) lends the label room beyond its
      // start, at its height.
      for (double end = len; l.x0 + end - width >= 0; end -= width / 4) {
        out.push_back(place_along(l, end, true, true, width, away));
        out.push_back(place_along(l, end, false, true, width, away));
      }
    } else {
      // From 12 px in: a rotated label's corner reaches back over the start, off the plot at the left edge.
      for (double start = 12; start + width <= len; start += width / 4) {
        out.push_back(place_along(l, start, true, false, width, away));
        out.push_back(place_along(l, start, false, false, width, away));
      }
    }
  }
  if (out.empty())
    out.push_back(ceiling["kind"] == "compute" ? place_along(l, len, true, true, width)
                                               : place_along(l, 0, true, false, width));
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
  // Leaving the plot area, covering another label or being crossed by any ceiling's line (its own: it would not
  // say which side it labels; another's: it would read as that line's label) is never chosen when anything else is
  // possible; coming closer to another line than to its own costs five (the label could be either's), covering a
  // point one (it hides the point), and each 3 px further from its own line than the usual gap one.
  auto cost = [&](const Box& b) {
    int c = 0;
    for (auto [x, y] : b.corners())
      if (x < 0 || x > frame.width || y < 0 || y > frame.height) c += 10000;
    for (const auto& o : placed)
      if (o.overlaps(b)) c += 1000;
    for (const auto& l : lines)
      if (b.crossed_by(l))
        c += 1000;
      else if (b.crossed_by(l, kGapPx - 1))
        c += 5;
    for (const auto& [x, y] : points)
      if (b.covers(x, y, 4)) c += 1;
    return c;
  };
  for (size_t i : order) {
    auto& c = ceilings[i];
    const auto text = c["text"].get<std::string>();
    if (text.empty()) continue;
    auto options = candidates(c, lines[i], kCharPx * static_cast<double>(text.size()));
    const Placement* chosen = &options.front();
    int best = cost(chosen->box) + chosen->penalty;
    for (const auto& p : options) {
      if (best == 0) break;
      int c = cost(p.box) + p.penalty;
      if (c < best) chosen = &p, best = c;
    }
    placed.push_back(chosen->box);
    c["label_x"] = frame.x_value(chosen->px);
    c["label_y"] = frame.y_value(chosen->py);
    c["label_align"] = chosen->right_aligned ? "right" : "left";
    c["label_angle"] = chosen->angle;
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
  add_tooltip(rules["encode"]["enter"], {{"ceiling", "datum.tip"}, {"series", "datum.series"}});
  Json labels = {{"type", "text"},
                 {"from", {{"data", data}}},
                 {"encode",
                  {{"enter",
                    {{"x", {{"scale", "x"}, {"field", "label_x"}}},
                     {"y", {{"scale", "y"}, {"field", "label_y"}}},
                     {"text", {{"field", "text"}}},
                     {"align", {{"field", "label_align"}}},
                     {"angle", {{"field", "label_angle"}}},
                     {"baseline", {{"value", "alphabetic"}}},
                     {"fontSize", {{"value", kCeilingLabelFontPx}}},
                     {"fill", {{"scale", color_scale}, {"field", "series"}}}}}}}};
  return Json::array({rules, labels});
}

}  // namespace ridge::report::figure
