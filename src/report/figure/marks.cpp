#include "report/figure/marks.h"

namespace ridge::report::figure {

Json share_points(const std::string& data, const std::string& x_field, const std::string& y_field) {
  return Json{{"type", "symbol"},
              {"name", "point_marks"},
              {"from", {{"data", data}}},
              {"encode",
               {{"enter",
                 {{"x", {{"scale", "x"}, {"field", x_field}}},
                  {"y", {{"scale", "y"}, {"field", y_field}}},
                  {"size", {{"scale", "size"}, {"field", "share"}}},
                  {"fill", {{"scale", "color"}, {"field", "family"}}},
                  {"fillOpacity", {{"value", 0.75}}},
                  {"stroke", {{"value", "#333"}}},
                  {"strokeWidth", {{"value", 0.5}}}}},
                {"hover", {{"fillOpacity", {{"value", 1}}}, {"strokeWidth", {{"value", 2}}}}},
                {"update", {{"fillOpacity", {{"value", 0.75}}}, {"strokeWidth", {{"value", 0.5}}}}}}}};
}

Json series_lines(const SeriesLines& s) {
  Json line{{"type", "line"}};
  if (!s.name.empty()) line["name"] = s.name;
  line["from"] = {{"data", s.facet}};
  if (s.sort_by_x) line["sort"] = {{"field", "datum." + s.x_field}};
  line["encode"] = {{"enter",
                     {{"x", {{"scale", "x"}, {"field", s.x_field}}},
                      {"y", {{"scale", "y"}, {"field", s.y_field}}},
                      {"stroke", {{"scale", s.color_scale}, {"field", s.group_field}}},
                      {"strokeWidth", {{"value", 2}}},
                      {"strokeDash", {{"scale", "dash"}, {"field", s.dash_field}}}}}};
  return Json{{"type", "group"},
              {"from", {{"facet", {{"name", s.facet}, {"data", s.data}, {"groupby", s.group_field}}}}},
              {"marks", Json::array({std::move(line)})}};
}

Json band_cell(const std::string& x_scale, const std::string& x_field, const std::string& y_scale,
               const std::string& y_field) {
  return Json{{"x", {{"scale", x_scale}, {"field", x_field}}},
              {"width", {{"scale", x_scale}, {"band", 1}}},
              {"y", {{"scale", y_scale}, {"field", y_field}}},
              {"height", {{"scale", y_scale}, {"band", 1}}}};
}

Json band_groups(const BandGroups& g, const std::vector<std::string>& members, Json marks) {
  const std::string size = g.scale == "x" ? "width" : "height";
  return Json{{"type", "group"},
              {"from", {{"facet", {{"data", g.data}, {"name", g.facet}, {"groupby", g.group_field}}}}},
              {"encode", {{"enter", {{g.scale, {{"scale", g.scale}, {"field", g.group_field}}}}}}},
              {"signals", Json::array({{{"name", size}, {"update", "bandwidth('" + g.scale + "')"}}})},
              {"scales", Json::array({{{"name", "pos"}, {"type", "band"}, {"range", size}, {"domain", members}}})},
              {"marks", std::move(marks)}};
}

void add_hover_fade(Json& mark) {
  mark["encode"]["hover"] = {{"fillOpacity", {{"value", 0.7}}}};
  mark["encode"]["update"] = {{"fillOpacity", {{"value", 1}}}};
}

}  // namespace ridge::report::figure
