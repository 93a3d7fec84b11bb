// The reduction ops the executor runs (their kernels: src/exec/aten/kernels/reduction.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_reduction_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("reduction", {
      {"ReduceSum"}, {"ReduceMean"}, {"ReduceMax"}, {"ReduceMin"}, {"ReduceProd"}, {"ReduceL1"}, {"ReduceL2"}, {"ReduceLogSum"},
      {"ReduceLogSumExp"}, {"ReduceSumSquare"}, {"ArgMax"}, {"ArgMin"}, {"Softmax"}, {"LogSoftmax"},
      {"Hardmax"}, {"CumSum"}, {"TopK"},
  });
  // clang-format on
}

}  // namespace ridge::exec
