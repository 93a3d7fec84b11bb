#include "report/figure/figure.h"

#include <cmath>

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

namespace {
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}
}  // namespace

void add_tooltip(Json& encode_block, const std::vector<TooltipField>& fields) {
  std::string object = "{", line;
  for (const auto& [label, expr] : fields) {
    object += (object.size() > 1 ? ", " : "") + quoted(label) + ": " + expr;
    line += (line.empty() ? "" : " + '; ' + ") + quoted(label + ": ") + " + (" + expr + ")";
  }
  encode_block["tooltip"] = {{"signal", object + "}"}};
  encode_block["description"] = {{"signal", line}};
}

std::string si_expr(const std::string& field, const std::string& unit) {
  return "format(datum." + field + ", '.4~s') + ' " + unit + "'";
}

std::string ms_expr(const std::string& seconds_field) {
  return "format(datum." + seconds_field + " * 1000, '.4~r') + ' ms'";
}

std::pair<double, double> decade_domain(double lo, double hi) {
  if (!(lo > 0) || !(hi > 0)) throw Error("a log axis needs positive values");
  return {std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(hi)))};
}

}  // namespace ridge::report::figure
