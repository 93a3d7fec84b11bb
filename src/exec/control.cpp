// The control ops the executor runs (their kernels: src/exec/aten/kernels/control.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_control_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("control", {
      {"If", kNoGpuKernel | kGpuRewrites}, {"Loop", kNoGpuKernel | kGpuRewrites}, {"Scan", kNoGpuKernel | kGpuRewrites},
  });
  // clang-format on
}

}  // namespace ridge::exec
