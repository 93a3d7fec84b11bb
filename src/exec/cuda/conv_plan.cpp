#include "exec/cuda/conv_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "shape/spatial.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

// ridge's enum keeps cuDNN's values, so a stored name maps to the same algorithm in every version.
static_assert(static_cast<int>(CudnnConvAlgo::kImplicitGemm) == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
static_assert(static_cast<int>(CudnnConvAlgo::kImplicitPrecompGemm) ==
              CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
static_assert(static_cast<int>(CudnnConvAlgo::kGemm) == CUDNN_CONVOLUTION_FWD_ALGO_GEMM);
static_assert(static_cast<int>(CudnnConvAlgo::kDirect) == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT);
static_assert(static_cast<int>(CudnnConvAlgo::kFft) == CUDNN_CONVOLUTION_FWD_ALGO_FFT);
static_assert(static_cast<int>(CudnnConvAlgo::kFftTiling) == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING);
static_assert(static_cast<int>(CudnnConvAlgo::kWinograd) == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD);
static_assert(static_cast<int>(CudnnConvAlgo::kWinogradNonfused) == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED);
static_assert(CUDNN_CONVOLUTION_FWD_ALGO_COUNT == 8);

bool ConvGeometry::needs_padded_copy() const {
  for (size_t i = 0; i < copy_pad_begin.size(); ++i)
    if (copy_pad_begin[i] != 0 || copy_pad_end[i] != 0) return true;
  return false;
}

ConvGeometry conv_geometry(const graph::Node& node, const std::vector<int64_t>& x, const std::vector<int64_t>& w) {
  if (x.size() < 3 || w.size() != x.size())
    throw Error(
        fmt::format("input of rank {} and weight of rank {}: a convolution takes (N, C, spatial...) and "
                    "(K, C/group, spatial...)",
                    x.size(), w.size()));
  size_t n = x.size() - 2;
  ConvGeometry g;
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  auto declared = node.get_ints("kernel_shape", kernel);
  if (declared != kernel) throw Error("kernel_shape disagrees with the weight's spatial dims");
  g.group = node.get_int("group", 1);
  if (g.group <= 0 || x[1] != w[1] * g.group)
    throw Error(fmt::format("{} input channels do not match the weight's {} x group {}", x[1], w[1], g.group));
  // The window as shape inference resolves it (one rule for every executor), and the check that it fits.
  const std::vector<int64_t> spatial(x.begin() + 2, x.end());
  auto window = shape::resolve_window(node, spatial, kernel);
  shape::window_output_dims(spatial, window);
  g.kernel = std::move(window.kernel);
  g.strides = std::move(window.strides);
  g.dilations = std::move(window.dilations);
  g.pads_begin = std::move(window.pads_begin);
  g.pads_end = std::move(window.pads_end);
  // Symmetric pads go to cuDNN; otherwise the input is padded into a copy and cuDNN pads nothing.
  bool symmetric = g.pads_begin == g.pads_end;
  g.cudnn_pads = symmetric ? g.pads_begin : std::vector<int64_t>(n, 0);
  g.copy_pad_begin = symmetric ? std::vector<int64_t>(n, 0) : g.pads_begin;
  g.copy_pad_end = symmetric ? std::vector<int64_t>(n, 0) : g.pads_end;
  return g;
}

ConvTransposeGeometry conv_transpose_geometry(const graph::Node& node, const std::vector<int64_t>& x,
                                              const std::vector<int64_t>& w, const std::vector<int64_t>& y) {
  if (x.size() < 3 || w.size() != x.size() || y.size() != x.size())
    throw Error(
        fmt::format("input, weight and output of rank {}, {} and {}: a transposed convolution takes (N, C, "
                    "spatial...) and (C, K/group, spatial...)",
                    x.size(), w.size(), y.size()));
  const size_t n = x.size() - 2;
  ConvTransposeGeometry g;
  g.group = node.get_int("group", 1);
  if (g.group <= 0 || x[1] != w[0] || y[1] != w[1] * g.group)
    throw Error(fmt::format("{} input and {} output channels do not match the weight [{}, {}, ...] and group {}", x[1],
                            y[1], w[0], w[1], g.group));
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  if (node.get_ints("kernel_shape", kernel) != kernel) throw Error("kernel_shape disagrees with the weight's dims");
  g.strides = node.get_ints("strides", std::vector<int64_t>(n, 1));
  g.dilations = node.get_ints("dilations", std::vector<int64_t>(n, 1));
  auto output_padding = node.get_ints("output_padding", std::vector<int64_t>(n, 0));
  auto pads = node.get_ints("pads", std::vector<int64_t>(2 * n, 0));
  auto output_shape = node.get_ints("output_shape");
  auto auto_pad = node.get_string("auto_pad", "NOTSET");
  if (g.strides.size() != n || g.dilations.size() != n || output_padding.size() != n || pads.size() != 2 * n)
    throw Error("window attributes do not match the number of spatial dims");
  if (output_shape.size() > n) output_shape.erase(output_shape.begin(), output_shape.end() - static_cast<long>(n));
  g.extended = {x[0], y[1]};
  for (size_t i = 0; i < n; ++i) {
    if (g.strides[i] <= 0 || g.dilations[i] <= 0) throw Error("strides and dilations must be positive");
    if (output_padding[i] < 0 || output_padding[i] >= std::max(g.strides[i], g.dilations[i]))
      throw Error(fmt::format("output_padding {} is not below the stride or dilation", output_padding[i]));
    int64_t full = g.strides[i] * (x[i + 2] - 1) + g.dilations[i] * (kernel[i] - 1) + 1 + output_padding[i];
    g.extended.push_back(full);
    if (!output_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      int64_t total = full - y[i + 2];
      g.begin.push_back(total < 0 ? 0 : (auto_pad != "SAME_LOWER" ? total / 2 : total - total / 2));
    } else {
      g.begin.push_back(auto_pad == "VALID" ? 0 : pads[i]);
    }
  }
  return g;
}

cudnnConvolutionFwdAlgo_t to_cudnn(CudnnConvAlgo algorithm) {
  if (!is_fixed(algorithm))
    throw Error(fmt::format("'{}' picks an algorithm per layer; it is no cuDNN algorithm", name(algorithm)));
  return static_cast<cudnnConvolutionFwdAlgo_t>(static_cast<int>(algorithm));
}

CudnnConvAlgo from_cudnn(cudnnConvolutionFwdAlgo_t algorithm) {
  int value = static_cast<int>(algorithm);
  if (value < 0 || value >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
    throw Error(fmt::format("cuDNN forward algorithm {} is unknown to ridge", value));
  return static_cast<CudnnConvAlgo>(value);
}

bool is_fixed(CudnnConvAlgo algorithm) {
  return algorithm != CudnnConvAlgo::kHeuristic && algorithm != CudnnConvAlgo::kBenchmark &&
         algorithm != CudnnConvAlgo::kLegacyHeuristic;
}

std::vector<CudnnConvAlgo> fixed_algorithms() {
  std::vector<CudnnConvAlgo> out;
  for (int i = 0; i < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++i) out.push_back(static_cast<CudnnConvAlgo>(i));
  return out;
}

// ALLOW_CONVERSION would let cuDNN run fp32 data as fp16 on tensor cores: never asked for. DEFAULT_MATH is
// what allows TF32 for fp32 data (Ampere and later); FMA_MATH forbids it.
cudnnMathType_t math_type(Precision precision) {
  switch (precision) {
    case Precision::kFp32:
      return CUDNN_FMA_MATH;
    case Precision::kTf32:
      return CUDNN_DEFAULT_MATH;
    default:
      return CUDNN_TENSOR_OP_MATH;
  }
}

namespace {

// The first entry (cuDNN sorts them: by expected or measured time) that ran, fits in memory and keeps
// the precision: its math type becomes the descriptor's.
bool take(const cudnnConvolutionFwdAlgoPerf_t* perf, int count, size_t limit, Precision precision,
          cudnnConvolutionDescriptor_t conv, ConvChoice& choice) {
  for (int i = 0; i < count; ++i) {
    const auto& p = perf[i];
    bool tensor_ops = p.mathType == CUDNN_TENSOR_OP_MATH || p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    if (p.status != CUDNN_STATUS_SUCCESS || p.memory > limit) continue;
    if (p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION || (precision == Precision::kFp32 && tensor_ops)) continue;
    check(cudnnSetConvolutionMathType(conv, p.mathType), "cudnnSetConvolutionMathType");
    choice = {p.algo, p.memory, {}};
    return true;
  }
  return false;
}

ConvChoice heuristic(cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                     cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, size_t limit, Precision precision) {
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  check(
      cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf),
      "cudnnGetConvolutionForwardAlgorithm_v7");
  ConvChoice choice;
  if (take(perf, returned, limit, precision, conv, choice)) return choice;
  throw Error("cuDNN's heuristic found no algorithm for this convolution within the free GPU memory");
}

}  // namespace

ConvChoice choose_algorithm(cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                            cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, CudnnConvAlgo requested,
                            size_t limit, Precision precision) {
  if (requested == CudnnConvAlgo::kHeuristic || requested == CudnnConvAlgo::kLegacyHeuristic)
    return heuristic(handle, x, w, conv, y, limit, precision);
  if (requested == CudnnConvAlgo::kBenchmark) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    check(
        cudnnFindConvolutionForwardAlgorithm(handle, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf),
        "cudnnFindConvolutionForwardAlgorithm");
    ConvChoice choice;
    if (take(perf, returned, limit, precision, conv, choice)) return choice;
    auto fallback = heuristic(handle, x, w, conv, y, limit, precision);
    fallback.note = "benchmark: no algorithm ran within the free GPU memory; ran the heuristic's choice";
    return fallback;
  }
  auto algorithm = to_cudnn(requested);
  size_t bytes = 0;
  auto status = cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, algorithm, &bytes);
  if (status == CUDNN_STATUS_SUCCESS && bytes <= limit) return {algorithm, bytes, {}};
  auto fallback = heuristic(handle, x, w, conv, y, limit, precision);
  fallback.note = status == CUDNN_STATUS_SUCCESS
                      ? fmt::format("{} needs {:.1f} MB of workspace, more than is free; ran {}", name(requested),
                                    static_cast<double>(bytes) / 1e6, name(from_cudnn(fallback.algorithm)))
                      : fmt::format("{} is not supported for this layer ({}); ran {}", name(requested),
                                    cudnnGetErrorString(status), name(from_cudnn(fallback.algorithm)));
  return fallback;
}

}  // namespace ridge::exec::cuda
