#pragma once
// Convolution algorithms the executor can run on the CPU, chosen per layer (--conv-algo):
//   direct    oneDNN's direct convolution (ATen's mkldnn_convolution)
//   gemm      im2col (unfold) + one matrix product per group
//   fft       the convolution theorem: real FFTs of input and kernel, a channel-summed spectral
//             product, inverse FFT, then the strided crop
//   winograd  F(2x2, 3x3): 4x4 input tiles, 16 elementwise products per tile instead of 36 MACs
//             per 2x2 outputs (3x3 kernels, stride 1, dilation 1, 2-D only)
//   auto      whatever ATen's at::convolution picks
#include <ATen/ATen.h>

#include <string>
#include <vector>

namespace ridge::exec::aten {

// Symmetric padding already applied to `input` (pads here are zero); 2-D convolutions.
struct ConvGeometry {
  std::vector<int64_t> stride, dilation;
  int64_t groups = 1;
};

// Whether `algorithm` can run this convolution (rank, kernel, stride, dilation).
bool conv_algorithm_applies(const std::string& algorithm, const at::Tensor& input, const at::Tensor& weight,
                            const ConvGeometry& geometry);
// Runs a padded-input convolution with `algorithm`; `bias` may be undefined.
at::Tensor run_conv_algorithm(const std::string& algorithm, const at::Tensor& input, const at::Tensor& weight,
                              const at::Tensor& bias, const ConvGeometry& geometry);

}  // namespace ridge::exec::aten
