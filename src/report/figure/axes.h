#pragma once
// Axes: a faint grid behind every quantitative axis, categories and layer names without one, and log axes labelled
// at whole decades only. Vega labels a log axis that spans few decades at 2 and 5 of each as well, so one roofline
// read "2G 20G 200G" and the next "1G 10G 100G"; a roofline is read in decades, so only they carry numbers (the
// minor ticks and the grid stay).
#include <string>

#include "report/figure/figure.h"

namespace ridge::report::figure {

// An axis with a faint grid; `format` is a d3 format ("~g", "~s"), or empty for Vega's own.
Json grid_axis(const std::string& orient, const std::string& scale, const std::string& title,
               const std::string& format);
// A grid axis over a log scale that labels whole decades only.
Json decade_axis(const std::string& orient, const std::string& scale, const std::string& title,
                 const std::string& format);
// An axis of categories (batch sizes, algorithms); no title when `title` is empty.
Json category_axis(const std::string& orient, const std::string& scale, const std::string& title = "");
// An axis of layer names: long names get room (260 px) and a smaller font.
Json name_axis(const std::string& orient, const std::string& scale);
// The two axes of a log-log figure over the scales "x" (bottom) and "y" (left), labelled at decades.
Json log_log_axes(const std::string& x_title, const std::string& y_title, const std::string& x_format = "~g",
                  const std::string& y_format = "~s");

}  // namespace ridge::report::figure
