#pragma once
// Printers: one per output format, each renders any Document. Adding a format is adding a printer
// and one row in the format table (printer.cpp).
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "report/document.h"

namespace ridge::report {

enum class Format { kTable, kCsv, kJson, kMarkdown };

// "table", "csv", "json", "md" (and "markdown"); throws ridge::Error naming the valid ones.
Format parse_format(const std::string& name);
// The names `--format` accepts, for CLI checks and help text.
std::vector<std::string> format_names();

void print(std::ostream& out, const Document& doc, Format format);

// The printers.
void print_table(std::ostream& out, const Document& doc);
void print_csv(std::ostream& out, const Document& doc);
void print_json(std::ostream& out, const Document& doc);
void print_markdown(std::ostream& out, const Document& doc);

// Pieces other sinks reuse.
nlohmann::ordered_json to_json(const Document& doc);
nlohmann::ordered_json table_json(const Table& table);
// The CSV header line and the rows of a table (columns CSV sees; nested tables are left out).
std::string csv_header(const Table& table);
void print_csv_rows(std::ostream& out, const Table& table);
// Appends the rows of `table` to DIRECTORY/FILE (both created as needed), writing the header only
// into a new or empty file. A file whose header is not this table's is refused with one line, so
// rows of different layouts never mix. Returns the path.
std::string append_csv_file(const std::string& directory, const std::string& file, const Table& table);

}  // namespace ridge::report
