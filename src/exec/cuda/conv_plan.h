#pragma once
// What a convolution node asks of cuDNN, worked out on the host: the window from ONNX's attributes
// (auto_pad resolved as shape inference resolves it), the explicit padding cuDNN cannot express
// (it takes one pad per dim: asymmetric pads are applied to a padded copy of the input), the mapping
// between ridge's algorithm names and cuDNN's, and the algorithm chosen for a layer.
#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "exec/options.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

struct ConvGeometry {
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
  int64_t group = 1;
  // Pads cuDNN applies (one per dim) and the padding applied to a copy of the input first: all zero
  // when the pads are symmetric.
  std::vector<int64_t> cudnn_pads, copy_pad_begin, copy_pad_end;
  bool needs_padded_copy() const;
};

// Throws ridge::Error naming what is wrong (a kernel that does not fit, a bad auto_pad).
ConvGeometry conv_geometry(const graph::Node& node, const std::vector<int64_t>& input_dims,
                           const std::vector<int64_t>& weight_dims);

// A ConvTranspose as the GPU runs it (the CPU executor's way): cuDNN's backward data with no padding into `extended`,
// [N, C_out, s (in - 1) + d (k - 1) + 1 + output_padding ...] (the bias added there), then the output read from it at
// `begin` per spatial dim (pads, or the auto_pad/output_shape split), zeros where it reaches past it.
struct ConvTransposeGeometry {
  std::vector<int64_t> strides, dilations, extended, begin;
  int64_t group = 1;
};
// From the input, weight and output dims (shape inference's); throws ridge::Error naming what is wrong.
ConvTransposeGeometry conv_transpose_geometry(const graph::Node& node, const std::vector<int64_t>& input_dims,
                                              const std::vector<int64_t>& weight_dims,
                                              const std::vector<int64_t>& output_dims);

// ridge's names of cuDNN's eight forward algorithms and back; kHeuristic, kLegacyHeuristic and kBenchmark have no cuDNN
// value.
cudnnConvolutionFwdAlgo_t to_cudnn(CudnnConvAlgo algorithm);
CudnnConvAlgo from_cudnn(cudnnConvolutionFwdAlgo_t algorithm);
bool is_fixed(CudnnConvAlgo algorithm);  // one of the eight
std::vector<CudnnConvAlgo> fixed_algorithms();

// The math a precision allows cuDNN: fp32 FMA only (no TF32), TF32 for tf32 (cuDNN's default math), tensor
// cores on 16-bit data for fp16/bf16; never ALLOW_CONVERSION (fp32 data run as fp16).
cudnnMathType_t math_type(Precision precision);

struct ConvChoice {
  cudnnConvolutionFwdAlgo_t algorithm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspace_bytes = 0;
  std::string note;  // the requested algorithm and why another ran
};

// The algorithm for one layer: `requested` where cuDNN supports it for these descriptors and its
// workspace fits `workspace_limit`, else cuDNN's legacy heuristic choice with a note naming why (kHeuristic too: the
// graph API's engine is conv_graph.h's, and this choice what runs where it offers none);
// kBenchmark times every algorithm once (cudnnFindConvolutionForwardAlgorithm). A heuristic or benchmark
// entry's math type is set on `conv` (cuDNN runs what it measured); for fp32 entries on tensor cores are
// passed over. Needs a GPU.
ConvChoice choose_algorithm(cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                            cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, CudnnConvAlgo requested,
                            size_t workspace_limit, Precision precision);

}  // namespace ridge::exec::cuda
