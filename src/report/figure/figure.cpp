#include "report/figure/figure.h"

#include <algorithm>
#include <fstream>
#include <set>

#include "util/error.h"

namespace ridge::report::figure {

Json base_spec(const std::string& title, int width, int height) {
  return Json{{"$schema", "https://vega.github.io/schema/vega/v5.json"},
              {"description", title},
              {"title", {{"text", title}, {"anchor", "start"}, {"fontSize", 14}}},
              {"width", width},
              {"height", height},
              {"padding", 8},
              {"autosize", {{"type", "pad"}}},
              {"background", "white"},
              {"config", {{"axis", {{"labelFontSize", 11}, {"titleFontSize", 12}}}, {"legend", {{"labelLimit", 260}}}}},
              {"data", Json::array()},
              {"scales", Json::array()},
              {"axes", Json::array()},
              {"legends", Json::array()},
              {"marks", Json::array()}};
}

Json& add_data(Json& spec, const std::string& name, Json values) {
  spec["data"].push_back(Json{{"name", name}, {"values", std::move(values)}});
  return spec["data"].back()["values"];
}

Json& data_values(Json& spec, const std::string& name) {
  for (auto& data : spec.at("data"))
    if (data.value("name", "") == name && data.contains("values")) return data["values"];
  throw Error("figure has no data set '" + name + "'");
}

const Json& data_values(const Json& spec, const std::string& name) {
  return data_values(const_cast<Json&>(spec), name);
}

int series_count(const Figure& figure, const std::string& field) {
  std::set<std::string> series;
  for (const auto& p : data_values(figure.spec, "points"))
    if (p.contains(field)) series.insert(p[field].dump());
  return static_cast<int>(series.size());
}

Json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read '" + path + "'");
  try {
    return Json::parse(in);
  } catch (const std::exception& e) {
    throw Error("'" + path + "' is not JSON: " + std::string(e.what()).substr(0, 120));
  }
}

Figure read_spec_figure(const std::string& path) {
  Figure figure{.kind = "spec", .spec = read_json_file(path)};
  if (!figure.spec.is_object() || !figure.spec.contains("marks"))
    throw Error("'" + path + "' is not a Vega specification (no marks)");
  figure.title = figure.spec.contains("description") && figure.spec["description"].is_string()
                     ? figure.spec["description"].get<std::string>()
                     : path;
  return figure;
}

std::string not_drawn_note(const std::vector<std::string>& names, const std::string& why) {
  std::vector<std::string> unique;
  for (const auto& name : names)
    if (std::find(unique.begin(), unique.end(), name) == unique.end()) unique.push_back(name);
  std::string listed;
  for (size_t i = 0; i < unique.size() && i < 5; ++i) listed += (i ? ", " : "") + unique[i];
  return std::to_string(unique.size()) + " node(s) " + why + " (" + listed + (unique.size() > 5 ? ", ..." : "") + ")";
}

}  // namespace ridge::report::figure
