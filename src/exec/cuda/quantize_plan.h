#pragma once
// The plan of the GPU's linear quantization (quantize_cell.h) for QuantizeLinear and DequantizeLinear, worked out on
// the host from the tensors' dims and types and the node's attributes, and tested there. What the ops ask and the GPU
// does not do is refused in one line (ridge::Error): blocked quantization (opset 21's block_size), integer types other
// than uint8, int8 and int32, float8.
#include <cstdint>
#include <optional>
#include <vector>

#include "exec/cuda/quantize_cell.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// The integer side of a quantization of `dtype`; throws ridge::Error naming the type where it is not uint8, int8 or
// int32 (int32: DequantizeLinear's input alone; `quantizing` refuses it as QuantizeLinear's output).
QuantType quant_type(graph::DType dtype, bool quantizing);

// The walk for an input of `x_dims` quantized by a scale of `scale_dims` (one element: per tensor; 1-D: per channel
// along the node's `axis`, 1 by default, of that dim's size) and a zero point of `zero_point_dims` (none: 0; else the
// scale's dims), whose integer side is `type`. Throws ridge::Error for a block_size other than 0, a scale of another
// rank or size, a zero point unlike the scale, an axis out of range.
QuantizePlan quantize_plan(const graph::Node& node, const std::vector<int64_t>& x_dims,
                           const std::vector<int64_t>& scale_dims,
                           const std::optional<std::vector<int64_t>>& zero_point_dims, QuantType type);

}  // namespace ridge::exec::cuda
