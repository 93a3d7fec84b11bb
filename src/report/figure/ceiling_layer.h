#pragma once
// The ceiling layer of a roofline: one line per ceiling and one label per line, the labels placed by C++ so that
// none covers another label or is crossed by any ceiling's line. Vega cannot do this: its label transform places text
// near points, not beside lines, and the ceilings of one device often lie a few pixels apart (an H100's fp32 and fp64
// tensor peaks, an H200's L2 and DRAM bandwidths, four power modes of a Jetson).
#include <string>
#include <utility>
#include <vector>

#include "report/figure/figure.h"

namespace ridge::report::figure {

// The labels' font, and the extent of their text in sans-serif: placement keeps a margin rather than measuring
// glyphs, so these are on the wide side (0.6 em per character, 0.8 em above the baseline, 0.2 em below).
inline constexpr double kCeilingLabelFontPx = 10;
inline constexpr double kLabelCharEm = 0.6, kLabelAscentEm = 0.8, kLabelDescentEm = 0.2;

// Pixel positions in a log-log plot area `width` x `height` over [x_min, x_max] x [y_min, y_max] (y from the top,
// as drawn).
struct LogLogFrame {
  double x_min, x_max, y_min, y_max;
  int width, height;
  double x(double v) const;
  double y(double v) const;
  double x_value(double px) const;
  double y_value(double py) const;
};

// Places the label of every row of `ceilings` with a non-empty "text": rows hold "kind" ("compute": a horizontal
// FLOP/s ceiling, placed along it; "memory": a slanted bandwidth, placed beside it), "value" and the segment
// "x1", "y1", "x2", "y2" in data units. Sets "label_x", "label_y" (the baseline point, data units), "label_align"
// ("left" or "right") and "label_angle" (degrees clockwise: each label is written along its line, just above or
// below it). Never over another label nor crossed by any ceiling's line while any place is free; over as few
// `points` (pixel positions) as can be.
void place_ceiling_labels(Json& ceilings, const LogLogFrame& frame,
                          const std::vector<std::pair<double, double>>& points);

// The marks of the layer over data set `data` (rows as above, with "series" and "label" for colour and dash):
// the lines ("ceiling_lines", each with the tooltip "ceiling: TIP; series: SERIES": "tip" names the line's own
// ceiling, also where another line's label serves it) and their labels, coloured by `color_scale` on "series" and
// dashed by `dash_scale` on "label".
Json ceiling_layer(const std::string& data, const std::string& color_scale, const std::string& dash_scale);

}  // namespace ridge::report::figure
