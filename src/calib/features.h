#pragma once
// What a shape-aware calibration knows about one layer: its kind (one fitted model per kind and
// execution mode) and the features the fit learns from (work, traffic, geometry, threads).
#include <string>
#include <string_view>
#include <vector>

#include "cost/cost.h"
#include "graph/graph.h"

namespace ridge::calib {

// Kinds of layer whose efficiency behaves alike. A dense, a depthwise and a 1x1 convolution are one
// op family for the cost model but run at very different fractions of peak, so the kind separates
// depthwise (and grouped) convolutions; the kernel size is a feature within a kind.
enum class Kind {
  kConv,          // Conv, ConvTranspose with group 1
  kGroupedConv,   // group > 1 (depthwise: group == channels)
  kMatMul,        // Gemm, MatMul (batched), Einsum products
  kPool,          // MaxPool, AveragePool, global pools
  kNorm,          // BatchNormalization, LayerNormalization, InstanceNorm, LRN, GroupNorm
  kElementwise,   // activations and arithmetic (unary and binary, broadcast)
  kSoftmax,       // Softmax, LogSoftmax
  kReduce,        // ReduceMean, ReduceSum, ...
  kDataMovement,  // Concat, Transpose, Slice, Gather, Pad, Resize, ... (copies)
  kView,          // Reshape, Flatten, Shape, Squeeze, Identity, ...: no work but a dispatch
  kRecurrent,     // LSTM, GRU, RNN: a product per time step, one after the other
  kOther,         // anything else with a cost
};
std::string_view name(Kind kind);
Kind parse_kind(std::string_view text);  // throws ridge::Error listing the names
std::vector<Kind> all_kinds();

// The kind of a costed node (graph node plus its cost record).
Kind kind_of(const graph::Graph& g, const graph::Node& node, const cost::NodeCost& cost);

// Features of one layer. Sizes are plain counts; feature_vector() scales them for the fit.
struct LayerFeatures {
  Kind kind = Kind::kOther;
  std::string op;      // ONNX op type (the first of a fused group)
  std::string family;  // cost family (conv, matmul, ...): chooses the roofline ceiling
  double flops = 0, bytes = 0;
  double batch = 1;                           // leading dim of the output (batched products: all leading dims)
  double in_channels = 0, out_channels = 0;   // convolutions, pools, norms (dim 1)
  double kernel = 0, stride = 0, groups = 1;  // kernel elements (kh x kw), largest stride
  double in_spatial = 0, out_spatial = 0;     // elements per channel (H x W) in and out
  double m = 0, n = 0, k = 0;                 // matrix products: per-product M, N, K; recurrent: per step
                                              // (batch, gates x hidden, input + hidden), in_spatial = steps
  double out_elements = 0;                    // elements written
  double fused_ops = 0;                       // nodes fused into this one (optimized mode)
  double threads = 1;
};

// Fills everything but `threads` and `fused_ops` from the node, its inferred shapes and its cost.
LayerFeatures features_of(const graph::Graph& g, const graph::Node& node, const cost::NodeCost& cost);

// The fit's inputs: log2 of sizes (plus 1), small counts as they are. Same order as feature_names().
std::vector<double> feature_vector(const LayerFeatures& f);
const std::vector<std::string>& feature_names();

}  // namespace ridge::calib
