#include "report/figure/axes.h"

namespace ridge::report::figure {

Json grid_axis(const std::string& orient, const std::string& scale, const std::string& title,
               const std::string& format) {
  Json axis{{"orient", orient}, {"scale", scale}, {"title", title}, {"grid", true}, {"gridOpacity", 0.15}};
  if (!format.empty()) axis["format"] = format;
  return axis;
}

Json decade_axis(const std::string& orient, const std::string& scale, const std::string& title,
                 const std::string& format) {
  Json axis = grid_axis(orient, scale, title, format);
  // A tick is a decade when its log10 is whole (to rounding: Vega computes ticks in floating point).
  axis["encode"] = {
      {"labels",
       {{"update",
         {{"text",
           {{"signal",
             "abs(log(datum.value) / LN10 - round(log(datum.value) / LN10)) < 1e-6 ? datum.label : ''"}}}}}}}};
  return axis;
}

Json category_axis(const std::string& orient, const std::string& scale, const std::string& title) {
  Json axis{{"orient", orient}, {"scale", scale}};
  if (!title.empty()) axis["title"] = title;
  return axis;
}

Json name_axis(const std::string& orient, const std::string& scale) {
  return Json{{"orient", orient}, {"scale", scale}, {"labelLimit", 260}, {"labelFontSize", 10}};
}

Json log_log_axes(const std::string& x_title, const std::string& y_title, const std::string& x_format,
                  const std::string& y_format) {
  return Json::array({decade_axis("bottom", "x", x_title, x_format), decade_axis("left", "y", y_title, y_format)});
}

}  // namespace ridge::report::figure
