#pragma once
// Which ops each module covers (shape rules, cost rules, executor kernels), from their tables,
// without loading the executor module: what `ridge ops` lists.
#include <string>
#include <string_view>
#include <vector>

namespace ridge::exec {

struct OpCoverage {
  std::string_view op_type;
  bool shape = false, cost = false, exec = false;
};

// Every op type any table holds, sorted.
std::vector<OpCoverage> op_coverage();

// "167 ops: 167 with shape rules, 164 with cost rules, 165 executable."
std::string coverage_summary(const std::vector<OpCoverage>& ops);

}  // namespace ridge::exec
