#include "calib/features.h"

#include <algorithm>
#include <cmath>

#include "util/name_table.h"

namespace ridge::calib {
namespace {

constexpr NameTable<Kind, 12> kKinds{{{Kind::kConv, "conv"},
                                      {Kind::kGroupedConv, "grouped_conv"},
                                      {Kind::kMatMul, "matmul"},
                                      {Kind::kPool, "pool"},
                                      {Kind::kNorm, "norm"},
                                      {Kind::kElementwise, "elementwise"},
                                      {Kind::kSoftmax, "softmax"},
                                      {Kind::kReduce, "reduce"},
                                      {Kind::kDataMovement, "data_movement"},
                                      {Kind::kView, "view"},
                                      {Kind::kRecurrent, "recurrent"},
                                      {Kind::kOther, "other"}}};

double product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  double p = 1;
  for (size_t i = from; i < to && i < dims.size(); ++i) p *= static_cast<double>(dims[i]);
  return p;
}

// Known dims of a value (unknown ones as 0), empty when it has no shape.
std::vector<int64_t> dims_of(const graph::Graph& g, graph::ValueId id) {
  if (id == graph::kNoValue) return {};
  const auto& v = g.value(id);
  if (!v.has_shape) return {};
  std::vector<int64_t> dims;
  for (const auto& d : v.shape) dims.push_back(d.is_known() ? d.value : 0);
  return dims;
}

}  // namespace

std::string_view name(Kind kind) { return name_in(kKinds, kind); }
Kind parse_kind(std::string_view text) { return parse_in(kKinds, "layer kind", text); }
std::vector<Kind> all_kinds() {
  std::vector<Kind> kinds;
  for (const auto& [k, n] : kKinds) kinds.push_back(k);
  return kinds;
}

Kind kind_of(const graph::Graph&, const graph::Node& node, const cost::NodeCost& cost) {
  const auto& op = node.op_type;
  if (cost.flops == 0 && cost.bytes() == 0) return Kind::kView;
  if (cost.family == "conv") return node.get_int("group", 1) > 1 ? Kind::kGroupedConv : Kind::kConv;
  if (cost.family == "matmul" || cost.family == "attention") return Kind::kMatMul;
  if (op == "Softmax" || op == "LogSoftmax") return Kind::kSoftmax;
  if (cost.family == "pooling") return Kind::kPool;
  if (cost.family == "normalization") return Kind::kNorm;
  if (cost.family == "reduction") return Kind::kReduce;
  // An elementwise op without arithmetic (Cast, the bitwise and logical copies ridge counts no FLOPs for) moves
  // data as a copy does.
  if (cost.family == "elementwise") return cost.flops == 0 ? Kind::kDataMovement : Kind::kElementwise;
  if (cost.family == "data-movement") return Kind::kDataMovement;
  if (cost.family == "recurrent") return Kind::kRecurrent;
  return Kind::kOther;
}

