#include "report/figure/tooltip.h"

namespace ridge::report::figure {

std::string vega_string(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

void add_tooltip(nlohmann::ordered_json& encode_block, const std::vector<TooltipField>& fields) {
  std::string object = "{", line;
  for (const auto& [label, expr] : fields) {
    object += (object.size() > 1 ? ", " : "") + vega_string(label) + ": " + expr;
    line += (line.empty() ? "" : " + '; ' + ") + vega_string(label + ": ") + " + (" + expr + ")";
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

std::string lookup_expr(const std::map<std::string, std::string>& table, const std::string& key_expr,
                        const std::string& otherwise_expr) {
  if (table.empty()) return otherwise_expr;
  std::string object;
  for (const auto& [key, value] : table)
    object += (object.empty() ? "" : ", ") + vega_string(key) + ": " + vega_string(value);
  return "({" + object + "})[" + key_expr + "] || " + otherwise_expr;
}

}  // namespace ridge::report::figure
