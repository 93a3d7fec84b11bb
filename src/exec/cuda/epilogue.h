#pragma once
// Which activations the GPU's matrix products compute in their epilogue (kernels.h: bias_activation), from the
// optimization plan's activation (what the interpreter offers to take) or the "ridge.activation" attribute the
// optimized graph gives the product (what the kernel then runs). One table, so the two never disagree.
#include <string_view>

#include "exec/cuda/kernels.h"
#include "exec/optimization_plan.h"

namespace ridge::exec::cuda {

// kNone where the epilogue kernel does not compute it (Clip: its bounds are not on the attribute; it stays a node).
EpilogueOp product_epilogue(FusedActivation activation);
// The attribute's name (exec::name(FusedActivation)); kNone for "" and for a name the kernel does not compute.
EpilogueOp product_epilogue(std::string_view attribute);

}  // namespace ridge::exec::cuda
