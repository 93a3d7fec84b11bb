#pragma once
// ONNX's reductions worked out on the host (and tested there): which axes a node reduces and the walk the GPU kernel
// takes (reduce_cell.h).
#include <cstdint>
#include <string_view>
#include <vector>

#include "exec/cuda/reduce_cell.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// The op of a node type (ReduceSum ... ArgMin); throws ridge::Error for another.
ReduceOp reduce_op(std::string_view op_type);

// The axes a node reduces over an input of `rank`, normalized and sorted: ArgMax/ArgMin's `axis`; a reduction's
// `axes` attribute (opsets before 13, or 18 for most) or the values of its second input (`axes_input`, null when the
// node has none); all axes when none are given, unless noop_with_empty_axes asks for the input unchanged (`noop`).
// Throws ridge::Error in one line for an axis out of range or given twice.
std::vector<int64_t> reduce_axes(const graph::Node& node, int64_t rank, const std::vector<int64_t>* axes_input,
                                 bool& noop);

// MeanVarianceNormalization (its `axes`, [0, 2, 3] by default) or LpNormalization (its `axis`, -1 by default, and
// `p`, 1 or 2) over an input of `rank`: the op, and the axes of a group in `axes`, normalized and sorted. Throws
// ridge::Error in one line for another op, another p, or an axis out of range or given twice.
WalkNorm walk_norm(const graph::Node& node, int64_t rank, std::vector<int64_t>& axes);

// The walk for an input of `dims` reduced over `axes` (as reduce_axes returns them).
ReducePlan reduce_plan(const std::vector<int64_t>& dims, const std::vector<int64_t>& axes);

}  // namespace ridge::exec::cuda
