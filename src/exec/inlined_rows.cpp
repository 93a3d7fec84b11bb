#include "exec/inlined_rows.h"

#include <map>
#include <utility>

#include "util/error.h"

namespace ridge::exec {

const Origin& origin_in(const std::map<graph::ValueId, Origin>& origin_of_output, const graph::Node& node) {
  static const Origin none;
  for (auto id : node.outputs)
    if (auto it = origin_of_output.find(id); it != origin_of_output.end()) return it->second;
  return none;
}

void fold_inlined_rows(const std::vector<Origin>& origin_of_row, std::vector<NodeTiming>& rows) {
  if (origin_of_row.size() != rows.size()) throw Error("fold_inlined_rows: one origin (or none) per row is needed");
  std::vector<NodeTiming> folded;
  std::map<std::string, size_t> row_of_origin;  // origin name -> its row in `folded`
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& origin = origin_of_row[i];
    if (origin.empty()) {
      folded.push_back(std::move(rows[i]));
      continue;
    }
    auto [it, first] = row_of_origin.try_emplace(origin.name, folded.size());
    if (first) {
      NodeTiming t;
      t.name = origin.name;
      t.op_type = origin.op_type;
      t.forward_ms = rows[i].forward_ms < 0 ? -1 : 0;
      t.backward_ms = rows[i].backward_ms < 0 ? -1 : 0;
      folded.push_back(std::move(t));
    }
    // Means and a step's parts add up; a median of a sum is not the sum of medians, and an algorithm is one node's.
    auto& t = folded[it->second];
    t.mean_ms += rows[i].mean_ms;
    if (t.forward_ms >= 0 && rows[i].forward_ms >= 0) t.forward_ms += rows[i].forward_ms;
    if (t.backward_ms >= 0 && rows[i].backward_ms >= 0) t.backward_ms += rows[i].backward_ms;
  }
  rows = std::move(folded);
}

}  // namespace ridge::exec
