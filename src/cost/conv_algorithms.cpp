#include "cost/conv_algorithms.h"

#include <cmath>

#include "cost/context.h"

namespace ridge::cost {

namespace {

// Real 2-D FFT of h x w points: 5/2 h w log2(h w) FLOPs (half the complex FFT's 5 n log2 n).
int64_t real_fft_flops(int64_t h, int64_t w) {
  double n = static_cast<double>(h) * static_cast<double>(w);
  return n > 1 ? static_cast<int64_t>(std::llround(2.5 * n * std::log2(n))) : 0;
}

}  // namespace

std::vector<ConvAlgorithmCost> conv_algorithm_costs(const graph::Graph& g, const graph::Node& node,
                                                    const CostOptions& options) {
  if (node.op_type != "Conv") return {};
  CostContext ctx(g, node, options);
  auto x = ctx.in_dims(0), w = ctx.in_dims(1), y = ctx.out_dims(0);
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) return {};
  int64_t n = x[0], c = x[1], k = w[0], r = w[2], s = w[3], p = y[2], q = y[3];
  int64_t groups = node.get_int("group", 1), cg = c / std::max<int64_t>(groups, 1);
  auto strides = node.get_ints("strides", {1, 1}), dilations = node.get_ints("dilations", {1, 1});
  auto pads = node.get_ints("pads", {0, 0, 0, 0});
  int64_t hp = x[2] + (pads.size() == 4 ? pads[0] + pads[2] : 0),
          wp = x[3] + (pads.size() == 4 ? pads[1] + pads[3] : 0);
  int64_t element = ctx.out_elements() > 0 ? ctx.value_bytes(node.outputs[0]) / ctx.out_elements() : 4;
  bool has_bias = ctx.has_input(2);
  int64_t bias = has_bias ? n * k * p * q : 0;
  int64_t direct_macs = n * k * p * q * cg * r * s;
  bool unit_stride = strides.size() == 2 && strides[0] == 1 && strides[1] == 1;
  bool unit_dilation = dilations.size() == 2 && dilations[0] == 1 && dilations[1] == 1;

  std::vector<ConvAlgorithmCost> costs;
  costs.push_back({"direct", true, 2 * direct_macs + bias, 0});
  // im2col: a [C*R*S, P*Q] column matrix per image, then the same multiply-accumulates as direct.
  costs.push_back({"gemm", true, 2 * direct_macs + bias, n * c * r * s * p * q * element});
  // FFT over the padded input size: forward transforms of N*C input planes and K*C/G kernel planes,
  // a complex multiply-add (8 FLOPs) per frequency bin per (image, output, input channel), inverse
  // transforms of N*K output planes. Workspace: the spectra and the channel products (complex).
  int64_t bins = hp * (wp / 2 + 1);
  int64_t fft = real_fft_flops(hp, wp);
  costs.push_back({"fft", unit_dilation, (n * c + k * cg + n * k) * fft + 8 * n * k * cg * bins + bias,
                   (n * c + k * cg + n * k + n * k * cg) * bins * 2 * element});
  // Winograd F(2x2, 3x3): T tiles of 2x2 outputs; 16 products per tile per (output, input
  // channel); the transforms as the dense 4x4 products the executor computes (input 2x64 MACs per
  // tile and channel, output 32 + 16 per tile and output channel, kernel 36 + 48 per filter).
  int64_t tiles = n * ((p + 1) / 2) * ((q + 1) / 2);
  bool winograd = r == 3 && s == 3 && unit_stride && unit_dilation;
  int64_t winograd_macs = 16 * tiles * k * cg + 128 * tiles * c + 48 * tiles * k + 84 * k * cg;
  costs.push_back({"winograd", winograd, 2 * winograd_macs + bias, (tiles * c + k * cg + tiles * k) * 16 * element});
  return costs;
}

}  // namespace ridge::cost
