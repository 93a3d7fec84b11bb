// The matmul ops the executor runs (their kernels: src/exec/aten/kernels/matmul.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_matmul_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("matmul", {
      {"MatMul", kLayer}, {"Gemm", kLayer}, {"MatMulInteger"}, {"Einsum"}, {"Det"},
  });
  // clang-format on
}

}  // namespace ridge::exec
