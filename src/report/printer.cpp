#include "report/printer.h"

#include <string_view>

#include "util/error.h"

namespace ridge::report {
namespace {

struct FormatRow {
  std::string_view name;
  Format format;
  void (*print)(std::ostream&, const Document&);
};

// The one table of output formats.
constexpr FormatRow kFormats[] = {
    {"table", Format::kTable, print_table},
    {"csv", Format::kCsv, print_csv},
    {"json", Format::kJson, print_json},
    {"md", Format::kMarkdown, print_markdown},
    {"markdown", Format::kMarkdown, print_markdown},
};

}  // namespace

Format parse_format(const std::string& name) {
  for (const auto& row : kFormats)
    if (row.name == name) return row.format;
  throw Error("unknown format '" + name + "' (expected table, csv, json or md)");
}

std::vector<std::string> format_names() {
  std::vector<std::string> names;
  for (const auto& row : kFormats) names.emplace_back(row.name);
  return names;
}

void print(std::ostream& out, const Document& doc, Format format) {
  for (const auto& row : kFormats)
    if (row.format == format) return row.print(out, doc);
}

}  // namespace ridge::report