LayerFeatures features_of(const graph::Graph& g, const graph::Node& node, const cost::NodeCost& cost) {
  LayerFeatures f;
  f.kind = kind_of(g, node, cost);
  const auto& op = node.op_type;
  f.op = op;
  f.family = cost.family;
  f.flops = static_cast<double>(cost.flops);
  f.bytes = static_cast<double>(cost.bytes());
  auto out = node.outputs.empty() ? std::vector<int64_t>{} : dims_of(g, node.outputs[0]);
  auto in = dims_of(g, node.input(0));
  f.out_elements = out.empty() ? 0 : product(out, 0, out.size());
  double in_elements = in.empty() ? 0 : product(in, 0, in.size());
  // Layers that reduce along an axis (Softmax, the Reduce ops, LayerNormalization) are rows m of a reduced extent k
  // whatever the tensor's rank, so [1, 128, 512] and [128, 512] are one layer to the fit.
  auto rows_of_axis = [&](int64_t axis, bool to_the_end) {
    auto rank = static_cast<int64_t>(in.size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return;
    f.k = to_the_end ? product(in, static_cast<size_t>(axis), in.size()) : static_cast<double>(in[axis]);
    f.m = f.k > 0 ? in_elements / f.k : 0;
  };
  bool channel_norm = f.kind == Kind::kNorm && (op == "BatchNormalization" || op == "InstanceNormalization");
  switch (f.kind) {
    case Kind::kNorm:
      if (!channel_norm) {  // LayerNormalization and its kin normalize over the dims from `axis` on
        rows_of_axis(node.get_int("axis", -1), true);
        break;
      }
      [[fallthrough]];
    case Kind::kConv:
    case Kind::kGroupedConv:
    case Kind::kPool: {
      if (!out.empty()) f.batch = static_cast<double>(std::max<int64_t>(out[0], 1));
      if (in.size() >= 2) f.in_channels = static_cast<double>(in[1]);
      if (out.size() >= 2) f.out_channels = static_cast<double>(out[1]);
      f.in_spatial = in.size() > 2 ? product(in, 2, in.size()) : 1;
      f.out_spatial = out.size() > 2 ? product(out, 2, out.size()) : 1;
      f.groups = static_cast<double>(node.get_int("group", 1));
      auto kernel = node.get_ints("kernel_shape");
      if (kernel.empty() && (f.kind == Kind::kConv || f.kind == Kind::kGroupedConv)) {
        auto w = dims_of(g, node.input(1));
        if (w.size() > 2) kernel.assign(w.begin() + 2, w.end());
      }
      if (kernel.empty() && node.op_type.rfind("Global", 0) == 0 && in.size() > 2)
        kernel.assign(in.begin() + 2, in.end());
      f.kernel = kernel.empty() ? 0 : product(kernel, 0, kernel.size());
      auto strides = node.get_ints("strides");
      f.stride = strides.empty() ? 1 : static_cast<double>(*std::max_element(strides.begin(), strides.end()));
      break;
    }
    case Kind::kMatMul: {
      auto a = dims_of(g, node.input(0)), b = dims_of(g, node.input(1));
      if (a.size() >= 2 && b.size() >= 2 && out.size() >= 2) {
        bool trans_a = node.op_type == "Gemm" && node.get_int("transA", 0) != 0;
        f.m = static_cast<double>(out[out.size() - 2]);
        f.n = static_cast<double>(out.back());
        f.k = static_cast<double>(trans_a ? a[a.size() - 2] : a.back());
        f.batch = product(out, 0, out.size() - 2);
        // A product by a matrix (a weight) is one GEMM over all of the first operand's rows, whatever its leading
        // dims: ATen's matmul and BLAS-backed executors fold them into m. ViT's in-projection [197, 1, 768] x
        // [768, 2304] is a 197-row GEMM; as 197 products of one row it was predicted 3.6x slow.
        if (node.op_type == "MatMul" && b.size() == 2 && a.size() > 2) {
          f.m = product(out, 0, out.size() - 1);
          f.batch = 1;
        }
      } else if (out.size() == 1 && !a.empty()) {
        f.m = 1, f.n = static_cast<double>(out[0]), f.k = static_cast<double>(a.back());
      }
      break;
    }
    case Kind::kRecurrent: {
      // X is [steps, batch, input] (layout 0, the exporters' default); each step multiplies [batch, input + hidden]
      // by the gates' weights [input + hidden, gates x hidden], one step after the other.
      double hidden = static_cast<double>(node.get_int("hidden_size", 0));
      double gates = node.op_type == "LSTM" ? 4 : node.op_type == "GRU" ? 3 : 1;
      if (in.size() == 3) {
        f.in_spatial = static_cast<double>(in[0]);
        f.batch = static_cast<double>(std::max<int64_t>(in[1], 1));
        f.in_channels = static_cast<double>(in[2]);
        f.m = f.batch;
        f.n = gates * hidden;
        f.k = f.in_channels + hidden;
      }
      f.out_channels = hidden;
      break;
    }
    case Kind::kSoftmax:
      rows_of_axis(node.get_int("axis", -1), false);
      break;
    case Kind::kReduce:  // the reduced extent is what the input has beyond the output, keepdims or not
      f.m = f.out_elements;
      f.k = f.out_elements > 0 ? in_elements / f.out_elements : 0;
      break;
    default:
      // Elementwise ops, copies and views: their time follows the elements and bytes; the leading dims are only
      // how a tensor happens to be viewed (a sample's [rows, 256] and a model's [1, 128, 512] are one layer).
      break;
  }
  return f;
}

namespace {
double lg(double x) { return std::log2(1 + std::max(0.0, x)); }

// Ops that evaluate a transcendental function per element (a polynomial or a library call, tens of instructions) run
// at a fraction of a copy's rate on a CPU, where an Add or a Relu runs at the memory's. ridge counts one FLOP per
// element for both, so the kind's features alone cannot tell them apart: a GELU's `+ 1` (4.8 M elements) was
// predicted at the Erf before it (6.0 ms against 0.37 measured).
constexpr std::string_view kTranscendental[] = {
    "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh",   "Celu", "Cos",  "Cosh",     "Elu",   "Erf", "Exp",
    "Gelu", "Log",   "Mish", "Pow",   "Selu", "Sigmoid", "Sin",  "Sinh", "Softplus", "Swish", "Tan", "Tanh"};
bool transcendental(std::string_view op) {
  return std::find(std::begin(kTranscendental), std::end(kTranscendental), op) != std::end(kTranscendental);
}
}  // namespace

const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> kNames{
      "log2_flops", "log2_bytes", "log2_intensity",    "log2_batch",      "log2_in_channels", "log2_out_channels",
      "kernel",     "stride",     "log2_groups",       "log2_in_spatial", "log2_out_spatial", "log2_m",
      "log2_n",     "log2_k",     "log2_out_elements", "fused_ops",       "threads",          "transcendental"};
  return kNames;
}

std::vector<double> feature_vector(const LayerFeatures& f) {
  double intensity = f.bytes > 0 ? f.flops / f.bytes : 0;
  return {lg(f.flops),      lg(f.bytes),       lg(intensity),
          lg(f.batch),      lg(f.in_channels), lg(f.out_channels),
          f.kernel,         f.stride,          lg(f.groups),
          lg(f.in_spatial), lg(f.out_spatial), lg(f.m),
          lg(f.n),          lg(f.k),           lg(f.out_elements),
          f.fused_ops,      f.threads,         transcendental(f.op) ? 1.0 : 0.0};
}

}  // namespace ridge::calib
