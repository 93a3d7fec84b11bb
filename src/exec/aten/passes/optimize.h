#pragma once
// Optimized execution mode: the graph rewrites graph compilers make before running a model. Which nodes fold,
// go or join a layer is exec/optimization_plan.h's (libtorch-free, and what predictions read); this pass carries it
// out on the ATen interpreter:
//   1. the folded nodes run once now (this removes the shape subgraphs exporters emit);
//   2. no-ops are removed (Identity, inference Dropout, Cast to the same type);
//   3. a BatchNormalization is folded into the convolution's weights and bias, a MatMul takes its bias Add, and a
//      residual Add and an activation join the layer as oneDNN post-ops;
//   4. weights are prepacked: convolution weights in oneDNN's blocked layout for their geometry
//      (fp32, NCHW: activations then stay in that layout between layers), or channels-last when
//      the input is channels-last; GEMM right-hand sides stored transposed;
//   5. the plan's dead nodes are dropped.
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
