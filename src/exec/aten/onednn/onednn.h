#pragma once
// Convolutions and fully connected layers run on oneDNN's primitives directly (libdnnl, the same
// library ATen's CPU path uses), for what ATen 1.13 does not expose: weights reordered once into
// the primitive's own layout (ATen's linear reorders them on every call), and an activation fused
// into the layer as a post-op (Conv+Clip, Conv+SiLU, MatMul+GELU), as graph compilers do. Activations stay
// ordinary ATen tensors (convolutions in channels-last order), so every other kernel reads them.
#include <ATen/ATen.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace ridge::exec::aten {

// An elementwise function applied to a layer's output, fused into it by optimized mode.
struct Activation {
  enum class Kind { kNone, kRelu, kClip, kSilu, kGeluErf, kGeluTanh, kHardSwish };
  Kind kind = Kind::kNone;
  float min = 0, max = 0;  // kClip's bounds

  std::string name() const;
  // The same function on ATen, for paths that do not fuse it.
  at::Tensor apply(const at::Tensor& y) const;
};

// Whether the oneDNN paths may run: fp32 inference without autocast.
bool onednn_usable(const at::Tensor& x, const at::Tensor& weight);

// What optimized mode fused into a layer: a residual tensor of the output's shape added (the Add
// of a residual connection) and an activation, in the order the graph had them. The residual is
// the layer's input 3 (after data, weight and bias) in optimized graphs.
struct Epilogue {
  static constexpr size_t kResidualInput = 3;
  bool residual = false;
  bool residual_last = false;  // added after the activation instead of before
  Activation activation;

  bool fused() const { return residual || activation.kind != Activation::Kind::kNone; }
  // The same on ATen, for paths that do not fuse it.
  at::Tensor apply(const at::Tensor& y, const at::Tensor& residual) const;
  // What the profile appends to the layer's algorithm: "+add+relu", "" when nothing was fused.
  std::string suffix() const;
};

// y[M, N] = x[M, K] * W + bias (+ residual), activated; W given as [K, N] or [N, K].
class OnednnLinear {
 public:
  OnednnLinear(const at::Tensor& weight, bool weight_is_n_by_k, const at::Tensor& bias, Epilogue epilogue);
  // x: [..., K]; residual (when the epilogue has one): [..., N]. Returns [..., N].
  at::Tensor run(const at::Tensor& x, const at::Tensor& residual = {});

 private:
  struct Compiled;
  Compiled& compiled(int64_t rows);
  at::Tensor weight_, bias_;
  bool weight_is_n_by_k_;
  Epilogue epilogue_;
  std::map<int64_t, std::shared_ptr<Compiled>> by_rows_;
};

// A batched product of two computed tensors, A[B..., M, K] x B[B..., K, N], with the same batch
// dims (attention's Q x K^T and P x V), on oneDNN's matmul primitive. The operands are read with
// their own strides, so transposed views are not copied first as ATen's bmm copies them.
class OnednnBatchedMatmul {
 public:
  static bool applies(const at::Tensor& a, const at::Tensor& b);
  at::Tensor run(const at::Tensor& a, const at::Tensor& b);

 private:
  struct Compiled;
  std::map<std::vector<int64_t>, std::shared_ptr<Compiled>> by_layout_;
};

struct ConvGeometry2d {
  std::vector<int64_t> stride, dilation, pad_begin, pad_end;
  int64_t groups = 1;
};

// A 2-D convolution on channels-last activations (inside, on oneDNN's preferred layout where that ran faster at the
// first run: onednn.cpp).
class OnednnConv {
 public:
  OnednnConv(const at::Tensor& weight, const at::Tensor& bias, ConvGeometry2d geometry, Epilogue epilogue);
  // x: [N, C, H, W] and the residual, when the epilogue has one, in any layout; returns channels-last.
  at::Tensor run(const at::Tensor& x, const at::Tensor& residual = {});
  // Whether the last run computed on oneDNN's blocked layout (activations reordered in and out), not channels-last:
  // what the profile names.
  bool ran_blocked() const { return ran_blocked_; }

 private:
  struct Compiled;
  Compiled& compiled(const std::vector<int64_t>& input_shape);
  void run_blocked(Compiled& c, const at::Tensor& input, at::Tensor& y);
  bool ran_blocked_ = false;
  at::Tensor weight_, bias_;
  ConvGeometry2d geometry_;
  Epilogue epilogue_;
  std::map<std::vector<int64_t>, std::shared_ptr<Compiled>> by_shape_;
};

}  // namespace ridge::exec::aten
