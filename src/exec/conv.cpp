// The conv ops the executor runs (their kernels: src/exec/aten/kernels/conv.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_conv_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("conv", {
      {"Conv", kLayer}, {"ConvTranspose", kLayer},
  });
  // clang-format on
}

}  // namespace ridge::exec
