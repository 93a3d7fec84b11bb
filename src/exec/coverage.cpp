#include "exec/coverage.h"

#include <fmt/format.h>

#include <map>

#include "cost/registry.h"
#include "exec/op_table.h"
#include "shape/registry.h"

namespace ridge::exec {

std::vector<OpCoverage> op_coverage() {
  std::map<std::string_view, OpCoverage> ops;
  auto mark = [&](const std::vector<std::string_view>& types, bool OpCoverage::*column) {
    for (auto op : types) {
      auto& row = ops[op];
      row.op_type = op;
      row.*column = true;
    }
  };
  mark(shape::ShapeRegistry::instance().op_types(), &OpCoverage::shape);
  mark(cost::CostRegistry::instance().op_types(), &OpCoverage::cost);
  mark(OpRegistry::instance().op_types(), &OpCoverage::exec);
  for (auto& [op, row] : ops) {
    const auto* exec_row = row.exec ? find_op(op) : nullptr;
    if (!exec_row) continue;
    row.gpu = !exec_row->has(kNoGpuKernel);
    row.gpu_folds = exec_row->has(kGpuFolds);
    row.gpu_rewrites = exec_row->has(kGpuRewrites);
  }
  std::vector<OpCoverage> rows;
  for (const auto& [op, row] : ops) rows.push_back(row);
  return rows;
}

std::string coverage_summary(const std::vector<OpCoverage>& ops) {
  size_t shape = 0, cost = 0, exec = 0, gpu = 0, folds = 0, rewrites = 0;
  for (const auto& op : ops) {
    shape += op.shape;
    cost += op.cost;
    exec += op.exec;
    gpu += op.gpu;
    folds += !op.gpu && op.gpu_folds;
    rewrites += !op.gpu && op.gpu_rewrites;
  }
  return fmt::format(
      "{} ops: {} with shape rules, {} with cost rules, {} executable, {} on the GPU ({} more fold there, {} are "
      "rewritten there where known before the run).",
      ops.size(), shape, cost, exec, gpu, folds, rewrites);
}

}  // namespace ridge::exec
