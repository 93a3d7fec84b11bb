#pragma once
// A column-aligned text table (numbers right-aligned) that also prints as Markdown.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace ridge::report {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_column(std::string name) { header_.push_back(std::move(name)); }
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Cells of `column` are left-aligned even when they look like numbers.
  void align_left(size_t column) { left_.resize(std::max(left_.size(), column + 1)), left_[column] = true; }
  void print(std::ostream& out) const;
  void print_markdown(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<bool> left_;
};

}  // namespace ridge::report
