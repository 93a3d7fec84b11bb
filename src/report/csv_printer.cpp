#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>
#include <fstream>

#include "report/format.h"
#include "report/printer.h"
#include "util/error.h"

namespace ridge::report {
namespace {

bool csv_sees(const Column& c) { return (c.audience & kCsv) != 0; }

const Table& csv_table(const Document& doc) {
  if (!doc.csv_table.empty()) {
    if (const auto* t = doc.find(doc.csv_table)) return *t;
    throw Error(fmt::format("internal: no table '{}' to write as CSV", doc.csv_table));
  }
  for (const auto& t : doc.tables)
    if ((t.audience & kCsv) && t.layout != Table::Layout::kList) return t;
  throw Error(fmt::format("{} has no table to write as CSV", doc.command));
}

}  // namespace

std::string csv_header(const Table& table) {
  std::string line;
  for (const auto& c : table.columns)
    if (csv_sees(c)) line += (line.empty() ? "" : ",") + csv_field(c.key);
  return line;
}

void print_csv_rows(std::ostream& out, const Table& table) {
  for (const auto& row : table.rows) {
    std::string line;
    bool first = true;
    for (size_t c = 0; c < table.columns.size(); ++c) {
      if (!csv_sees(table.columns[c])) continue;
      line += (first ? "" : ",") + csv_field(machine_text(row[c]));
      first = false;
    }
    fmt::print(out, "{}\n", line);
  }
}

void print_csv(std::ostream& out, const Document& doc) {
  const auto& table = csv_table(doc);
  fmt::print(out, "{}\n", csv_header(table));
  print_csv_rows(out, table);
}

std::string append_csv_file(const std::string& directory, const std::string& file, const Table& table) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", directory, ec.message()));
  auto path = (std::filesystem::path(directory) / file).string();
  auto header = csv_header(table);
  std::string existing;
  if (std::ifstream in(path); in) std::getline(in, existing);
  if (!existing.empty() && existing != header)
    throw Error(fmt::format("'{}' has other columns than ridge writes now (an older layout?): move it away or choose "
                            "another directory",
                            path));
  std::ofstream out(path, std::ios::app);
  if (!out) throw Error(fmt::format("cannot write '{}'", path));
  if (existing.empty()) fmt::print(out, "{}\n", header);
  print_csv_rows(out, table);
  out.flush();
  if (!out) throw Error(fmt::format("cannot write '{}'", path));
  return path;
}

}  // namespace ridge::report
