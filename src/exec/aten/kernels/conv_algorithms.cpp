#include "exec/aten/kernels/conv_algorithms.h"

#include <ATen/Context.h>

#include "util/error.h"

namespace ridge::exec::aten {

namespace {

bool unit(const std::vector<int64_t>& v) {
  for (auto x : v)
    if (x != 1) return false;
  return true;
}

at::Tensor add_bias(at::Tensor y, const at::Tensor& bias) {
  if (bias.defined()) y = y + bias.view({1, -1, 1, 1});
  return y;
}

at::Tensor gemm_conv(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias, const ConvGeometry& g) {
  int64_t n = x.size(0), oc = w.size(0), kh = w.size(2), kw = w.size(3);
  int64_t oh = (x.size(2) - g.dilation[0] * (kh - 1) - 1) / g.stride[0] + 1;
  int64_t ow = (x.size(3) - g.dilation[1] * (kw - 1) - 1) / g.stride[1] + 1;
  // columns: [N, C*kh*kw, OH*OW], the im2col workspace
  auto columns = at::im2col(x, {kh, kw}, g.dilation, {0, 0}, g.stride);
  int64_t ck = columns.size(1) / g.groups;
  auto cols = columns.view({n, g.groups, ck, oh * ow});
  auto weights = w.reshape({g.groups, oc / g.groups, ck});
  auto y = at::matmul(weights.unsqueeze(0), cols);  // [N, groups, OC/groups, OH*OW]
  return add_bias(y.reshape({n, oc, oh, ow}), bias);
}

at::Tensor fft_conv(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias, const ConvGeometry& g) {
  int64_t n = x.size(0), c = x.size(1), h = x.size(2), wd = x.size(3), oc = w.size(0);
  int64_t kh = w.size(2), kw = w.size(3);
  int64_t oh_full = h - kh + 1, ow_full = wd - kw + 1;  // stride-1 valid correlation
  auto xs = at::fft_rfft2(x, at::IntArrayRef{h, wd});
  // Correlation = convolution with the flipped kernel; zero-padded to the input size.
  auto ws = at::fft_rfft2(at::flip(w, {2, 3}), at::IntArrayRef{h, wd});
  int64_t cg = c / g.groups, og = oc / g.groups;
  auto xs_g = xs.view({n, g.groups, 1, cg, h, wd / 2 + 1});
  auto ws_g = ws.view({1, g.groups, og, cg, h, wd / 2 + 1});
  auto ys = (xs_g * ws_g).sum(3).reshape({n, oc, h, wd / 2 + 1});
  auto full = at::fft_irfft2(ys, at::IntArrayRef{h, wd});
  // The valid part starts at (kh-1, kw-1) of the circular result; then the stride.
  auto y = full.slice(2, kh - 1, kh - 1 + oh_full, g.stride[0]).slice(3, kw - 1, kw - 1 + ow_full, g.stride[1]);
  return add_bias(y.contiguous(), bias);
}

// Winograd F(2x2, 3x3) (Lavin & Gray, 2015): Y = A^T [ (G g G^T) . (B^T d B) ] A per 4x4 tile.
at::Tensor winograd_conv(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias, const ConvGeometry& g) {
  auto opts = x.options();
  auto matrix = [&](std::vector<double> v, int64_t rows, int64_t cols) {
    return at::tensor(v, at::kDouble).to(opts.dtype()).view({rows, cols});
  };
  auto bt = matrix({1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1}, 4, 4);
  auto gm = matrix({1, 0, 0, .5, .5, .5, .5, -.5, .5, 0, 0, 1}, 4, 3);
  auto at_ = matrix({1, 1, 1, 0, 0, 1, -1, -1}, 2, 4);
  int64_t n = x.size(0), c = x.size(1), h = x.size(2), wd = x.size(3), oc = w.size(0);
  int64_t oh = h - 2, ow = wd - 2;
  int64_t th = (oh + 1) / 2, tw = (ow + 1) / 2;
  // Pad so every tile is whole: input covers 2*t + 2 rows/cols.
  auto xp = at::constant_pad_nd(x, {0, 2 * tw + 2 - wd, 0, 2 * th + 2 - h});
  // Tiles: [N, C, th, tw, 4, 4] with stride 2.
  auto tiles = xp.unfold(2, 4, 2).unfold(3, 4, 2);
  auto v = at::matmul(at::matmul(bt, tiles), bt.t());  // B^T d B
  auto u = at::matmul(at::matmul(gm, w), gm.t());      // G g G^T: [OC, C/groups, 4, 4]
  int64_t cg = c / g.groups, og = oc / g.groups;
  // Per tile position (16), a matrix product over input channels: [16, G, OC/G, C/G] x [16, G, C/G, N*th*tw]
  auto v16 =
      v.reshape({n, g.groups, cg, th * tw, 16}).permute({4, 1, 2, 0, 3}).reshape({16, g.groups, cg, n * th * tw});
  auto u16 = u.reshape({g.groups, og, cg, 16}).permute({3, 0, 1, 2});
  auto m = at::matmul(u16, v16);                                            // [16, G, OC/G, N*th*tw]
  auto m44 = m.reshape({4, 4, oc, n, th, tw}).permute({3, 2, 4, 5, 0, 1});  // [N, OC, th, tw, 4, 4]
  auto y = at::matmul(at::matmul(at_, m44), at_.t());                       // [N, OC, th, tw, 2, 2]
  y = y.permute({0, 1, 2, 4, 3, 5}).reshape({n, oc, 2 * th, 2 * tw});
  return add_bias(y.slice(2, 0, oh).slice(3, 0, ow).contiguous(), bias);
}

}  // namespace

bool conv_algorithm_applies(const std::string& algorithm, const at::Tensor& input, const at::Tensor& weight,
                            const ConvGeometry& geometry) {
  bool two_d = input.dim() == 4 && weight.dim() == 4;
  bool floating = input.scalar_type() == at::kFloat || input.scalar_type() == at::kDouble;
  if (algorithm == "auto") return true;
  if (algorithm == "direct") return at::hasMKLDNN() && input.scalar_type() == at::kFloat && input.dim() >= 4;
  if (algorithm == "gemm") return two_d;
  if (algorithm == "fft") return two_d && floating && unit(geometry.dilation);
  if (algorithm == "winograd")
    return two_d && weight.size(2) == 3 && weight.size(3) == 3 && unit(geometry.stride) && unit(geometry.dilation);
  return false;
}

at::Tensor run_conv_algorithm(const std::string& algorithm, const at::Tensor& input, const at::Tensor& weight,
                              const at::Tensor& bias, const ConvGeometry& g) {
  if (algorithm == "gemm") return gemm_conv(input, weight, bias, g);
  if (algorithm == "fft") return fft_conv(input, weight, bias, g);
  if (algorithm == "winograd") return winograd_conv(input, weight, bias, g);
  std::vector<int64_t> zeros(g.stride.size(), 0);
  if (algorithm == "direct")
    return at::mkldnn_convolution(input.contiguous(input.suggest_memory_format()), weight, bias, zeros, g.stride,
                                  g.dilation, g.groups);
  return at::convolution(input, weight, bias, g.stride, zeros, g.dilation, false, zeros, g.groups);
}

}  // namespace ridge::exec::aten
