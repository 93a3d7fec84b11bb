// The decoder's ops the executor runs (their kernels: src/exec/aten/kernels/attention.cpp), with their
// traits: known without loading libtorch. The GPU has Attention; RotaryEmbedding and TensorScatter it names.
#include "exec/op_table.h"

namespace ridge::exec {

void register_attention_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("attention", {
      {"Attention"}, {"RotaryEmbedding", kNoGpuKernel}, {"TensorScatter", kNoGpuKernel},
  });
  // clang-format on
}

}  // namespace ridge::exec
