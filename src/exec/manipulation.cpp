// The manipulation ops the executor runs (their kernels: src/exec/aten/kernels/manipulation.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_manipulation_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("manipulation", {
      {"Reshape"}, {"Flatten"}, {"Transpose"}, {"Squeeze"}, {"Unsqueeze"}, {"Concat"}, {"Split"},
      {"Slice"}, {"Gather"}, {"GatherElements"}, {"GatherND"}, {"Scatter"}, {"ScatterElements"},
      {"ScatterND"}, {"Expand"}, {"Tile"}, {"Pad"}, {"Shape", kNoGpuKernel | kGpuFolds},
      {"Size", kNoGpuKernel | kGpuFolds}, {"Constant", kNoGpuKernel | kGpuFolds},
      {"ConstantOfShape"}, {"Range"}, {"DepthToSpace"}, {"SpaceToDepth"}, {"Trilu"}, {"NonZero"},
      {"OneHot"}, {"EyeLike"}, {"Compress"}, {"ReverseSequence"}, {"GridSample"}, {"Unique"},
  });
  // clang-format on
}

}  // namespace ridge::exec
