#include "report/document.h"

#include <fmt/format.h>

#include "report/format.h"
#include "util/build_info.h"
#include "util/error.h"

namespace ridge::report {

Table& Table::column(Column c) {
  columns.push_back(std::move(c));
  return *this;
}

Table& Table::add(std::vector<Value> row) {
  if (row.size() != columns.size())
    throw Error(
        fmt::format("internal: table '{}' has {} columns, a row has {} cells", key, columns.size(), row.size()));
  rows.push_back(std::move(row));
  return *this;
}

const Value* Table::cell(const std::vector<Value>& row, const std::string& key) const {
  for (size_t c = 0; c < columns.size() && c < row.size(); ++c)
    if (columns[c].key == key) return &row[c];
  return nullptr;
}

double number_or(const Value* value, double fallback) {
  if (!value) return fallback;
  if (const auto* d = std::get_if<double>(value)) return *d;
  if (const auto* i = std::get_if<int64_t>(value)) return static_cast<double>(*i);
  return fallback;
}

Field& Document::field(std::string key, std::string label, std::string text, nlohmann::ordered_json json,
                       unsigned audience) {
  fields.push_back({std::move(key), std::move(label), std::move(text), std::move(json), audience, false});
  return fields.back();
}

Table& Document::table(std::string key, std::string title, Table::Layout layout, unsigned audience) {
  Table t;
  t.key = std::move(key);
  t.title = std::move(title);
  t.layout = layout;
  t.audience = audience;
  tables.push_back(std::move(t));
  return tables.back();
}

const Table* Document::find(const std::string& key) const {
  for (const auto& t : tables)
    if (t.key == key) return &t;
  return nullptr;
}

namespace {

std::string with_unit(std::string text, const std::string& unit) {
  if (unit.empty()) return text;
  if (unit == "%") return text + "%";
  return text + " " + unit;
}

std::string number_text(double v, const Column& c) {
  switch (c.style) {
    case Style::kSi:
      return si(v, c.unit.c_str());
    case Style::kBytes:
      return si_bytes(v);
    case Style::kFixed:
      return with_unit(fixed(v, c.decimals), c.unit);
    case Style::kDuration:
      return duration(v);
    case Style::kGeneral:
      return with_unit(fmt::format("{:.{}g}", v, c.decimals), c.unit);
    case Style::kText:
      break;
  }
  return fmt::format("{}", v);
}

std::string tail(const std::string& text, size_t width) {
  if (width < 4 || text.size() <= width) return text;
  return "..." + text.substr(text.size() - (width - 3));
}

}  // namespace

std::string human_text(const Value& value, const Column& column) {
  struct Visitor {
    const Column& c;
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(bool b) const { return b ? "yes" : "no"; }
    std::string operator()(int64_t v) const {
      return c.style == Style::kText ? std::to_string(v) : number_text(static_cast<double>(v), c);
    }
    std::string operator()(double v) const { return number_text(v, c); }
    std::string operator()(const std::string& s) const { return tail(s, c.max_width); }
    std::string operator()(const std::shared_ptr<const Table>& t) const {
      return t ? fmt::format("({} rows)", t->rows.size()) : "";
    }
  };
  return std::visit(Visitor{column}, value);
}

std::string machine_text(const Value& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(bool b) const { return b ? "1" : "0"; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    // fmt's shortest representation reads back to the same double.
    std::string operator()(double v) const { return fmt::format("{}", v); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::shared_ptr<const Table>&) const { return ""; }
  };
  return std::visit(Visitor{}, value);
}

void add_ridge_version(Document& doc) {
  doc.field("ridge", "ridge", "", {{"version", kVersion}, {"revision", kRevision}}, kJson);
}

}  // namespace ridge::report
