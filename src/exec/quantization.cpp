// The quantization ops the executor runs (their kernels: src/exec/aten/kernels/quantization.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_quantization_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("quantization", {
      {"QuantizeLinear"}, {"DequantizeLinear"}, {"DynamicQuantizeLinear"}, {"ConvInteger"},
      {"QLinearConv"}, {"QLinearMatMul"},
  });
  // clang-format on
}

}  // namespace ridge::exec
