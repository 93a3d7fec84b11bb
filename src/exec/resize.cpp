// The resize ops the executor runs (their kernels: src/exec/aten/kernels/resize.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_resize_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("resize", {
      {"Resize"}, {"Upsample"},
  });
  // clang-format on
}

}  // namespace ridge::exec
