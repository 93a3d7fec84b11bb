#pragma once
// What every command produces for its sinks: a document of tables with named, typed columns, plus
// header fields, notes and the environment. Printers (table, CSV, JSON, Markdown) render any document;
// the modules that compute results never format them, and a new format or sink is one more printer.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

namespace ridge::report {

struct Table;

// One cell. Integers stay exact (int64); a nested table holds per-row detail (a run's nodes).
using Value = std::variant<std::monostate, bool, int64_t, double, std::string, std::shared_ptr<const Table>>;

// Which sinks see a column, table or field. People read the table and Markdown printers; programs
// read JSON and CSV.
enum Audience : unsigned {
  kHuman = 1u << 0,
  kJson = 1u << 1,
  kCsv = 1u << 2,
  kMachine = kJson | kCsv,
  kEveryone = kHuman | kMachine,
  kStoreOnly = 0,  // no printer shows it; only the results store keeps it
};

// How people see a number (machines always get the raw value).
enum class Style {
  kText,      // as is (integers in full)
  kSi,        // "4.09 G" + unit
  kBytes,     // "102 MB"
  kFixed,     // `decimals` places + unit
  kGeneral,   // `decimals` significant digits (values of any magnitude: 2.789, -2.1911e-09)
  kDuration,  // the value is seconds: "12.3 us", "4.567 ms"
};

struct Column {
  std::string key;    // CSV header and JSON key; a unit lives in the name (mean_ms, time_s, bytes)
  std::string title;  // heading for people; empty: the key
  Style style = Style::kText;
  std::string unit;  // appended by kSi / kFixed ("FLOP/s", "FLOP/B", "%")
  int decimals = 3;
  unsigned audience = kEveryone;
  std::string json_path;      // dotted path inside a JSON row ("latency_ms.mean"); empty: the key
  size_t max_width = 0;       // people see at most this many characters (the tail, after "...")
  bool left_aligned = false;  // free text: people see every cell left-aligned, those starting with a digit too

  const std::string& heading() const { return title.empty() ? key : title; }
  const std::string& path() const { return json_path.empty() ? key : json_path; }
};

struct Table {
  enum class Layout {
    kRows,    // many rows: a JSON array of objects
    kRecord,  // one row of named quantities: a JSON object; people see quantity / value / exact
    kList,    // one column: a JSON array of values
  };
  std::string key;    // JSON key of the table, and the CSV table a document prints
  std::string title;  // heading for people ("per op type:"); empty: none
  Layout layout = Layout::kRows;
  unsigned audience = kEveryone;
  std::vector<Column> columns;
  std::vector<std::vector<Value>> rows;
  std::vector<std::string> footer;  // lines for people after the table

  Table& column(Column c);
  // Appends a row; throws when its width is not the column count (a builder bug, caught by tests).
  Table& add(std::vector<Value> row);
  // The cell of `row` under the column `key`; nullptr when the table has no such column.
  const Value* cell(const std::vector<Value>& row, const std::string& key) const;
};

// A document-level value: people read "label: text", JSON gets `json` at `key` (a dotted path).
struct Field {
  std::string key, label, text;
  nlohmann::ordered_json json;
  unsigned audience = kEveryone;
  bool at_end = false;  // people see it after the tables (unknown ops, totals lines)
};

struct Document {
  std::string command;  // "analyze", "bench", ...: the Markdown heading
  std::string subject;  // the model or device it is about
  std::vector<Field> fields;
  std::vector<Table> tables;
  std::vector<std::string> notes;
  std::string csv_table;      // key of the table `-f csv` prints; empty: the first kRows table CSV may see
  bool notes_at_top = false;  // people read the notes under the header (binding notes), else at the end

  Field& field(std::string key, std::string label, std::string text, nlohmann::ordered_json json,
               unsigned audience = kEveryone);
  Table& table(std::string key, std::string title, Table::Layout layout = Table::Layout::kRows,
               unsigned audience = kEveryone);
  const Table* find(const std::string& key) const;
};

// A numeric cell as a double (integers converted); `fallback` for none, text or a table.
double number_or(const Value* value, double fallback);

// A cell as people see it under `column`'s style.
std::string human_text(const Value& value, const Column& column);
// A cell as CSV writes it: integers in full, reals in their shortest exact form, empty for none.
std::string machine_text(const Value& value);
// The standard header of every document: ridge's version and revision (JSON only).
void add_ridge_version(Document& doc);

}  // namespace ridge::report
