#pragma once
// Optimized execution mode: the graph rewrites graph compilers make before running a model.
//   1. constant folding: nodes whose inputs are all constants, and Shape/Size of tensors whose
//      shapes are bound, run once now (this removes the shape subgraphs exporters emit);
//   2. BatchNormalization after a convolution is folded into the convolution's weights and bias,
//      and the bias Add after a MatMul with a constant weight into the MatMul (a linear layer);
//   3. no-ops are removed (Identity, inference Dropout, Cast to the same type);
//   4. weights are prepacked: convolution weights in oneDNN's blocked layout for their geometry
//      (fp32, NCHW: activations then stay in that layout between layers), or channels-last when
//      the input is channels-last; GEMM right-hand sides stored transposed;
//   5. nodes whose outputs nothing reads are dropped.
#include <string>
#include <vector>

namespace ridge::exec::aten {

class Interpreter;

struct OptimizeReport {
  int folded_constants = 0, folded_batchnorms = 0, fused_biases = 0, fused_residuals = 0, fused_activations = 0,
      removed_noops = 0, prepacked = 0, dead = 0;
  std::string summary() const;
};

OptimizeReport optimize(Interpreter& interpreter);

}  // namespace ridge::exec::aten
