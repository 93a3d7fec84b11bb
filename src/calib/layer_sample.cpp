#include "calib/layer_sample.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>

#include "analysis/run.h"
#include "calib/shape_prediction.h"
#include "exec/options.h"
#include "util/error.h"
#include "util/timestamp.h"

namespace ridge::calib {
namespace {

using graph::Attribute;

// Builds a graph::Model in memory. Weights point at a data file that does not exist, which the
// executor answers with random values of the right scale (as for a bundled model without weights).
class LayerGraph {
 public:
  LayerGraph() {
    model_.ir_version = 8;
    model_.opsets[""] = 17;
    model_.producer = "ridge layer sample";
  }

  std::string input(const std::string& name, const std::vector<int64_t>& dims,
                    graph::DType dtype = graph::DType::kFloat32) {
    auto& v = value(name, dtype, dims);
    v.is_graph_input = true;
    model_.graph.inputs.push_back(model_.graph.intern(name));
    return name;
  }
  std::string weight(const std::string& name, const std::vector<int64_t>& dims) {
    auto& v = value(name, graph::DType::kFloat32, dims);
    auto ref = std::make_shared<graph::TensorRef>();
    ref->name = name;
    ref->dtype = graph::DType::kFloat32;
    ref->dims = dims;
    ref->location.kind = graph::TensorLocation::Kind::kExternal;
    ref->location.external_path = ".ridge-layer-sample-random-weights";
    v.initializer = ref;
    return name;
  }
  std::string ints(const std::string& name, const std::vector<int64_t>& values) {
    auto data = constant_data(graph::DType::kInt64, {static_cast<int64_t>(values.size())});
    data->ints = values;
    return constant(name, data);
  }
  // A float vector with known values (Resize's scales).
  std::string floats(const std::string& name, const std::vector<double>& values) {
    auto data = constant_data(graph::DType::kFloat32, {static_cast<int64_t>(values.size())});
    data->reals = values;
    return constant(name, data);
  }
  // A float scalar with a known value (constants the executor must see, like GELU's 0.5).
  std::string scalar(const std::string& name, double number) {
    auto data = constant_data(graph::DType::kFloat32, {});
    data->reals = {number};
    return constant(name, data);
  }
  // Adds a node named after its op (numbered), returns its first output.
  std::string node(const std::string& op, const std::vector<std::string>& inputs, std::vector<Attribute> attrs = {},
                   const std::string& name = "") {
    graph::Node n;
    n.op_type = op;
    n.name = name.empty() ? fmt::format("{}_{}", op, model_.graph.nodes.size()) : name;
    for (const auto& in : inputs)
      n.inputs.push_back(in.empty() ? graph::kNoValue : model_.graph.intern(in));  // optional
    auto out = n.name + "_out";
    n.outputs.push_back(model_.graph.intern(out));
    n.attributes = std::move(attrs);
    model_.graph.nodes.push_back(std::move(n));
    return out;
  }
  graph::Model finish(const std::vector<std::string>& outputs) {
    for (const auto& output : outputs) {
      auto id = model_.graph.intern(output);
      model_.graph.value(id).is_graph_output = true;
      model_.graph.outputs.push_back(id);
    }
    model_.graph.link_and_sort();
    return std::move(model_);
  }
  graph::Model finish(const std::string& output) { return finish(std::vector<std::string>{output}); }

