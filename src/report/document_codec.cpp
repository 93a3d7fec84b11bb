#include "report/document_codec.h"

#include <fmt/format.h>

#include <type_traits>
#include <utility>

#include "util/error.h"

namespace ridge::report {
namespace {

using json = nlohmann::ordered_json;

json encode_table(const Table& t);
Table decode_table(const json& j);

// Cells: null, bool, integer, real, string as themselves; a nested table as {"table": {...}}. JSON
// keeps integers and reals apart (1 and 1.0), so an int64 cell comes back an int64.
json encode_value(const Value& value) {
  struct Visitor {
    json operator()(std::monostate) const { return nullptr; }
    json operator()(bool b) const { return b; }
    json operator()(int64_t v) const { return v; }
    json operator()(double v) const { return v; }
    json operator()(const std::string& s) const { return s; }
    json operator()(const std::shared_ptr<const Table>& t) const {
      if (!t) return nullptr;
      json cell = json::object();
      cell["table"] = encode_table(*t);  // moved in: an initializer list would copy the whole table
      return cell;
    }
  };
  return std::visit(Visitor{}, value);
}

Value decode_value(const json& j) {
  switch (j.type()) {
    case json::value_t::null:
      return {};
    case json::value_t::boolean:
      return j.get<bool>();
    case json::value_t::number_integer:
      return j.get<int64_t>();
    case json::value_t::number_unsigned:
      if (!std::in_range<int64_t>(j.get<uint64_t>()))
        throw Error("stored document: an integer cell is beyond the range of int64");
      return static_cast<int64_t>(j.get<uint64_t>());
    case json::value_t::number_float:
      return j.get<double>();
    case json::value_t::string:
      return j.get<std::string>();
    case json::value_t::object:
      if (j.contains("table")) return std::shared_ptr<const Table>(std::make_shared<Table>(decode_table(j["table"])));
      break;
    default:
      break;
  }
  throw Error("stored document: a cell is neither a value nor a nested table");
}

json encode_table(const Table& t) {
  // Attributes at their defaults are left out: a stored bench run has hundreds of nested columns.
  json columns = json::array();
  for (const auto& c : t.columns) {
    json column = {{"key", c.key}};
    if (!c.title.empty()) column["title"] = c.title;
    if (c.style != Style::kText) column["style"] = static_cast<int>(c.style);
    if (!c.unit.empty()) column["unit"] = c.unit;
    if (c.decimals != 3) column["decimals"] = c.decimals;
    if (c.audience != kEveryone) column["audience"] = c.audience;
    if (!c.json_path.empty()) column["json_path"] = c.json_path;
    if (c.max_width != 0) column["max_width"] = c.max_width;
    columns.push_back(std::move(column));
  }
  json rows = json::array();
  for (const auto& row : t.rows) {
    json cells = json::array();
    for (const auto& v : row) cells.push_back(encode_value(v));
    rows.push_back(std::move(cells));
  }
  // Members are moved in one by one: an initializer list copies its elements, rows and all.
  json table = json::object();
  table["key"] = t.key;
  table["title"] = t.title;
  table["layout"] = static_cast<int>(t.layout);
  table["audience"] = t.audience;
  table["columns"] = std::move(columns);
  table["rows"] = std::move(rows);
  table["footer"] = t.footer;
  return table;
}

// The member `key` of `j`, `fallback` when absent or null. An integral member must be a JSON integer
// that fits T: a damaged store must not reach a conversion out of range (undefined for a real).
template <typename T>
T member(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (it->is_number_unsigned() && std::in_range<T>(it->template get<uint64_t>()))
      return static_cast<T>(it->template get<uint64_t>());
    if (it->is_number_integer() && !it->is_number_unsigned() && std::in_range<T>(it->template get<int64_t>()))
      return static_cast<T>(it->template get<int64_t>());
    throw Error(fmt::format("stored document: '{}' is not an integer in range", key));
  } else {
    return it->template get<T>();
  }
}

// Enumeration members: a number that names no enumerator is refused (the switches name them all, so
// a new enumerator without a case here is a -Wswitch warning).
[[noreturn]] void unknown(const char* key, int value) {
  throw Error(fmt::format("stored document: unknown {} {}", key, value));
}
Style style_member(const json& j) {
  int value = member<int>(j, "style", 0);
  switch (auto style = static_cast<Style>(value)) {
    case Style::kText:
    case Style::kSi:
    case Style::kBytes:
    case Style::kFixed:
    case Style::kGeneral:
    case Style::kDuration:
      return style;
  }
  unknown("style", value);
}
Table::Layout layout_member(const json& j) {
  int value = member<int>(j, "layout", 0);
  switch (auto layout = static_cast<Table::Layout>(value)) {
    case Table::Layout::kRows:
    case Table::Layout::kRecord:
    case Table::Layout::kList:
      return layout;
  }
  unknown("layout", value);
}

// Printers format reals with this many decimals or significant digits; more is a damaged store.
constexpr int kMaxDecimals = 30;

Table decode_table(const json& j) {
  if (!j.is_object()) throw Error("stored document: a table is not an object");
  Table t;
  t.key = member<std::string>(j, "key", "");
  t.title = member<std::string>(j, "title", "");
  t.layout = layout_member(j);
  t.audience = member<unsigned>(j, "audience", kEveryone);
  for (const auto& c : j.at("columns")) {
    t.columns.push_back({.key = member<std::string>(c, "key", ""),
                         .title = member<std::string>(c, "title", ""),
                         .style = style_member(c),
                         .unit = member<std::string>(c, "unit", ""),
                         .decimals = member<int>(c, "decimals", 3),
                         .audience = member<unsigned>(c, "audience", kEveryone),
                         .json_path = member<std::string>(c, "json_path", ""),
                         .max_width = member<size_t>(c, "max_width", 0)});
    if (int d = t.columns.back().decimals; d < 0 || d > kMaxDecimals)
      throw Error(fmt::format("stored document: column '{}' has {} decimals", t.columns.back().key, d));
  }
  for (const auto& r : j.at("rows")) {
    std::vector<Value> row;
    for (const auto& cell : r) row.push_back(decode_value(cell));
    // Table::add would call a bad width a ridge bug; here it is a damaged store.
    if (row.size() != t.columns.size())
      throw Error(fmt::format("stored document: table '{}' has {} columns, a row has {} cells", t.key, t.columns.size(),
                              row.size()));
    t.add(std::move(row));
  }
  t.footer = member<std::vector<std::string>>(j, "footer", {});
  return t;
}

}  // namespace

