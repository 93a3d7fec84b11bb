#include "report/text_table.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cctype>

namespace ridge::report {
namespace {

bool looks_numeric(const std::string& s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || (s[0] == '-' && s.size() > 1));
}

}  // namespace

void TextTable::print(std::ostream& out) const {
  std::vector<size_t> width(header_.size(), 0);
  for (size_t c = 0; c < header_.size(); ++c) width[c] = header_[c].size();
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells, bool is_header) {
    std::string text;
    for (size_t c = 0; c < header_.size(); ++c) {
      const std::string& cell = c < cells.size() ? cells[c] : "";
      bool right = !is_header && c > 0 && !(c < left_.size() && left_[c]) && looks_numeric(cell);
      text += c ? "  " : "";
      text += right ? fmt::format("{:>{}}", cell, width[c]) : fmt::format("{:<{}}", cell, width[c]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    fmt::print(out, "{}\n", text);
  };
  line(header_, true);
  for (const auto& row : rows_) line(row, false);
}

void TextTable::print_markdown(std::ostream& out) const {
  std::string head = "|", rule = "|";
  for (const auto& h : header_) {
    head += " " + h + " |";
    rule += "---|";
  }
  fmt::print(out, "{}\n{}\n", head, rule);
  for (const auto& row : rows_) {
    std::string text = "|";
    for (size_t c = 0; c < header_.size(); ++c) text += " " + (c < row.size() ? row[c] : std::string()) + " |";
    fmt::print(out, "{}\n", text);
  }
}

}  // namespace ridge::report
