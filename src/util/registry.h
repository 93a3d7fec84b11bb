#pragma once
// A table of rows, one per op type of the default domain, filled by the op family files of a
// module (shape/, cost/, exec/). A row type has at least `op_type` and `family`; `add` sets the
// family of the rows it adds. Each row type defines `instance()` beside its list of families.
#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ridge {

template <class Row>
class Registry {
 public:
  static const Registry& instance();

  const Row* find(std::string_view op_type) const {
    auto it = rows_.find(op_type);
    return it == rows_.end() ? nullptr : &it->second;
  }

  // The op types, sorted.
  std::vector<std::string_view> op_types() const {
    std::vector<std::string_view> types;
    types.reserve(rows_.size());
    for (const auto& [name, row] : rows_) types.push_back(name);
    std::sort(types.begin(), types.end());
    return types;
  }

  size_t size() const { return rows_.size(); }

  void add(std::string_view family, std::initializer_list<Row> rows) {
    for (auto row : rows) {
      row.family = family;
      rows_[row.op_type] = row;
    }
  }

 private:
  std::unordered_map<std::string_view, Row> rows_;
};

}  // namespace ridge
