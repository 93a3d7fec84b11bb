#include <fmt/format.h>

#include "report/printer.h"
#include "util/error.h"

namespace ridge::report {
namespace {

using json = nlohmann::ordered_json;

// Sets `value` at a dotted path ("latency_ms.mean"), creating the objects on the way. A path through a
// value that is not an object ("a" set, then "a.b": a document from a damaged store) is refused.
void set_path(json& target, const std::string& path, json value) {
  json* node = &target;
  size_t start = 0;
  for (auto dot = path.find('.'); dot != std::string::npos; dot = path.find('.', start)) {
    node = &(*node)[path.substr(start, dot - start)];
    if (!node->is_null() && !node->is_object())
      throw Error(fmt::format("JSON key '{}' runs through '{}', which is not an object", path, path.substr(0, dot)));
    start = dot + 1;
  }
  (*node)[path.substr(start)] = std::move(value);
}

json value_json(const Value& value) {
  struct Visitor {
    json operator()(std::monostate) const { return nullptr; }
    json operator()(bool b) const { return b; }
    json operator()(int64_t v) const { return v; }
    json operator()(double v) const { return v; }
    json operator()(const std::string& s) const { return s; }
    json operator()(const std::shared_ptr<const Table>& t) const { return t ? table_json(*t) : json(); }
  };
  return std::visit(Visitor{}, value);
}

json row_json(const Table& table, const std::vector<Value>& row) {
  json object = json::object();
  for (size_t c = 0; c < table.columns.size(); ++c) {
    const auto& column = table.columns[c];
    // A missing value leaves the key out (an optimizer only for training runs).
    if (!(column.audience & kJson) || std::holds_alternative<std::monostate>(row[c])) continue;
    set_path(object, column.path(), value_json(row[c]));
  }
  return object;
}

}  // namespace

json table_json(const Table& table) {
  switch (table.layout) {
    case Table::Layout::kRecord:
      return table.rows.empty() ? json::object() : row_json(table, table.rows.front());
    case Table::Layout::kList: {
      json list = json::array();
      for (const auto& row : table.rows) list.push_back(row.empty() ? json() : value_json(row.front()));
      return list;
    }
    case Table::Layout::kRows:
      break;
  }
  json rows = json::array();
  for (const auto& row : table.rows) rows.push_back(row_json(table, row));
  return rows;
}

json to_json(const Document& doc) {
  json root = json::object();
  for (const auto& f : doc.fields)
    if (f.audience & kJson) set_path(root, f.key, f.json);
  for (const auto& t : doc.tables)
    if (t.audience & kJson) set_path(root, t.key, table_json(t));
  if (!doc.notes.empty()) root["notes"] = doc.notes;
  return root;
}

void print_json(std::ostream& out, const Document& doc) {
  out << to_json(doc).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace ridge::report