 private:
  graph::Model model_;
  static std::shared_ptr<graph::ConstantData> constant_data(graph::DType dtype, const std::vector<int64_t>& dims) {
    auto data = std::make_shared<graph::ConstantData>();
    data->dtype = dtype;
    data->dims = dims;
    return data;
  }
  // An initializer whose values the graph holds (not random weights).
  std::string constant(const std::string& name, const std::shared_ptr<graph::ConstantData>& data) {
    auto& v = value(name, data->dtype, data->dims);
    auto ref = std::make_shared<graph::TensorRef>();
    ref->name = name;
    ref->dtype = data->dtype;
    ref->dims = data->dims;
    ref->location.kind = graph::TensorLocation::Kind::kTypedFields;
    ref->typed_values = data;
    v.initializer = ref;
    v.constant = data;
    return name;
  }
  graph::Value& value(const std::string& name, graph::DType dtype, const std::vector<int64_t>& dims) {
    auto& v = model_.graph.value(model_.graph.intern(name));
    v.name = name;
    v.dtype = dtype;
    v.shape = graph::make_shape(dims);
    v.has_shape = true;
    return v;
  }
};

// Nodes a template adds around the layer it samples, never sampled themselves: their names start with "edge_".
constexpr const char* kEdgeIn = "edge_in";
constexpr const char* kEdgeOut = "edge_out";
constexpr const char* kEdgeFlush = "edge_flush";
bool is_edge(const std::string& node_name) { return node_name.rfind("edge_", 0) == 0; }

Attribute int_attr(const std::string& name, int64_t value) {
  Attribute a;
  a.name = name;
  a.kind = Attribute::Kind::kInt;
  a.i = value;
  return a;
}
Attribute ints_attr(const std::string& name, std::vector<int64_t> values) {
  Attribute a;
  a.name = name;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(values);
  return a;
}
Attribute string_attr(const std::string& name, const std::string& value) {
  Attribute a;
  a.name = name;
  a.kind = Attribute::Kind::kString;
  a.s = value;
  return a;
}
Attribute float_attr(const std::string& name, double value) {
  Attribute a;
  a.name = name;
  a.kind = Attribute::Kind::kFloat;
  a.f = value;
  return a;
}

using Params = std::map<std::string, int64_t>;

// The epilogues optimized mode fuses into a convolution or a linear layer; eager mode runs each
// as its own node, so the same graph samples the normalization and elementwise kinds too.
// Exporters fold a BatchNormalization after a convolution into its weights (PyTorch's eval-mode
// export does), so the sample's convolutions end as exported networks' do: ReLU, ReLU6 (Clip), or
// a residual Add and ReLU. The BatchNormalization forms stay for graphs exported unfolded.
enum Epilogue : int64_t {
  kNone = 0,
  kRelu = 1,
  kBatchNormRelu = 2,
  kBatchNormAddRelu = 3,
  kClip = 4,
  kGelu = 5,
  kAddRelu = 6,
  kSilu = 7  // x * Sigmoid(x): YOLO's and EfficientNet's activation, which optimized mode fuses as one epilogue
};

std::string apply_activation(LayerGraph& b, const std::string& x, int64_t epilogue) {
  if (epilogue == kClip) {
    auto lo = b.scalar(x + "_min", 0);
    auto hi = b.scalar(x + "_max", 6);
    return b.node("Clip", {x, lo, hi});
  }
  if (epilogue == kGelu) {  // the Erf form PyTorch exports for GELU
    auto half = b.scalar(x + "_half", 0.5);
    auto one = b.scalar(x + "_one", 1);
    auto root2 = b.scalar(x + "_root2", std::sqrt(2.0));
    auto e = b.node("Erf", {b.node("Div", {x, root2})});
    return b.node("Mul", {b.node("Mul", {x, half}), b.node("Add", {e, one})});
  }
  if (epilogue == kSilu) return b.node("Mul", {x, b.node("Sigmoid", {x})});
  return epilogue == kNone ? x : b.node("Relu", {x});
}

std::string batchnorm(LayerGraph& b, const std::string& x, int64_t channels) {
  return b.node("BatchNormalization", {x, b.weight(x + "_scale", {channels}), b.weight(x + "_bias", {channels}),
                                       b.weight(x + "_mean", {channels}), b.weight(x + "_var", {channels})});
}

// Optimized mode keeps activations channels-last from layer to layer; a layer alone would convert its
// input from the graph's NCHW and its output back, which inside a network it does not. A cheap depthwise
// 1x1 convolution before and after it (never sampled) hands it channels-last data as its neighbours would.
// The stem (3 channels) reads the plain image, as in a network.
std::string edge(LayerGraph& b, const std::string& x, int64_t channels, const std::string& name) {
  if (channels == 3) return x;
  return b.node("Conv", {x, b.weight(name + "_w", {channels, 1, 1, 1})},
                {ints_attr("kernel_shape", {1, 1}), int_attr("group", channels)}, name);
}

// [rows, width] views of an element count (the elementwise kinds care about the count).
std::vector<int64_t> matrix_of(int64_t elements) {
  int64_t width = std::min<int64_t>(elements, 256);
  return {std::max<int64_t>(1, elements / width), width};
}

// A convolution node with its weights and bias (named `prefix`w and `prefix`b), square kernel, stride and padding.
std::string conv_node(LayerGraph& b, const std::string& x, const std::string& prefix, int64_t in_channels,
                      int64_t out_channels, int64_t k, int64_t stride, int64_t pad, int64_t groups) {
  return b.node(
      "Conv",
      {x, b.weight(prefix + "w", {out_channels, in_channels / groups, k, k}), b.weight(prefix + "b", {out_channels})},
      {ints_attr("kernel_shape", {k, k}), ints_attr("strides", {stride, stride}),
       ints_attr("pads", {pad, pad, pad, pad}), int_attr("group", groups)});
}

// A convolution between its layout edges; "pad" (optional) overrides the same-size padding k / 2. Without the output
// edge the layer's output is the graph's, as a patch embedding hands its output to a Reshape rather than a convolution.
graph::Model conv_layer(const Params& p, bool depthwise, bool edge_out) {
  LayerGraph b;
  int64_t n = p.at("batch"), c = p.at("channels"), size = p.at("size"), k = p.at("kernel"), s = p.at("stride");
  int64_t filters = depthwise ? c : p.at("filters");
  int64_t groups = depthwise ? c : 1;
  int64_t pad = p.count("pad") ? p.at("pad") : k / 2;
  int64_t out = (size + 2 * pad - k) / s + 1;
  if (out < 1) throw Error("convolution output would be empty");
  auto x = edge(b, b.input("x", {n, c, size, size}), c, kEdgeIn);
  auto y = conv_node(b, x, "", c, filters, k, s, pad, groups);
  auto epilogue = p.at("epilogue");
  if (epilogue == kBatchNormRelu || epilogue == kBatchNormAddRelu) y = batchnorm(b, y, filters);
  if (epilogue == kBatchNormAddRelu || epilogue == kAddRelu)
    y = b.node("Add", {y, b.input("residual", {n, filters, out, out})});
  bool relu = epilogue == kBatchNormRelu || epilogue == kBatchNormAddRelu || epilogue == kAddRelu;
  y = apply_activation(b, y, relu ? kRelu : epilogue);
  return b.finish(edge_out ? edge(b, y, filters, kEdgeOut) : y);
}
graph::Model build_conv(const Params& p, bool depthwise) { return conv_layer(p, depthwise, true); }

// MobileNetV2's and EfficientNet's block as networks run it: a 1x1 expansion to `expansion` x the channels (none at
// 1), a depthwise convolution, a 1x1 projection to `filters`, and the residual Add where the block keeps its shape.
// Every convolution is sampled, each reading what the one before it has just written: alone, the conv template's
// small-channel 1x1 convolutions at large maps predicted MobileNetV2's at 0.44-0.69x of their measured time.
graph::Model build_inverted_residual(const Params& p) {
  LayerGraph b;
  int64_t n = p.at("batch"), c = p.at("channels"), size = p.at("size"), k = p.at("kernel"), s = p.at("stride");
  int64_t wide = c * p.at("expansion"), filters = p.at("filters"), act = p.at("epilogue");
  auto x = edge(b, b.input("x", {n, c, size, size}), c, kEdgeIn);
  auto conv = [&](const std::string& in, int64_t in_channels, int64_t out_channels, int64_t kernel, int64_t stride,
                  int64_t groups) {
    return conv_node(b, in, in + "_", in_channels, out_channels, kernel, stride, kernel / 2, groups);
  };
  auto y = wide == c ? x : apply_activation(b, conv(x, c, wide, 1, 1, 1), act);
  y = apply_activation(b, conv(y, wide, wide, k, s, wide), act);
  y = conv(y, wide, filters, 1, 1, 1);
  if (s == 1 && filters == c) y = b.node("Add", {y, x});
  return b.finish(edge(b, y, filters, kEdgeOut));
}

// Inside a network a layer's weights were evicted from the caches by the layers since its last
// run; run alone, they stay cached. Large weights (a fully connected layer reads them once per
// row, so they set its time) get a node before the layer (never sampled) that streams twice the
// last-level cache through.
// The kernel's view of this CPU's last-level cache (what lscpu prints); glibc's sysconf reports
// the host package's in a VM (320 MB for a 32 MB slice here).
int64_t last_level_cache_bytes() {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index3/size");
  int64_t value = 0;
  std::string unit;
  if (in >> value) {
    in >> unit;
    return value * (unit == "K" ? 1024 : unit == "M" ? 1 << 20 : 1);
  }
  long cache = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return cache > 0 ? cache : 32 << 20;
}

std::string cache_flush(LayerGraph& b) {
  int64_t elements = std::clamp<int64_t>(last_level_cache_bytes(), 8 << 20, 64 << 20) / 4;
  return b.node("Relu", {b.input("flush", {elements})}, {}, kEdgeFlush);
}

graph::Model build_linear(const Params& p) {
  LayerGraph b;
  int64_t rows = p.at("rows"), in = p.at("inputs"), out = p.at("outputs");
  std::vector<std::string> outputs;
  if (in * out * 4 > (1 << 20)) outputs.push_back(cache_flush(b));
  auto x = b.input("x", {rows, in});
  std::string y;
  if (p.at("form") == 1) {  // Gemm, weight stored transposed (torchvision's classifiers)
    y = b.node("Gemm", {x, b.weight("w", {out, in}), b.weight("b", {out})},
               {float_attr("alpha", 1), float_attr("beta", 1), int_attr("transB", 1)});
  } else {  // MatMul + bias Add (transformers)
    y = b.node("Add", {b.node("MatMul", {x, b.weight("w", {in, out})}), b.weight("b", {out})});
  }
  outputs.push_back(apply_activation(b, y, p.at("epilogue")));
  return b.finish(outputs);
}

graph::Model build_batched_matmul(const Params& p) {
  LayerGraph b;
  int64_t n = p.at("batch"), m = p.at("m"), k = p.at("k"), cols = p.at("n");
  return b.finish(b.node("MatMul", {b.input("a", {n, m, k}), b.input("b", {n, k, cols})}));
}

const std::vector<std::string> kUnaryOps{"Relu", "Sigmoid", "Tanh", "Erf", "Sqrt", "Exp", "Clip", "Not"};
const std::vector<std::string> kBinaryOps{"Add", "Mul", "Sub", "Div"};

graph::Model build_unary(const Params& p) {
  LayerGraph b;
  const auto& op = kUnaryOps.at(static_cast<size_t>(p.at("op")));
  auto x = b.input("x", matrix_of(p.at("elements")), op == "Not" ? graph::DType::kBool : graph::DType::kFloat32);
  if (op == "Clip") return b.finish(apply_activation(b, x, kClip));
  return b.finish(b.node(op, {x}));
}

graph::Model build_binary(const Params& p) {
  LayerGraph b;
  const auto& op = kBinaryOps.at(static_cast<size_t>(p.at("op")));
  auto dims = matrix_of(p.at("elements"));
  auto x = b.input("x", dims);
  std::string other;
  switch (p.at("broadcast")) {
    case 0:
      other = b.input("y", dims);
      break;
    case 1:
      other = b.scalar("scalar", 1.5);
      break;
    default:
      other = b.weight("row", {dims[1]});
      break;
  }
  return b.finish(b.node(op, {x, other}));
}

// Where(mask, x, fill) as attention masks use it: a boolean of x's shape, or one row broadcast over x's rows,
// selecting between x and a scalar.
graph::Model build_select(const Params& p) {
  LayerGraph b;
  auto dims = matrix_of(p.at("elements"));
  auto mask = b.input("mask", p.at("broadcast") ? std::vector<int64_t>{1, dims[1]} : dims, graph::DType::kBool);
  return b.finish(b.node("Where", {mask, b.input("x", dims), b.scalar("fill", -1e4)}));
}

// Inside a network a memory-bound layer reads what the layer before it has just written, on the same threads
// (DenseNet's BatchNormalizations read its Concats); alone it reads a graph input. A producer edge gives it the
// network's input. A BatchNormalization right after a convolution is folded into it by optimized mode (and by
// exporters), so its producer ends in a ReLU, as a pre-activation network's does.
// The producer edge ending in a ReLU (never sampled): a convolution and its activation, as in a network.
std::string relu_producer(LayerGraph& b, const std::string& x, int64_t channels) {
  return b.node("Relu", {edge(b, x, channels, kEdgeIn)}, {}, std::string(kEdgeIn) + "_relu");
}

graph::Model build_batchnorm(const Params& p) {
  LayerGraph b;
  int64_t c = p.at("channels"), size = p.at("size");
  auto x = relu_producer(b, b.input("x", {p.at("batch"), c, size, size}), c);
  return b.finish(edge(b, batchnorm(b, x, c), c, kEdgeOut));
}

graph::Model build_layernorm(const Params& p) {
  LayerGraph b;
  int64_t width = p.at("width");
  return b.finish(b.node("LayerNormalization",
                         {b.input("x", {p.at("rows"), width}), b.weight("scale", {width}), b.weight("bias", {width})},
                         {int_attr("axis", -1), float_attr("epsilon", 1e-5)}));
}

// Pooling as networks export it: after a convolution and its ReLU (the producer edge), padded (ResNet's and
// GoogLeNet's 3x3 pad-1 pools, an SPP block's 5x5) or not (VGG's and AlexNet's), rounding the output size up or
// down (torchvision's GoogLeNet uses ceil_mode throughout).
graph::Model build_pool(const Params& p) {
  LayerGraph b;
  int64_t k = p.at("kernel"), s = p.at("stride"), size = p.at("size");
  if (size < k) throw Error("pool window larger than its input");
  int64_t c = p.at("channels");
  int64_t pad = p.at("padding") != 0 ? (k - 1) / 2 : 0;
  auto x = relu_producer(b, b.input("x", {p.at("batch"), c, size, size}), c);
  auto y = b.node(p.at("op") == 0 ? "MaxPool" : "AveragePool", {x},
                  {ints_attr("kernel_shape", {k, k}), ints_attr("strides", {s, s}),
                   ints_attr("pads", {pad, pad, pad, pad}), int_attr("ceil_mode", p.at("ceil"))});
  return b.finish(edge(b, y, c, kEdgeOut));
}

graph::Model build_global_pool(const Params& p) {
  LayerGraph b;
  int64_t size = p.at("size");
  return b.finish(b.node("GlobalAveragePool", {b.input("x", {p.at("batch"), p.at("channels"), size, size})}));
}

graph::Model build_softmax(const Params& p) {
  LayerGraph b;
  return b.finish(b.node("Softmax", {b.input("x", {p.at("rows"), p.at("width")})}, {int_attr("axis", -1)}));
}

graph::Model build_reduce(const Params& p) {
  LayerGraph b;
  return b.finish(b.node("ReduceMean", {b.input("x", {p.at("rows"), p.at("width")})},
                         {ints_attr("axes", {-1}), int_attr("keepdims", 1)}));
}

// Each part made by a producer edge, as a network's convolutions make a Concat's inputs: read from graph inputs, two
// threads copied a DenseNet Concat no faster than one, inside the network 2.3x slower (59 us against 26).
// DenseNet concatenates 1 to 24 parts; a one-part Concat is a copy.
graph::Model build_concat(const Params& p) {
  LayerGraph b;
  int64_t n = p.at("batch"), c = p.at("channels"), size = p.at("size");
  std::vector<std::string> parts;
  for (int64_t i = 0; i < p.at("parts"); ++i)
    parts.push_back(edge(b, b.input(fmt::format("x{}", i), {n, c, size, size}), c, fmt::format("{}_{}", kEdgeIn, i)));
  return b.finish(b.node("Concat", parts, {int_attr("axis", 1)}));
}

// Upsampling as detectors and segmenters export it: nn.Upsample(scale_factor=2), nearest (asymmetric, floor) or
// bilinear (pytorch_half_pixel), between convolutions.
graph::Model build_resize(const Params& p) {
  LayerGraph b;
  int64_t c = p.at("channels"), size = p.at("size");
  auto x = edge(b, b.input("x", {p.at("batch"), c, size, size}), c, kEdgeIn);
  bool nearest = p.at("op") == 0;
  std::vector<Attribute> attrs{
      string_attr("mode", nearest ? "nearest" : "linear"),
      string_attr("coordinate_transformation_mode", nearest ? "asymmetric" : "pytorch_half_pixel")};
  if (nearest) attrs.push_back(string_attr("nearest_mode", "floor"));
  auto y = b.node("Resize", {x, "", b.floats("scales", {1, 1, 2, 2})}, std::move(attrs));
  return b.finish(edge(b, y, c, kEdgeOut));
}

// A vision transformer's patch embedding: a convolution of the image whose stride is its kernel, without padding,
// whose output the model reshapes into tokens.
graph::Model build_patch(const Params& p) {
  int64_t k = p.at("patch");
  return conv_layer({{"batch", p.at("batch")},
                     {"channels", 3},
                     {"filters", p.at("filters")},
                     {"size", 224},
                     {"kernel", k},
                     {"stride", k},
                     {"pad", 0},
                     {"epilogue", kNone}},
                    false, false);
}

graph::Model build_transpose(const Params& p) {
  LayerGraph b;
  auto x = b.input("x", {p.at("batch"), p.at("tokens"), p.at("heads"), 64});
  return b.finish(b.node("Transpose", {x}, {ints_attr("perm", {0, 2, 1, 3})}));
}

graph::Model build_gather(const Params& p) {
  LayerGraph b;
  auto ids = b.input("ids", {1, p.at("tokens")}, graph::DType::kInt64);
  return b.finish(
      b.node("Gather", {b.weight("table", {p.at("vocabulary"), p.at("width")}), ids}, {int_attr("axis", 0)}));
}

graph::Model build_view(const Params& p) {
  LayerGraph b;
  auto dims = matrix_of(p.at("elements"));
  auto x = b.input("x", dims);
  switch (p.at("op")) {
    case 0:
      return b.finish(b.node("Reshape", {x, b.ints("shape", {dims[0] * dims[1]})}));
    case 1:
      return b.finish(b.node("Flatten", {x}, {int_attr("axis", 1)}));
    default:
      return b.finish(b.node("Unsqueeze", {x, b.ints("axes", {0})}));
  }
}

// Many tiny nodes in a row: what a run costs per node beyond its kernels (the framework overhead).
// One LSTM or GRU layer over a sequence: X [steps, batch, input], the gates' weights W [1, G x hidden, input] and
// R [1, G x hidden, hidden], their biases B [1, 2 x G x hidden].
graph::Model build_recurrent(const Params& p) {
  LayerGraph b;
  bool lstm = p.at("op") == 0;
  int64_t gates = lstm ? 4 : 3, hidden = p.at("hidden"), input = p.at("input");
  auto x = b.input("x", {p.at("steps"), p.at("batch"), input});
  auto w = b.weight("w", {1, gates * hidden, input});
  auto r = b.weight("r", {1, gates * hidden, hidden});
  auto bias = b.weight("b", {1, 2 * gates * hidden});
  return b.finish(b.node(lstm ? "LSTM" : "GRU", {x, w, r, bias}, {int_attr("hidden_size", hidden)}));
}

graph::Model build_chain(const Params& p) {
  LayerGraph b;
  auto x = b.input("x", {1, 64});
  for (int64_t i = 0; i < p.at("length"); ++i) x = b.node(i % 2 ? "Relu" : "Neg", {x});
  return b.finish(x);
}

struct ParamGrid {
  std::string name;
  std::vector<int64_t> values;
};

struct Template {
  std::string name;
  int weight;  // draws per unit of the sample size: the kinds that dominate model time get more
  std::vector<ParamGrid> grid;
  graph::Model (*build)(const Params&);
  bool (*plausible)(const Params&) = nullptr;  // rejects combinations no real network has
  double max_flops = 8e9;                      // a BERT-base projection at batch 8, sequence 128: 4.8 GFLOP
};

// Elements per image of a feature map: channels x size^2 (x parts for a Concat's output).
double per_image(const Params& p, int64_t parts = 1) {
  return static_cast<double>(parts * p.at("channels")) * static_cast<double>(p.at("size") * p.at("size"));
}
bool plausible_map(double elements) { return elements >= 5e3 && elements <= 3.5e6; }

// Shapes real networks have, so the sample spends its time where models do: a convolution's input
// holds 5 K to 3.5 M elements per image (a 224x224 stem to a 7x7 last stage of 160 channels), RGB
// only at a stem (a 3x3 or wider kernel), output channels 1/8x to 8x the input's (bottlenecks and
// MobileNet's 6x expansions), a 7x7 or 11x11 kernel only on a stem (size >= 56), stride 4 only
// with such a kernel.
bool plausible_conv(const Params& p) {
  double c = static_cast<double>(p.at("channels")), f = static_cast<double>(p.at("filters"));
  int64_t k = p.at("kernel"), stride = p.at("stride");
  if (!plausible_map(per_image(p))) return false;
  if (c == 3 ? p.at("size") < 112 || k < 3 : (f > 8 * c || 8 * f < c)) return false;
  if (k >= 7 && p.at("size") < 56) return false;
  return stride < 4 || k >= 7;
}
bool plausible_large_conv(const Params& p) {
  return per_image(p) <= 3.5e6 && p.at("filters") <= 2 * p.at("channels") && 2 * p.at("filters") >= p.at("channels");
}
bool plausible_depthwise(const Params& p) { return per_image(p) >= 1e4 && per_image(p) <= 2.5e6; }
// The expanded map as MobileNetV2's holds it (16 x 6 channels at 112 to 960 at 7), projections to 1/6x-2x the channels.
bool plausible_inverted_residual(const Params& p) {
  double c = static_cast<double>(p.at("channels")), f = static_cast<double>(p.at("filters"));
  return plausible_map(per_image(p) * static_cast<double>(p.at("expansion"))) && f <= 2 * c && 6 * f >= c &&
         (p.at("expansion") > 1 || p.at("size") >= 56);
}
bool plausible_concat(const Params& p) { return plausible_map(per_image(p, p.at("parts"))); }
bool plausible_resize(const Params& p) { return plausible_map(per_image(p)); }
// Padding only where a window has a centre (odd kernels); a 5x5 window only as an SPP block's, stride 1.
bool plausible_pool(const Params& p) {
  int64_t k = p.at("kernel");
  if (p.at("padding") != 0 && k % 2 == 0) return false;
  return plausible_map(per_image(p)) && (k != 5 || p.at("stride") == 1);
}

std::vector<int64_t> powers_of_two(int from_exponent, int to_exponent) {
  std::vector<int64_t> v;
  for (int e = from_exponent; e <= to_exponent; ++e) v.push_back(int64_t{1} << e);
  return v;
}

// The grids span the shapes of image classifiers and transformers (channels 3..2048, spatial
// 7..224, sequence 16..512, hidden 64..4096), so the fit interpolates rather than extrapolates.
const std::vector<Template>& templates() {
  static const std::vector<Template> table{
      {"conv",
       6,
       {{"batch", {1, 2, 4, 8}},
        {"channels", {3, 16, 24, 32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 576, 960, 1024, 2048}},
        {"filters", {16, 24, 32, 48, 64, 96, 128, 160, 192, 256, 384, 512, 576, 960, 1024, 1280, 2048}},
        {"size", {7, 14, 20, 28, 40, 56, 80, 112, 160, 224, 320}},
        {"kernel", {1, 1, 3, 3, 5, 7, 11}},
        {"stride", {1, 1, 1, 2, 4}},
        {"epilogue", {kNone, kRelu, kRelu, kAddRelu, kClip, kSilu}}},
       [](const Params& p) { return build_conv(p, false); },
       plausible_conv},
      // The large convolutions of VGG, YOLO and U-Nets at batch 4 to 8 (4 to 30 GFLOP each, to 32 where the other
      // templates stop at 8): without them the fit extrapolated VGG-16's batch-8 layers and predicted them 1.5x slow.
      // YOLO's maps (160 and 320 a side at a 640 input, 320 and 160 at 320), its stride-2 downsampling and its SiLU:
      // without them its batch-8 convolutions came out 1.5-2x slow in optimized mode.
      {"large_conv",
       2,
       {{"batch", {4, 8}},
        {"channels", {32, 64, 128, 256}},
        {"filters", {32, 64, 128, 256}},
        {"size", {56, 112, 160, 224, 320}},
        {"kernel", {3}},
        {"stride", {1, 1, 2}},
        {"epilogue", {kRelu, kSilu}}},
       [](const Params& p) { return build_conv(p, false); },
       plausible_large_conv,
       32e9},
      {"depthwise",
       4,
       {{"batch", {1, 2, 4, 8}},
        {"channels", {16, 32, 64, 96, 144, 192, 384, 576, 960}},
        {"size", {7, 14, 28, 56, 112}},
        {"kernel", {3, 3, 5}},
        {"stride", {1, 2}},
        {"epilogue", {kNone, kRelu, kClip, kClip, kSilu}}},
       [](const Params& p) { return build_conv(p, true); },
       plausible_depthwise},
      {"inverted_residual",
       2,
       {{"batch", {1, 2, 4, 8}},
        {"channels", {16, 24, 32, 40, 64, 96, 160}},
        {"expansion", {1, 6, 6}},
        {"filters", {16, 24, 32, 40, 64, 96, 160, 320}},
        {"size", {7, 14, 28, 56, 112}},
        {"kernel", {3, 3, 5}},
        {"stride", {1, 1, 2}},
        {"epilogue", {kClip, kClip, kSilu}}},
       build_inverted_residual,
       plausible_inverted_residual},
      // A stem: the RGB image into a few filters at a large map (MobileNetV2's 3 -> 32 at 224, stride 2: 22 MFLOP). The
      // conv template's RGB layers were all wide (450 MFLOP and more), and the fit took the stem for one of them.
      {"stem",
       1,
       {{"batch", {1, 2, 4, 8}},
        {"channels", {3}},
        {"filters", {16, 24, 32, 48, 64}},
        {"size", {160, 224, 320, 640}},
        {"kernel", {3, 3, 7}},
        {"stride", {2}},
        {"epilogue", {kRelu, kClip, kSilu}}},
       [](const Params& p) { return build_conv(p, false); }},
      {"linear",
       4,
       {{"rows", {1, 2, 4, 8, 16, 64, 128, 256, 512, 1024}},
        {"inputs", {64, 256, 512, 768, 1024, 2048, 3072, 4096, 9216, 25088}},
        {"outputs", {10, 64, 256, 768, 1000, 1024, 2048, 3072, 4096}},
        {"form", {0, 1}},
        {"epilogue", {kNone, kRelu, kGelu}}},
       build_linear},
      // The two shapes of fully connected layer that dominate whole models: a classifier's
      // matrix-vector products over weights far larger than any cache, and a transformer's
      // projections over batch x sequence rows.
      {"classifier",
       2,
       {{"rows", {1, 2, 4, 8, 16}},
        {"inputs", {1024, 1280, 2048, 4096, 9216, 25088}},
        {"outputs", {1000, 4096}},
        {"form", {1}},
        {"epilogue", {kNone, kRelu}}},
       build_linear},
      {"transformer_linear",
       2,
       {{"rows", {128, 256, 512, 1024, 2048}},
        {"inputs", {768, 1024, 3072}},
        {"outputs", {768, 1024, 2304, 3072}},
        {"form", {0}},
        {"epilogue", {kNone, kGelu}}},
       build_linear},
      {"batched_matmul",
       3,
       {{"batch", {1, 4, 12, 24, 48, 96}},
        {"m", {16, 32, 64, 128, 256, 512}},
        {"k", {32, 64, 128, 256, 512}},
        {"n", {16, 32, 64, 128, 256, 512}}},
       build_batched_matmul},
      {"unary", 1, {{"op", {0, 1, 2, 3, 4, 5, 6, 7}}, {"elements", powers_of_two(8, 24)}}, build_unary},
      {"binary",
       2,
       {{"op", {0, 1, 2, 3}}, {"elements", powers_of_two(8, 24)}, {"broadcast", {0, 0, 1, 2}}},
       build_binary},
      {"select", 1, {{"elements", powers_of_two(8, 22)}, {"broadcast", {0, 1}}}, build_select},
      {"batchnorm",
       1,
       {{"batch", {1, 2, 8}}, {"channels", {16, 64, 128, 256, 512, 1024}}, {"size", {7, 14, 28, 56, 112}}},
       build_batchnorm},
      {"layernorm", 1, {{"rows", powers_of_two(0, 11)}, {"width", {64, 128, 256, 512, 768, 1024}}}, build_layernorm},
      // Weighted twice: in eager mode ATen's pooling runs at 1 GB/s or less, and GoogLeNet spends half its time in its
      // 13 MaxPools.
      {"pool",
       2,
       {{"op", {0, 0, 1}},
        {"batch", {1, 2, 8}},
        {"channels", {16, 64, 128, 192, 256, 480, 512}},
        {"size", {7, 14, 28, 56, 112, 224}},
        {"kernel", {2, 3, 3, 5}},
        {"stride", {1, 2}},
        {"padding", {0, 1}},
        {"ceil", {0, 1}}},
       build_pool,
       plausible_pool},
      {"global_pool",
       1,
       {{"batch", {1, 2, 8}}, {"channels", {64, 256, 512, 1024, 2048}}, {"size", {7, 14, 28}}},
       build_global_pool},
      {"softmax", 1, {{"rows", powers_of_two(0, 14)}, {"width", {16, 64, 128, 256, 512, 1000}}}, build_softmax},
      {"reduce", 1, {{"rows", powers_of_two(0, 12)}, {"width", {64, 256, 768, 1024}}}, build_reduce},
      {"concat",
       2,
       {{"batch", {1, 2, 8}},
        {"parts", {1, 2, 3, 4, 6, 12, 24}},
        {"channels", {16, 32, 64, 128, 256}},
        {"size", {7, 14, 28, 56}}},
       build_concat,
       plausible_concat},
      {"resize",
       1,
       {{"op", {0, 0, 1}},
        {"batch", {1, 2, 8}},
        {"channels", {32, 64, 128, 256, 512}},
        {"size", {7, 14, 20, 28, 40, 56, 80}}},
       build_resize,
       plausible_resize},
      {"patch", 1, {{"batch", {1, 2, 4, 8}}, {"patch", {14, 16, 32}}, {"filters", {384, 768, 1024}}}, build_patch},
      {"transpose",
       1,
       {{"batch", {1, 2, 8}}, {"tokens", {16, 64, 128, 256, 512}}, {"heads", {4, 8, 12, 16}}},
       build_transpose},
      {"gather",
       1,
       {{"vocabulary", {2, 512, 30522}}, {"width", {128, 768, 1024}}, {"tokens", {1, 16, 128, 512, 1024}}},
       build_gather},
      {"view", 1, {{"op", {0, 1, 2}}, {"elements", powers_of_two(4, 22)}}, build_view},
      // Recurrent layers as sequence models use them: a few to a few hundred steps, small batches.
      {"recurrent",
       6,
       {{"op", {0, 0, 1}},
        {"steps", {1, 4, 16, 32, 64, 128}},
        {"batch", {1, 2, 4, 8}},
        {"input", {16, 32, 64, 128, 256, 512}},
        {"hidden", {32, 64, 128, 256, 512}}},
       build_recurrent},
      // The recurrent layers of sequence models (speech, language, time series): hidden 128 to 1024 over tens to
      // hundreds of steps.
      {"sequence_model",
       2,
       {{"op", {0, 0, 1}},
        {"steps", {16, 32, 64, 128, 256}},
        {"batch", {1, 1, 2, 4, 8}},
        {"input", {64, 128, 256, 512}},
        {"hidden", {128, 256, 512, 1024}}},
       build_recurrent},
      {"chain", 1, {{"length", {1, 4, 16, 64}}}, build_chain},
  };
  return table;
}

const Template& find_template(const std::string& name) {
  for (const auto& t : templates())
    if (t.name == name) return t;
  throw Error(fmt::format("unknown layer template '{}'", name));
}

// A single measurement should stay well under the sampling budget on a small machine.
constexpr double kMaxBytes = 5e8;

bool within_limits(const Template& t, const analysis::Result& r) {
  return static_cast<double>(r.cost.totals.flops) <= t.max_flops &&
         static_cast<double>(r.cost.totals.bytes) <= kMaxBytes;
}

analysis::Result analyze_config(const LayerConfig& config) {
  analysis::Request request;
  return analysis::rerun(build_layer_model(config), request);
}

// The worst relative error of a configuration's samples under `model` (0 when none is covered).
double worst_error(const ShapeModel& model, const std::vector<Sample>& samples) {
  double worst = 0;
  for (const auto& s : samples) {
    // A GPU node's time is measured eager (a CUDA graph has no per-node events): only eager samples compare.
    if (model.executor() == "cuda" && s.mode != "eager") continue;
    auto t = model.predict_s(s.features, s.mode);
    if (t && s.measured_s > 0) worst = std::max(worst, std::abs(*t / s.measured_s - 1));
  }
  return worst;
}

}  // namespace

std::string LayerConfig::label() const {
  std::string text = layer;
  for (const auto& [key, value] : param) text += fmt::format(" {}={}", key, value);
  return text;
}

std::vector<std::string> layer_templates() {
  std::vector<std::string> names;
  for (const auto& t : templates()) names.push_back(t.name);
  return names;
}

graph::Model build_layer_model(const LayerConfig& config) {
  const auto& t = find_template(config.layer);
  for (const auto& g : t.grid)
    if (!config.param.count(g.name)) throw Error(fmt::format("layer '{}' needs parameter '{}'", config.layer, g.name));
  try {
    auto model = t.build(config.param);
    model.path = "(layer sample: " + config.label() + ")";
    return model;
  } catch (const std::out_of_range&) {
    throw Error(fmt::format("layer '{}': a parameter is out of range", config.label()));
  }
}

std::vector<LayerConfig> draw_configs(int per_template, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<LayerConfig> configs;
  std::set<std::string> seen;
  for (const auto& t : templates()) {
    int made = 0;
    int wanted = per_template * t.weight;
    for (int attempt = 0; made < wanted && attempt < wanted * 50; ++attempt) {
      LayerConfig c{t.name, {}};
      for (const auto& g : t.grid) c.param[g.name] = g.values[rng() % g.values.size()];
      if (!seen.insert(c.label()).second || (t.plausible && !t.plausible(c.param))) continue;
      try {
        if (!within_limits(t, analyze_config(c))) continue;
      } catch (const Error&) {
        continue;  // shapes the template cannot take (an empty output)
      }
      configs.push_back(std::move(c));
      ++made;
    }
  }
  return configs;
}

std::vector<LayerConfig> neighbours(const LayerConfig& config, int count, uint64_t seed) {
  const auto& t = find_template(config.layer);
  std::mt19937_64 rng(seed);
  std::vector<LayerConfig> out;
  std::set<std::string> seen{config.label()};
  for (int attempt = 0; static_cast<int>(out.size()) < count && attempt < count * 20; ++attempt) {
    auto c = config;
    int changes = 1 + static_cast<int>(rng() % 2);
    for (int i = 0; i < changes; ++i) {
      const auto& g = t.grid[rng() % t.grid.size()];
      auto at = std::find(g.values.begin(), g.values.end(), c.param[g.name]);
      auto index = static_cast<int64_t>(at - g.values.begin());
      index += rng() % 2 ? 1 : -1;
      index = std::clamp<int64_t>(index, 0, static_cast<int64_t>(g.values.size()) - 1);
      c.param[g.name] = g.values[static_cast<size_t>(index)];
    }
    if (!seen.insert(c.label()).second || (t.plausible && !t.plausible(c.param))) continue;
    try {
      if (!within_limits(t, analyze_config(c))) continue;
    } catch (const Error&) {
      continue;
    }
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

int visits_of(const SampleOptions& options) { return options.visits > 0 ? options.visits : options.gpu ? 1 : 2; }

// One configuration measured once in one mode at one thread count: its layers, and its run for the overhead fit.
struct Visit {
  std::vector<Sample> samples;
  OverheadSample overhead;
  bool anchored = false;
};

Visit measure_once(exec::Engine& engine, const LayerConfig& config, const analysis::Result& analysis,
                   const FusionPlan& plan, const std::unordered_map<std::string, int>& index_of, exec::Mode mode,
                   int threads, const SampleOptions& options) {
  const auto& g = analysis.model.graph;
  const auto label = config.label();
  const int visits = visits_of(options);
  exec::BenchOptions bench;
  bench.exec.threads = threads;
  bench.exec.mode = mode;
  bench.exec.profile_nodes = true;
  bench.exec.seed = options.seed;
  bench.warmup_seconds = options.seconds_per_run / 4 / visits;
  bench.min_warmup = 1;
  bench.stopping.min_samples = visits > 1 ? 3 : 5;
  bench.stopping.max_seconds = options.seconds_per_run / visits;
  bench.stopping.target_relative_error = 0.02;
  auto result = engine.bench(analysis.model, {}, bench);
  std::map<std::string, std::string> environment{{"cpu", result.environment.cpu_model},
                                                 {"torch", result.environment.torch_version},
                                                 {"ridge_revision", result.environment.ridge_revision},
                                                 {"timestamp", utc_now()}};
  if (options.gpu) environment["device"] = result.environment.device;
  // Medians, of the nodes over the profile's passes and of the timed runs: a visit measures for 0.05 s, so one stall
  // from a shared machine's other tenants would move a small layer's mean by its whole length.
  auto node_s = [](const exec::NodeTiming& t) { return exec::typical_ms(t) / 1e3; };
  double node_sum_s = 0;
  for (const auto& timing : result.nodes) node_sum_s += node_s(timing);
  const double run_s = (result.latency_ms.median > 0 ? result.latency_ms.median : result.latency_ms.mean) / 1e3;
  // As bench runs are (node_time_anchor): a stall that fell in the profiled passes would otherwise be fitted as
  // the layer's time, and the trees learn such a point (a 1x1 convolution measured 15x its neighbours at 2
  // threads made ResNet-50's three of its shape 10x slow).
  const double anchor = node_time_anchor(node_sum_s, run_s, options.gpu);
  Visit visit;
  visit.anchored = anchor < 1;
  const auto run_id = fmt::format("layer-sample: {} {} {}", label, exec::name(mode), threads);
  for (const auto& timing : result.nodes) {
    auto found = index_of.find(timing.name);
    if (found == index_of.end() || is_edge(timing.name)) continue;  // made by the executor; a layout edge
    int n = found->second;
    if (plan.leader[static_cast<size_t>(n)] != n || g.nodes[static_cast<size_t>(n)].unknown_op) continue;
    Sample s;
    s.features = layer_features(g, analysis.cost, plan, n, threads);
    s.mode = std::string(exec::name(mode));
    s.measured_s = node_s(timing) * anchor;
    s.source = "layer-sample";
    s.run = run_id;
    s.label = label + " node=" + timing.name;
    s.environment = environment;
    visit.samples.push_back(std::move(s));
  }
  visit.overhead = {
      std::string(exec::name(mode)), threads, static_cast<int>(result.executed_nodes), node_sum_s * anchor, run_s,
      "layer-sample: " + label,      run_id};
  return visit;
}

}  // namespace

SampleRun measure_configs(exec::Engine& engine, const std::vector<LayerConfig>& configs, const SampleOptions& options,
                          const std::string& stage, const std::function<void(const SampleProgress&)>& on_progress,
                          int done_before, int total) {
  SampleRun run;
  run.configurations = static_cast<int>(configs.size());
  const int visits = visits_of(options);
  const auto per_config = options.modes.size() * options.threads.size();
  if (total == 0) total = static_cast<int>(configs.size() * per_config) * visits;
  int done = done_before;
  auto start = std::chrono::steady_clock::now();
  struct Prepared {
    analysis::Result analysis;
    std::vector<FusionPlan> plans;  // per mode
    std::unordered_map<std::string, int> index_of;
  };
  std::vector<std::optional<Prepared>> prepared(configs.size());
  for (size_t c = 0; c < configs.size(); ++c) {
    try {
      Prepared p;
      p.analysis = analyze_config(configs[c]);
      const auto& g = p.analysis.model.graph;
      for (size_t n = 0; n < g.nodes.size(); ++n) p.index_of[g.nodes[n].name] = static_cast<int>(n);
      for (auto mode : options.modes)
        p.plans.push_back(plan_for(options.gpu ? "cuda" : "cpu", std::string(exec::name(mode)), g, p.analysis.cost,
                                   p.analysis.model.directory));
      prepared[c] = std::move(p);
    } catch (const Error& e) {
      run.failures.push_back(fmt::format("{}: {}", configs[c].label(), e.what()));
    }
  }
  // Each configuration is visited `visits` times, in passes over the whole list, and keeps its fastest visit. On a
  // shared VM other tenants only ever add time, and they do so for minutes at once: two samples of the same
  // configurations ten minutes apart agreed within 10% for 19-47% of layers, while the faster of two visits did
  // for 75% (docs/calibration.md, "Visits").
  std::vector<std::optional<Visit>> best(configs.size() * per_config);
  std::set<size_t> failed;
  for (int v = 0; v < visits; ++v) {
    for (size_t c = 0; c < configs.size(); ++c) {
      if (!prepared[c]) {
        if (v == 0) done += static_cast<int>(per_config) * visits;
        continue;
      }
      const auto label = configs[c].label();
      for (size_t m = 0; m < options.modes.size(); ++m) {
        for (size_t t = 0; t < options.threads.size(); ++t) {
          const size_t slot = c * per_config + m * options.threads.size() + t;
          if (on_progress)
            on_progress({done, total, visits > 1 ? fmt::format("{}, visit {} of {}", stage, v + 1, visits) : stage,
                         label, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
          ++done;
          if (failed.count(slot)) continue;
          const auto mode = options.modes[m];
          const int threads = options.threads[t];
          try {
            auto visit = measure_once(engine, configs[c], prepared[c]->analysis, prepared[c]->plans[m],
                                      prepared[c]->index_of, mode, threads, options);
            if (!best[slot] || visit.overhead.run_s < best[slot]->overhead.run_s) best[slot] = std::move(visit);
          } catch (const Error& e) {
            run.failures.push_back(
                fmt::format("{} ({} mode, {} threads): {}", label, exec::name(mode), threads, e.what()));
            failed.insert(slot);
            best[slot].reset();
          }
        }
      }
    }
  }
  for (auto& visit : best) {
    if (!visit) continue;
    ++run.runs;
    if (visit->anchored) ++run.anchored_runs;
    run.samples.insert(run.samples.end(), visit->samples.begin(), visit->samples.end());
    run.overheads.push_back(std::move(visit->overhead));
  }
  return run;
}

SampleRun run_layer_sample(exec::Engine& engine, const SampleOptions& options,
                           const std::function<void(const SampleProgress&)>& on_progress) {
  if (options.threads.empty() || options.modes.empty()) throw Error("the layer sample needs a thread count and a mode");
  int per_template = options.per_template > 0 ? options.per_template : options.quick ? 8 : 24;
  int rounds = options.refine_rounds >= 0 ? options.refine_rounds : options.quick ? 1 : 2;
  // Measurements per configuration: every mode and thread count, each visited visits_of(options) times.
  int per_config = static_cast<int>(options.modes.size() * options.threads.size()) * visits_of(options);
  auto configs = draw_configs(per_template, options.seed);
  // Each refinement round measures about a quarter as many configurations again.
  int refine_budget = std::max<int>(8, static_cast<int>(configs.size()) / 4);
  int total = (static_cast<int>(configs.size()) + rounds * refine_budget) * per_config;

  SampleRun all;
  std::vector<std::vector<Sample>> samples_of;  // per configuration measured, in order
  auto absorb = [&](const std::vector<LayerConfig>& batch, const SampleRun& part) {
    for (const auto& c : batch) {
      auto prefix = c.label() + " node=";
      std::vector<Sample> mine;
      for (const auto& s : part.samples)
        if (s.label.rfind(prefix, 0) == 0) mine.push_back(s);
      samples_of.push_back(std::move(mine));
    }
    all.samples.insert(all.samples.end(), part.samples.begin(), part.samples.end());
    all.overheads.insert(all.overheads.end(), part.overheads.begin(), part.overheads.end());
    all.failures.insert(all.failures.end(), part.failures.begin(), part.failures.end());
    all.configurations += part.configurations;
    all.runs += part.runs;
    all.anchored_runs += part.anchored_runs;
  };
  int done = 0;
  auto first = measure_configs(engine, configs, options, "sample", on_progress, done, total);
  done += static_cast<int>(configs.size()) * per_config;
  absorb(configs, first);

  // Held-out errors pick where to sample next: the configurations measured last are predicted by a
  // model fitted before they were measured (for the first round: on the other two thirds).
  std::vector<LayerConfig> measured = configs;
  std::vector<size_t> candidates;  // indices into `measured` whose errors decide the next round
  std::vector<Sample> fit_on;
  for (size_t i = 0; i < measured.size(); ++i) {
    if (i % 3 == 2)
      candidates.push_back(i);
    else
      fit_on.insert(fit_on.end(), samples_of[i].begin(), samples_of[i].end());
  }
  FitOptions fit_options;
  fit_options.folds = 2;
  fit_options.seed = options.seed;
  fit_options.executor = options.gpu ? "cuda" : "cpu";
  for (int round = 1; round <= rounds; ++round) {
    std::vector<std::pair<double, size_t>> errors;
    try {
      auto interim = ShapeModel::fit(fit_on, all.overheads, options.ceilings, fit_options);
      for (auto i : candidates) errors.emplace_back(worst_error(interim, samples_of[i]), i);
    } catch (const Error&) {
      break;  // nothing to fit yet (every configuration failed): nothing to refine
    }
    std::sort(errors.rbegin(), errors.rend());
    std::vector<LayerConfig> next;
    std::set<std::string> known;
    for (const auto& c : measured) known.insert(c.label());
    for (const auto& [error, i] : errors) {
      if (error <= 0.10 || static_cast<int>(next.size()) >= refine_budget) break;
      for (auto& c : neighbours(measured[i], 2, options.seed + static_cast<uint64_t>(round * 7919 + i)))
        if (known.insert(c.label()).second && static_cast<int>(next.size()) < refine_budget) next.push_back(c);
    }
    if (next.empty()) break;
    fit_on = all.samples;
    auto part = measure_configs(engine, next, options, fmt::format("refine {}", round), on_progress, done, total);
    done += static_cast<int>(next.size()) * per_config;
    candidates.clear();
    for (size_t i = 0; i < next.size(); ++i) candidates.push_back(measured.size() + i);
    measured.insert(measured.end(), next.begin(), next.end());
    absorb(next, part);
  }
  return all;
}

}  // namespace ridge::calib
