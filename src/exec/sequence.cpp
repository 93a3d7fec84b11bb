// The sequence ops the executor runs (their kernels: src/exec/aten/kernels/sequence.cpp), with their traits: known
// without loading libtorch. The GPU has no sequence values: once its loops are unrolled, the sequences they built are
// lists of known tensors, rewritten into the tensor ops that read them (exec/sequence_elimination.h).
#include "exec/op_table.h"

namespace ridge::exec {

void register_sequence_ops(OpRegistry& registry) {
  constexpr unsigned R = kNoGpuKernel | kGpuRewrites;
  // clang-format off
  registry.add("sequence", {
      {"SequenceEmpty", R}, {"SequenceConstruct", R}, {"SequenceInsert", R}, {"SequenceErase", R},
      {"SequenceAt", R}, {"SequenceLength", R}, {"ConcatFromSequence", R}, {"SplitToSequence", R},
  });
  // clang-format on
}

}  // namespace ridge::exec
