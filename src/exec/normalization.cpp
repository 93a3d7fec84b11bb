// The normalization ops the executor runs (their kernels: src/exec/aten/kernels/normalization.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_normalization_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("normalization", {
      {"BatchNormalization", kNoTraits, (1u << 1) | (1u << 4)},
      {"InstanceNormalization", kNoTraits, 1u << 1}, {"LayerNormalization", kNoTraits, 1u << 1},
      {"SimplifiedLayerNormalization", kNoTraits, 1u << 1},
      {"RMSNormalization", kNoTraits, 1u << 1}, {"GroupNormalization", kNoTraits, 1u << 1},
      {"LpNormalization"}, {"LRN"}, {"MeanVarianceNormalization"},
  });
  // clang-format on
}

}  // namespace ridge::exec
