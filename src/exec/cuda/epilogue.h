#pragma once
// The activations a layer's epilogue kernel computes (kernels.h: epilogue), from the optimization plan's activation
// (what the interpreter offers to take) or the attributes the optimized graph gives the layer (what the kernel then
// runs). One table, so the two never disagree.
#include <string>

#include "exec/cuda/kernels.h"
#include "exec/cuda/op_kernel.h"
#include "exec/optimization_plan.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// The kernel's op for an activation of the plan (kNone for none).
EpilogueOp epilogue_op(FusedActivation activation);

// What the optimized graph asks `layer` to compute: its "ridge.activation" (exec/optimized_graph.h), and a clip's
// bounds. name is "" without one. Throws ridge::Error for an activation the kernel does not compute.
struct LayerActivation {
  std::string name;
  EpilogueOp op = EpilogueOp::kNone;
  float lo = 0, hi = 0;
  Epilogue epilogue() const;  // the kernel's activation part (op and bounds); the caller adds bias and residual
};
LayerActivation layer_activation(const graph::Node& layer);
// The same of the kernel's node, failing as the kernel does (ctx.fail) for an activation it does not compute.
LayerActivation layer_activation(const KernelContext& ctx);

}  // namespace ridge::exec::cuda
