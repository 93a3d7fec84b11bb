#pragma once
// The plans of the GPU's index-driven ops (index_cell.h), worked out on the host from the tensors' dims and the
// node's attributes, and tested there. Each throws ridge::Error in one line where the dims do not fit together.
#include <cstdint>
#include <vector>

#include "exec/cuda/index_cell.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// GatherElements or ScatterElements of indices of `index_dims` into data of `data_dims` along `axis` (negative counts
// from the end): the same rank, and no index dim but the axis's larger than data's.
ElementsPlan elements_plan(const std::vector<int64_t>& data_dims, const std::vector<int64_t>& index_dims, int64_t axis);

// GatherND (with `batch_dims`) or ScatterND (batch_dims 0) of indices of `index_dims` into data of `data_dims`: the
// indices' last dim indexes data's dims from batch_dims on, and their leading batch_dims dims equal data's.
NdPlan nd_plan(const std::vector<int64_t>& data_dims, const std::vector<int64_t>& index_dims, int64_t batch_dims);

// A scatter's `reduction` attribute (opset 16 and later; none before).
ScatterReduce scatter_reduce(const graph::Node& node);

// CumSum over `dims` along `axis` (negative counts from the end), with the node's exclusive and reverse.
CumSumPlan cumsum_plan(const graph::Node& node, const std::vector<int64_t>& dims, int64_t axis);

// TopK of `k` over `dims` along the node's axis (-1 by default), with its `largest`; k in [0, the axis's dim].
// OneHot of indices of `index_dims` into `depth` classes along the node's `axis` (-1 by default: a new last dim; the
// output's rank is the indices' plus one). Throws ridge::Error for a depth below 1 or an axis out of range.
OneHotPlan one_hot_plan(const graph::Node& node, const std::vector<int64_t>& index_dims, int64_t depth);

// Hardmax over an input of `dims`: along the node's axis (opset 13 and later; -1 by default), or before opset 13 over
// the input flattened to 2-D at the axis (1 by default), the depth being every dim from it on. Throws ridge::Error for
// an axis out of range.
OneHotPlan hardmax_plan(const graph::Node& node, const std::vector<int64_t>& dims, int64_t opset);

// Compress of an input of `dims` by a 1-D condition of `condition_length` along the node's `axis` (none: flattened).
// Throws ridge::Error for an axis out of range.
CompressPlan compress_plan(const graph::Node& node, const std::vector<int64_t>& dims, int64_t condition_length);

// ReverseSequence over an input of `dims` (rank 2 or more) with `lens_dims` [batch]: time_axis and batch_axis 0 and 1
// (either way round, ONNX's only choices). Throws ridge::Error for other axes or a lengths input of other dims.
ReverseSequencePlan reverse_sequence_plan(const graph::Node& node, const std::vector<int64_t>& dims,
                                          const std::vector<int64_t>& lens_dims);

TopKPlan topk_plan(const graph::Node& node, const std::vector<int64_t>& dims, int64_t k);

}  // namespace ridge::exec::cuda
