// Convolution kernels. Padding is applied here (asymmetric and auto_pad included); the
// convolution itself runs with the algorithm --conv-algo asks for, where it applies.
#include <fmt/format.h>

#include "exec/aten/interpreter.h"
#include "exec/aten/kernels/conv_algorithms.h"
#include "exec/aten/kernels/kernel.h"
#include "exec/aten/onednn/onednn.h"
#include "shape/spatial.h"
#include "util/error.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

struct Padding {
  std::vector<int64_t> begin, end;
  bool symmetric() const { return begin == end; }
};

// Pads per spatial axis as shape inference resolves them (shape::resolve_window: `pads` or auto_pad, the odd
// SAME_UPPER pad at the end): one rule for every executor.
Padding conv_padding(const C& c, const std::vector<int64_t>& spatial_in, const std::vector<int64_t>& kernel) {
  try {
    auto w = shape::resolve_window(c.node, spatial_in, kernel);
    return {std::move(w.pads_begin), std::move(w.pads_end)};
  } catch (const Error& e) {
    c.fail(e.what());
  }
}

std::vector<int64_t> spatial_attr(const C& c, const char* name, size_t rank) {
  auto v = c.node.get_ints(name);
  if (v.empty()) v.assign(rank, 1);
  if (v.size() != rank) c.fail(fmt::format("{} has {} values for {} spatial axes", name, v.size(), rank));
  return v;
}

at::Tensor pad_spatial(const at::Tensor& x, const Padding& p) {
  std::vector<int64_t> pad;  // constant_pad_nd takes the last axis first
  for (size_t i = p.begin.size(); i-- > 0;) {
    pad.push_back(p.begin[i]);
    pad.push_back(p.end[i]);
  }
  return at::constant_pad_nd(x, pad, 0);
}

void conv(C& c) {
  at::Tensor x = c.in(0), w = c.in(1), b = c.has(2) ? c.in(2) : at::Tensor();
  size_t rank = static_cast<size_t>(x.dim()) - 2;
  ConvGeometry g{spatial_attr(c, "strides", rank), spatial_attr(c, "dilations", rank), c.node.get_int("group", 1)};
  std::vector<int64_t> spatial(x.sizes().begin() + 2, x.sizes().end()), kernel(w.sizes().begin() + 2, w.sizes().end());
  Padding p = conv_padding(c, spatial, kernel);
  std::string algorithm(name(c.interpreter.options().conv_algo));
  Epilogue epilogue = c.interpreter.epilogue(c.graph, c.node);
  at::Tensor residual = epilogue.residual ? c.in(Epilogue::kResidualInput) : at::Tensor();
  if (c.interpreter.options().mode == Mode::kOptimized && algorithm == "auto" && rank == 2 && c.is_constant(1) &&
      (!b.defined() || c.is_constant(2)) && onednn_usable(x, w)) {
    // Optimized mode: oneDNN's convolution on channels-last activations, weights packed once,
    // the residual Add and the ReLU/Clip that followed fused in.
    auto& layer = c.interpreter.kernel_state<OnednnConv>(&c.node, [&] {
      return std::make_shared<OnednnConv>(w, b, ConvGeometry2d{g.stride, g.dilation, p.begin, p.end, g.groups},
                                          epilogue);
    });
    c.set(0, layer.run(x, residual));
    c.algorithm = (layer.ran_blocked() ? "direct-blocked" : "direct") + epilogue.suffix();
    return;
  }
  if (algorithm == "auto" && p.symmetric() && rank == 2 && c.is_constant(1) && onednn_usable(x, w) &&
      !x.is_contiguous(at::MemoryFormat::ChannelsLast)) {
    // What ATen's own path would run (oneDNN), minus reordering the weights on every call: they
    // are reordered into oneDNN's layout once, on first use, as for fully connected layers.
    auto packed = c.interpreter.cached(&c.graph.value(c.node.inputs[1]), Interpreter::Derived::kConvWeight, [&] {
      return at::mkldnn_reorder_conv2d_weight(w.to_mkldnn(), p.begin, g.stride, g.dilation, g.groups);
    });
    c.set(0, epilogue.apply(at::mkldnn_convolution(x.contiguous(), packed, b, p.begin, g.stride, g.dilation, g.groups),
                            residual));
    c.algorithm = "auto";
    return;
  }
  if (algorithm == "auto" && p.symmetric()) {
    // ATen pads symmetric convolutions itself, inside its kernel.
    c.set(0, epilogue.apply(at::convolution(x, w, b, g.stride, p.begin, g.dilation, false,
                                            std::vector<int64_t>(rank, 0), g.groups),
                            residual));
    c.algorithm = "auto";
    return;
  }
  at::Tensor padded = pad_spatial(x, p);
  if (!conv_algorithm_applies(algorithm, padded, w, g)) algorithm = "auto";
  c.algorithm = algorithm;
  c.set(0, epilogue.apply(run_conv_algorithm(algorithm, padded, w, b, g), residual));
}

void conv_transpose(C& c) {
  at::Tensor x = c.in(0), w = c.in(1), b = c.has(2) ? c.in(2) : at::Tensor();
  size_t rank = static_cast<size_t>(x.dim()) - 2;
  auto stride = spatial_attr(c, "strides", rank), dilation = spatial_attr(c, "dilations", rank);
  int64_t groups = c.node.get_int("group", 1);
  auto output_padding = c.node.get_ints("output_padding");
  if (output_padding.empty()) output_padding.assign(rank, 0);
  std::vector<int64_t> kernel(w.sizes().begin() + 2, w.sizes().end());
  std::vector<int64_t> begin(rank, 0), end(rank, 0);
  auto output_shape = c.node.get_ints("output_shape");
  auto auto_pad = c.node.get_string("auto_pad", "NOTSET");
  if (output_shape.size() > rank) output_shape.erase(output_shape.begin(), output_shape.end() - rank);
  if (!output_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < rank; ++i) {
      int64_t in = x.size(static_cast<int64_t>(i) + 2);
      int64_t target = output_shape.empty() ? in * stride[i] : output_shape[i];
      int64_t total = stride[i] * (in - 1) + output_padding[i] + ((kernel[i] - 1) * dilation[i] + 1) - target;
      bool upper = auto_pad != "SAME_LOWER";
      begin[i] = total < 0 ? 0 : upper ? total / 2 : total - total / 2;
      end[i] = total - begin[i];
    }
  } else {
    auto pads = c.node.get_ints("pads");
    if (!pads.empty())
      for (size_t i = 0; i < rank; ++i) {
        begin[i] = pads[i];
        end[i] = pads[i + rank];
      }
  }
  // Run with no padding, then crop (or, for a requested output_shape larger than the full
  // result, extend with zeros): asymmetric pads work the same way as symmetric ones.
  auto y = at::convolution(x, w, b, stride, std::vector<int64_t>(rank, 0), dilation, true, output_padding, groups);
  std::vector<int64_t> crop;
  for (size_t i = rank; i-- > 0;) crop.insert(crop.end(), {-begin[i], -end[i]});
  c.set(0, at::constant_pad_nd(y, crop, 0));
}

}  // namespace

void register_conv_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("conv", {{"Conv", conv}, {"ConvTranspose", conv_transpose}});
  // clang-format on
}

}  // namespace ridge::exec::aten
