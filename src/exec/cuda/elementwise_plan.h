#pragma once
// Which elementwise kernel an ONNX node runs, with its parameters from the node's attributes (Selu's alpha and gamma,
// Gelu's approximation, Mod's fmod...): one table for the GPU's registry and the host-side tests.
#include <optional>
#include <string_view>
#include <vector>

#include "exec/cuda/kernels.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

struct UnaryCall {
  UnaryOp op = UnaryOp::kIdentity;
  float a = 0.f, b = 0.f;
};

// The unary op of a node whose parameters are attributes (not Clip: its bounds are inputs); nullopt for another op.
// Throws ridge::Error for an attribute value the op does not define (Gelu's approximate other than none or tanh).
std::optional<UnaryCall> unary_call(const graph::Node& node);
// The node types unary_call takes.
std::vector<std::string_view> unary_op_types();

// The binary op of a node (Add ... Or, PRelu, Mod with its fmod); nullopt for another op.
std::optional<BinaryOp> binary_call(const graph::Node& node);
std::vector<std::string_view> binary_op_types();

}  // namespace ridge::exec::cuda
