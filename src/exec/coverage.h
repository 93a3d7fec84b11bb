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
  // The GPU executor: has a kernel for it (`gpu`), or needs none, folding or uploading its value (`gpu_folds`), or
  // runs it as straight-line nodes where what it does is known before the run (`gpu_rewrites`: control flow).
  bool gpu = false, gpu_folds = false, gpu_rewrites = false;
  // "yes", "folds", "rewrites" or "no": the `gpu` column of `ridge ops`.
  std::string_view gpu_word() const { return gpu ? "yes" : gpu_folds ? "folds" : gpu_rewrites ? "rewrites" : "no"; }
};

// Every op type any table holds, sorted.
std::vector<OpCoverage> op_coverage();

// "167 ops: 167 with shape rules, 164 with cost rules, 167 executable, 161 on the GPU (3 more fold there, 3 are
// rewritten there where known before the run)."
std::string coverage_summary(const std::vector<OpCoverage>& ops);

}  // namespace ridge::exec
