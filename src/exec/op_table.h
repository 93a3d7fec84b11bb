#pragma once
// The ops the executor runs, with what the executor needs to know of them, known without loading
// the executor module (libtorch): one row per op type, added by the family files src/exec/<family>.cpp,
// which match the kernel families of src/exec/aten/kernels/ (a test checks the two tables agree).
#include <string_view>

#include "util/registry.h"

namespace ridge::exec {

enum OpTrait : unsigned {
  kNoTraits = 0,
  kLayer =
      1u << 0,  // a convolution or matrix product with a weight: layers.csv describes it, optimized mode fuses into it
  kRandom = 1u << 1,  // draws random numbers: never folded into a constant
  // The GPU executor has no kernel for it (src/exec/cuda; a test checks the GPU's table against these bits).
  kNoGpuKernel = 1u << 2,
  // With kNoGpuKernel: it never needs one, its value a constant the GPU folds or uploads once (Constant; Shape and
  // Size, whose input's dims are known but after an op whose output size depends on the data).
  kGpuFolds = 1u << 3,
  // With kNoGpuKernel: control flow the GPU runs as straight-line nodes where what it does is known before the run (an
  // If as its taken branch, a Loop or Scan as its iterations: exec/if_inlining.h, exec/loop_unrolling.h).
  kGpuRewrites = 1u << 4,
};

struct OpRow {
  std::string_view op_type;
  unsigned traits = kNoTraits;
  unsigned scale_inputs = 0;     // bit i: input i multiplies (a normalization's scale, a running variance)
  std::string_view family = {};  // set by OpRegistry::add
  bool has(OpTrait trait) const { return (traits & trait) != 0; }
  // Random weights for a scale input are drawn near one (keeps activations sane).
  bool scales_input(size_t i) const { return i < 32 && ((scale_inputs >> i) & 1u) != 0; }
};

using OpRegistry = Registry<OpRow>;

}  // namespace ridge::exec

namespace ridge {
template <>
const exec::OpRegistry& exec::OpRegistry::instance();  // exec/op_table.cpp: the families
}  // namespace ridge

namespace ridge::exec {

// The row of an op type, or null where the executor has no kernel for it.
inline const OpRow* find_op(std::string_view op_type) { return OpRegistry::instance().find(op_type); }

void register_elementwise_ops(OpRegistry& registry);
void register_conv_ops(OpRegistry& registry);
void register_matmul_ops(OpRegistry& registry);
void register_normalization_ops(OpRegistry& registry);
void register_pooling_ops(OpRegistry& registry);
void register_reduction_ops(OpRegistry& registry);
void register_manipulation_ops(OpRegistry& registry);
void register_generator_ops(OpRegistry& registry);
void register_quantization_ops(OpRegistry& registry);
void register_resize_ops(OpRegistry& registry);
void register_attention_ops(OpRegistry& registry);
void register_detection_ops(OpRegistry& registry);
void register_recurrent_ops(OpRegistry& registry);
void register_loss_ops(OpRegistry& registry);
void register_control_ops(OpRegistry& registry);
void register_sequence_ops(OpRegistry& registry);
void register_signal_ops(OpRegistry& registry);

}  // namespace ridge::exec