json encode_document(const Document& doc) {
  json fields = json::array();
  for (const auto& f : doc.fields)
    fields.push_back({{"key", f.key},
                      {"label", f.label},
                      {"text", f.text},
                      {"json", f.json},
                      {"audience", f.audience},
                      {"at_end", f.at_end}});
  json tables = json::array();
  for (const auto& t : doc.tables) tables.push_back(encode_table(t));
  json encoded = json::object();
  encoded["command"] = doc.command;
  encoded["subject"] = doc.subject;
  encoded["fields"] = std::move(fields);
  encoded["tables"] = std::move(tables);
  encoded["notes"] = doc.notes;
  encoded["csv_table"] = doc.csv_table;
  encoded["notes_at_top"] = doc.notes_at_top;
  return encoded;
}

Document decode_document(const json& j) {
  try {
    if (!j.is_object()) throw Error("stored document: not a JSON object");
    Document doc;
    doc.command = member<std::string>(j, "command", "");
    doc.subject = member<std::string>(j, "subject", "");
    for (const auto& f : j.at("fields")) {
      auto& field = doc.field(member<std::string>(f, "key", ""), member<std::string>(f, "label", ""),
                              member<std::string>(f, "text", ""), f.contains("json") ? f["json"] : json(),
                              member<unsigned>(f, "audience", kEveryone));
      field.at_end = member<bool>(f, "at_end", false);
    }
    for (const auto& t : j.at("tables")) doc.tables.push_back(decode_table(t));
    doc.notes = member<std::vector<std::string>>(j, "notes", {});
    doc.csv_table = member<std::string>(j, "csv_table", "");
    doc.notes_at_top = member<bool>(j, "notes_at_top", false);
    return doc;
  } catch (const json::exception& e) {
    throw Error(fmt::format("stored document is malformed: {}", e.what()));
  }
}

}  // namespace ridge::report
