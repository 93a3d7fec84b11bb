// Where a GPU run keeps its activations in 16 bits (exec/cuda/storage_plan.h), checked without a GPU: which runs do,
// the conversions a graph's kernels need (by hand on a small graph), and that the bundled CNNs, optimized as the GPU
// runs them, convert nothing but their input and output, with the kernel table the executor uses.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "exec/cuda/interpreter.h"
#include "exec/cuda/storage_plan.h"
#include "exec/node_plan.h"
#include "exec/prepare.h"
#include "support/executor_models.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;
using graph::DType;

// The kernel of every node the GPU executor runs, as its interpreter chooses them (null: folded).
std::vector<const cuda::KernelRow*> kernels_of(const graph::Graph& g) {
  auto plan = exec::plan_nodes(g, true);
  std::vector<const cuda::KernelRow*> kernels(g.nodes.size(), nullptr);
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (plan.executes(n)) kernels[n] = cuda::KernelRegistry::instance().find(g.nodes[n].op_type);
  return kernels;
}

graph::ValueId value_named(const graph::Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.values.size(); ++i)
    if (g.values[i].name == name) return static_cast<graph::ValueId>(i);
  ADD_FAILURE() << "no value " << name;
  return graph::kNoValue;
}

TEST(CudaStorage, OnlyOptimizedSixteenBitInferenceKeepsActivationsInSixteenBits) {
  exec::ExecOptions o;
  o.device = exec::Backend::kCuda;
  o.mode = exec::Mode::kOptimized;
  o.precision = exec::Precision::kFp16;
  EXPECT_EQ(cuda::activation_storage(o, false), DType::kFloat16);
  EXPECT_EQ(cuda::activation_storage(o, true), DType::kFloat32);  // a training step: autocast's fp32 values
  o.precision = exec::Precision::kBf16;
  EXPECT_EQ(cuda::activation_storage(o, false), DType::kBFloat16);
  for (auto p : {exec::Precision::kFp32, exec::Precision::kTf32}) {
    o.precision = p;
    EXPECT_EQ(cuda::activation_storage(o, false), DType::kFloat32);
  }
  o.precision = exec::Precision::kFp16;
  for (auto m : {exec::Mode::kEager, exec::Mode::kCudaGraph}) {
    o.mode = m;
    EXPECT_EQ(cuda::activation_storage(o, false), DType::kFloat32);
  }
  // A convolution reads its input and residual in 16 bits, its weight and bias in fp32; other types as declared.
  const auto* conv = cuda::KernelRegistry::instance().find("Conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(cuda::input_type(*conv, 0, DType::kFloat32, DType::kFloat16), DType::kFloat16);
  EXPECT_EQ(cuda::input_type(*conv, 1, DType::kFloat32, DType::kFloat16), DType::kFloat32);
  EXPECT_EQ(cuda::input_type(*conv, 2, DType::kFloat32, DType::kFloat16), DType::kFloat32);
  EXPECT_EQ(cuda::input_type(*conv, 3, DType::kFloat32, DType::kFloat16), DType::kFloat16);
  EXPECT_EQ(cuda::input_type(*conv, 0, DType::kInt64, DType::kFloat16), DType::kInt64);
  EXPECT_EQ(cuda::input_type(*conv, 0, DType::kFloat32, DType::kFloat32), DType::kFloat32);
}

// x -> Conv -> Relu -> InstanceNormalization (no 16-bit kernel) -> Add(relu's output) -> Mul(a weight) -> y:
// x converted to fp16 for the convolution, the Relu's output back to fp32 for the normalization, its output to fp16
// for the Add, the weight once, y back to fp32.
TEST(CudaStorage, AKernelWithoutASixteenBitFormReadsFp32AndEveryOtherValueStaysInSixteenBits) {
  ModelBuilder b;
  b.input("x", {1, 3, 8, 8}).weight("w", {4, 3, 3, 3}).weight("s", {4}).weight("t", {4}).weight("k", {4, 1, 1});
  set_ints(b.node("Conv", {"x", "w"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"}, "relu");
  b.node("InstanceNormalization", {"r", "s", "t"}, {"n"}, "norm");
  b.node("Add", {"n", "r"}, {"a"}, "add");
  b.node("Mul", {"a", "k"}, {"y"}, "scale");
  b.output("y");
  auto result = analyze_file(b.save("storage"));
  const auto& g = result.model.graph;
  auto kernels = kernels_of(g);

  auto plan = cuda::plan_storage(g, kernels, DType::kFloat16);
  auto type = [&](const char* name) { return plan.value_types[static_cast<size_t>(value_named(g, name))]; };
  EXPECT_EQ(type("x"), DType::kFloat32);
  EXPECT_EQ(type("w"), DType::kFloat32);
  EXPECT_EQ(type("c"), DType::kFloat16);
  EXPECT_EQ(type("r"), DType::kFloat16);
  EXPECT_EQ(type("n"), DType::kFloat32);
  EXPECT_EQ(type("a"), DType::kFloat16);
  EXPECT_EQ(type("y"), DType::kFloat16);
  // (node, input, to, constant), in node order
  std::vector<std::tuple<std::string, size_t, DType, bool>> expected{{"conv", 0, DType::kFloat16, false},
                                                                     {"norm", 0, DType::kFloat32, false},
                                                                     {"add", 0, DType::kFloat16, false},
                                                                     {"scale", 1, DType::kFloat16, true}};
  ASSERT_EQ(plan.conversions.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& c = plan.conversions[i];
    EXPECT_EQ(g.nodes[c.node].name, std::get<0>(expected[i])) << i;
    EXPECT_EQ(c.input, std::get<1>(expected[i])) << i;
    EXPECT_EQ(c.to, std::get<2>(expected[i])) << i;
    EXPECT_EQ(c.constant, std::get<3>(expected[i])) << i;
  }
  EXPECT_EQ(plan.output_conversions, 1);
  EXPECT_EQ(plan.per_run(), 4);  // x, r, n and y: the weight k only at the first run
  EXPECT_EQ(plan.fp32_kernels, (std::map<std::string, int>{{"InstanceNormalization", 1}}));
  EXPECT_EQ(plan.summary(),
            "activations kept in fp16 between ops: 4 conversion(s) per run (2 to fp16, 1 to fp32, 1 output(s) "
            "back to fp32), 1 constant(s) converted once; kernels without a 16-bit form read fp32: "
            "InstanceNormalization (1)");

  auto fp32 = cuda::plan_storage(g, kernels, DType::kFloat32);
  EXPECT_TRUE(fp32.conversions.empty());
  EXPECT_EQ(fp32.per_run(), 0);
  EXPECT_EQ(fp32.summary(), "");
  EXPECT_EQ(fp32.value_types[static_cast<size_t>(value_named(g, "c"))], DType::kFloat32);
}

// A Concat of 33 inputs (DenseNet-169's last dense block ends in one, DenseNet-201's in more) reads every one in 16
// bits and channels-last, past the 32 bits of its kernel row's input masks.
TEST(CudaStorage, AConcatOfMoreThan32InputsReadsThemAllAsItsRowSays) {
  ModelBuilder b;
  b.input("x", {1, 2, 4, 4});
  b.node("Relu", {"x"}, {"r"}, "first");
  std::vector<std::string> parts;
  for (int i = 0; i < 33; ++i) {
    parts.push_back("p" + std::to_string(i));
    b.node("Relu", {"r"}, {parts.back()}, "relu" + std::to_string(i));
  }
  set_int(b.node("Concat", parts, {"y"}, "concat"), "axis", 1);
  b.output("y");
  auto result = analyze_file(b.save("concat33"));
  const auto& g = result.model.graph;
  auto kernels = kernels_of(g);
  const auto* concat = cuda::KernelRegistry::instance().find("Concat");
  ASSERT_NE(concat, nullptr);
  for (size_t i : {size_t{0}, size_t{31}, size_t{32}}) {
    EXPECT_EQ(cuda::input_type(*concat, i, DType::kFloat32, DType::kFloat16), DType::kFloat16) << i;
    EXPECT_TRUE(cuda::reads_channels_last(*concat, i, {1, 2, 4, 4}, true)) << i;
  }
  auto plan = cuda::plan_storage(g, kernels, DType::kFloat16);
  for (const auto& c : plan.conversions) EXPECT_NE(g.nodes[c.node].name, "concat") << "input " << c.input;
  EXPECT_EQ(plan.value_types[static_cast<size_t>(value_named(g, "y"))], DType::kFloat16);
}

// The bundled models optimized as the GPU runs them: in fp16 and bf16 every CNN's activations stay 16-bit from its
// input's conversion to its output's, and the transformers convert only around the ops named here.
TEST(CudaStorage, TheBundledModelsRunInSixteenBitsEndToEnd) {
  for (const char* name :
       {"resnet", "mobilenet_v2", "densenet", "googlenet", "alexnet", "vgg", "yolo", "vit", "bert", "gpt2"}) {
    auto prepared = prepared_executor_model(name);
    // fp16 and bf16 optimize alike (only fp32 fuses attention).
    auto optimized = cuda::gpu_optimized_graph(prepared.analysis.model, exec::Precision::kFp16);
    const auto& g = optimized.graph;
    for (auto storage : {DType::kFloat16, DType::kBFloat16}) {
      auto plan = cuda::plan_storage(g, kernels_of(g), storage);
      // Nothing converts back to fp32 inside the model: every kernel on the path takes 16 bits. What converts per
      // run is the image or a mask computed in fp32 (BERT's and GPT-2's Cast of their int64 masks), and the outputs.
      EXPECT_TRUE(plan.fp32_kernels.empty()) << name << ": " << plan.summary();
      EXPECT_EQ(plan.output_conversions, static_cast<int64_t>(g.outputs.size())) << name;
      EXPECT_LE(plan.per_run(), plan.output_conversions + 2) << name << ": " << plan.summary();
      for (const auto& c : plan.conversions) EXPECT_NE(c.to, DType::kFloat32) << name << " " << g.nodes[c.node].name;
      int layers = 0;
      for (size_t n = 0; n < g.nodes.size(); ++n) {
        const auto& op = g.nodes[n].op_type;
        if (op != "Conv" && op != "MatMul" && op != "Gemm") continue;
        ++layers;
        EXPECT_EQ(plan.value_types[static_cast<size_t>(g.nodes[n].outputs[0])], storage) << name << " " << op;
      }
      EXPECT_GT(layers, 0) << name;
    }
  }
}

// The element `i` of a dense walk over `l`'s dims: its offset by `l`'s strides (what strided_copy reads).
int64_t offset_of(int64_t i, const cuda::Layout& l) {
  int64_t offset = 0;
  for (int d = l.rank - 1; d >= 0; --d) {
    offset += (i % l.dims[d]) * l.strides[d];
    i /= l.dims[d];
  }
  return offset;
}

// The layouts the interpreter converts with and the kernels walk: by hand on a 2 x 3 x 2 x 2 tensor whose NCHW element
// (n, c, h, w) holds 1000n + 100c + 10h + w.
TEST(CudaStorage, ChannelsLastLayoutsReadTheElementsEachOrderPutsWhere) {
  const std::vector<int64_t> dims{2, 3, 2, 2};
  EXPECT_TRUE(cuda::layout_differs(dims));
  EXPECT_FALSE(cuda::layout_differs({2, 3, 1, 1}));  // pooled: the same bytes
  EXPECT_FALSE(cuda::layout_differs({2, 1, 5, 5}));  // one channel
  EXPECT_FALSE(cuda::layout_differs({2, 3, 4}));     // not 4-D
  EXPECT_EQ(cuda::channels_last_strides(dims), (std::vector<int64_t>{12, 1, 6, 3}));
  EXPECT_EQ(cuda::nhwc_dims(dims), (std::vector<int64_t>{2, 2, 2, 3}));
  std::vector<int> nchw;
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 2; ++w) nchw.push_back(1000 * n + 100 * c + 10 * h + w);
  // NCHW -> NHWC: the dense NHWC copy's element k is (n, h, w, c) in that order.
  auto to_nhwc = cuda::nhwc_order(cuda::dense_layout(dims));
  std::vector<int> nhwc;
  for (int64_t k = 0; k < 24; ++k) nhwc.push_back(nchw[static_cast<size_t>(offset_of(k, to_nhwc))]);
  std::vector<int> expected;
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 2; ++w)
        for (int c = 0; c < 3; ++c) expected.push_back(1000 * n + 100 * c + 10 * h + w);
  EXPECT_EQ(nhwc, expected);
  // NHWC -> NCHW through the channels-last tensor's logical layout: the original back.
  cuda::GpuTensor t{DType::kFloat32, dims, nullptr, 0, true};
  auto back = cuda::logical_layout(t, dims);
  std::vector<int> round_trip;
  for (int64_t k = 0; k < 24; ++k) round_trip.push_back(nhwc[static_cast<size_t>(offset_of(k, back))]);
  EXPECT_EQ(round_trip, nchw);
  // A channels-last [1, 3, 2, 2] read over [2, 3, 2, 2]: the batch broadcast (stride 0), the rest NHWC's.
  cuda::GpuTensor one{DType::kFloat32, {1, 3, 2, 2}, nullptr, 0, true};
  auto l = cuda::logical_layout(one, dims);
  EXPECT_EQ(std::vector<int64_t>(l.strides, l.strides + 4), (std::vector<int64_t>{0, 1, 6, 3}));
  // A binary op walked in an NHWC output's order: an NCHW bias [3, 1, 1] follows the channel, innermost.
  auto bias = cuda::nhwc_order(cuda::broadcast_layout({3, 1, 1}, dims));
  EXPECT_EQ(std::vector<int64_t>(bias.dims, bias.dims + 4), (std::vector<int64_t>{2, 2, 2, 3}));
  EXPECT_EQ(std::vector<int64_t>(bias.strides, bias.strides + 4), (std::vector<int64_t>{0, 0, 0, 1}));
  EXPECT_THROW(cuda::logical_layout(t, {2, 4, 2, 2}), Error);
}

// x -> Conv -> Relu -> InstanceNormalization (reads NCHW) -> Add(relu's output) -> GlobalAveragePool -> Flatten -> y in
// a channels-last run: x to NHWC for the convolution, the Relu's output to NCHW for the normalization, its output back
// to NHWC for the Add; the pooled [1, 4, 1, 1] is the same bytes either way, so nothing converts after it.
TEST(CudaStorage, AChannelsLastRunConvertsOnlyAroundKernelsThatReadNchw) {
  ModelBuilder b;
  b.input("x", {1, 3, 8, 8}).weight("w", {4, 3, 3, 3}).weight("s", {4}).weight("t", {4});
  set_ints(b.node("Conv", {"x", "w"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"}, "relu");
  b.node("InstanceNormalization", {"r", "s", "t"}, {"n"}, "norm");
  b.node("Add", {"n", "r"}, {"a"}, "add");
  b.node("GlobalAveragePool", {"a"}, {"g"}, "pool");
  b.node("Flatten", {"g"}, {"y"}, "flatten");
  b.output("y");
  auto result = analyze_file(b.save("channels_last"));
  const auto& g = result.model.graph;
  auto kernels = kernels_of(g);
  for (auto storage : {DType::kFloat32, DType::kFloat16}) {
    auto plan = cuda::plan_storage(g, kernels, storage, true);
    auto held_nhwc = [&](const char* name) {
      return plan.value_channels_last[static_cast<size_t>(value_named(g, name))];
    };
    EXPECT_FALSE(held_nhwc("x"));
    EXPECT_TRUE(held_nhwc("c"));
    EXPECT_TRUE(held_nhwc("r"));
    EXPECT_FALSE(held_nhwc("n"));
    EXPECT_TRUE(held_nhwc("a"));
    EXPECT_FALSE(held_nhwc("g"));  // [1, 4, 1, 1]
    EXPECT_FALSE(held_nhwc("w"));  // the convolution reorders its own weight
    // (node, input, to channels-last), the layout conversions in node order
    std::vector<std::tuple<std::string, size_t, bool>> expected{
        {"conv", 0, true}, {"norm", 0, false}, {"add", 0, true}};
    std::vector<std::tuple<std::string, size_t, bool>> got;
    for (const auto& c : plan.conversions)
      if (c.relayout) got.emplace_back(g.nodes[c.node].name, c.input, c.to_channels_last);
    EXPECT_EQ(got, expected) << graph::dtype_name(storage);
    EXPECT_EQ(plan.output_relayouts, 0);
    EXPECT_EQ(plan.relayouts_per_run(), 3);
    EXPECT_EQ(plan.nchw_kernels, (std::map<std::string, int>{{"InstanceNormalization", 1}}));
    EXPECT_EQ(plan.layout_summary(),
              "channels-last: 4-D activations held NHWC between ops, 3 layout conversion(s) per run (2 to NHWC, 1 to "
              "NCHW, 0 output(s) back to NCHW); kernels that read NCHW: InstanceNormalization (1)");
    if (storage == DType::kFloat16) {  // x changes type and layout in one conversion
      ASSERT_FALSE(plan.conversions.empty());
      EXPECT_TRUE(plan.conversions[0].retype && plan.conversions[0].relayout);
    } else {
      EXPECT_EQ(plan.summary(), "");
      EXPECT_EQ(plan.per_run(), 0);
    }
  }
  auto nchw = cuda::plan_storage(g, kernels, DType::kFloat32, false);
  EXPECT_TRUE(nchw.conversions.empty());
  EXPECT_EQ(nchw.layout_summary(), "");
}

// The bundled CNNs in a channels-last run: every convolution's output is held NHWC, and what reads NCHW is movement
// at the network's end (the Flatten or Reshape before a classifier, YOLO's head), never a layer of the body.
TEST(CudaStorage, TheBundledCnnsRunChannelsLastFromTheirInputOn) {
  const std::set<std::string> movement{"Flatten", "Reshape", "Transpose", "Resize", "Slice", "Split", "Gather"};
  for (const char* name : {"resnet", "mobilenet_v2", "densenet", "googlenet", "alexnet", "vgg", "yolo"}) {
    auto prepared = prepared_executor_model(name);
    for (bool optimized : {false, true}) {
      graph::Graph eager_graph = prepared.analysis.model.graph;
      auto rewritten = cuda::gpu_optimized_graph(prepared.analysis.model, exec::Precision::kFp32);
      const auto& g = optimized ? rewritten.graph : eager_graph;
      auto plan = cuda::plan_storage(g, kernels_of(g), DType::kFloat32, true);
      int convs = 0;
      for (const auto& node : g.nodes) {
        if (node.op_type != "Conv") continue;
        const auto& v = g.value(node.outputs[0]);
        if (!cuda::layout_differs(graph::known_dims(v.shape))) continue;
        ++convs;
        EXPECT_TRUE(plan.value_channels_last[static_cast<size_t>(node.outputs[0])]) << name << " " << node.name;
      }
      EXPECT_GT(convs, 0) << name;
      for (const auto& [op, count] : plan.nchw_kernels)
        EXPECT_TRUE(movement.count(op)) << name << ": " << plan.layout_summary();
    }
  }
}

}  // namespace
}  // namespace ridge::test
