// The generators ops the executor runs (their kernels: src/exec/aten/kernels/generators.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_generator_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("generator", {
      {"RandomNormal", kRandom}, {"RandomNormalLike", kRandom}, {"RandomUniform", kRandom},
      {"RandomUniformLike", kRandom}, {"Bernoulli", kRandom}, {"HannWindow"}, {"HammingWindow"},
      {"BlackmanWindow"},
  });
  // clang-format on
}

}  // namespace ridge::exec
