// The pooling ops the executor runs (their kernels: src/exec/aten/kernels/pooling.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_pooling_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("pooling", {
      {"MaxPool"}, {"AveragePool"}, {"LpPool"}, {"GlobalAveragePool"}, {"GlobalMaxPool"},
      {"GlobalLpPool"}, {"MaxUnpool"},
  });
  // clang-format on
}

}  // namespace ridge::exec
