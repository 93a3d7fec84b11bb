#pragma once
// Scales: how the figures map numbers and categories to position, colour, dash and size. ridge fixes
// every numeric domain in C++ (from the values it draws), so a figure's axes never depend on Vega's
// rounding, and the label placement (ceiling_layer.h) knows where a value lands.
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "report/figure/figure.h"

namespace ridge::report::figure {

// The range of the values a scale has to show.
struct Extent {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  void cover(double v);
  // Only positive, finite values: a log scale cannot place the others, and they are never drawn.
  void cover_positive(double v);
  bool empty() const { return hi == 0; }
};

// A log-scale domain that covers [lo, hi] with whole decades around it; throws ridge::Error when either is not
// positive.
std::pair<double, double> decade_domain(double lo, double hi);

// A log scale over a fixed domain ("width" or "height" as `range`), never niced: the domain is what C++ computed.
Json log_scale(const std::string& name, double lo, double hi, const std::string& range, int base = 10);
// A linear scale: `from_zero`, for quantities drawn from a baseline (bars, times), includes zero and rounds the top
// to a readable number; otherwise it spans the domain exactly.
Json linear_scale(const std::string& name, Json domain, const std::string& range, bool from_zero);
Json band_scale(const std::string& name, Json domain, const std::string& range, double padding);

// The sorted distinct values of `field` in data set `data`, as a scale's domain.
Json field_domain(const std::string& data, const std::string& field);
// A categorical colour scale: `scheme` is a Vega scheme name ("tableau10", "dark2").
Json category_scale(const std::string& name, Json domain, const std::string& scheme);
// A categorical scale onto given values (colours, shapes, dash patterns).
Json ordinal_scale(const std::string& name, Json domain, Json range);
// Symbol area by a point's share of its series (time or energy): 25 px^2 for nothing, 900 for all of it.
Json share_size_scale();

}  // namespace ridge::report::figure
