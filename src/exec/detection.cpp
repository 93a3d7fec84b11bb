// The detection ops the executor runs (their kernels: src/exec/aten/kernels/detection.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_detection_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("detection", {
      {"NonMaxSuppression"}, {"RoiAlign"},
  });
  // clang-format on
}

}  // namespace ridge::exec
