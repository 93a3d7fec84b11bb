// Where a GPU run keeps its activations in 16 bits (exec/cuda/storage_plan.h), checked without a GPU: which runs do,
// the conversions a graph's kernels need (by hand on a small graph), and that the bundled CNNs, optimized as the GPU
// runs them, convert nothing but their input and output, with the kernel table the executor uses.
#include <gtest/gtest.h>

#include "exec/cuda/interpreter.h"
#include "exec/cuda/storage_plan.h"
#include "exec/node_plan.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/paths.h"

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

// The bundled models optimized as the GPU runs them: in fp16 and bf16 every CNN's activations stay 16-bit from its
// input's conversion to its output's, and the transformers convert only around the ops named here.
TEST(CudaStorage, TheBundledModelsRunInSixteenBitsEndToEnd) {
  for (const char* name :
       {"resnet", "mobilenet_v2", "densenet", "googlenet", "alexnet", "vgg", "yolo", "vit", "bert", "gpt2"}) {
    auto dir = source_path(std::string("tests/data/executor/") + name);
    analysis::Request request;
    request.model_path = dir + "/model.onnx";
    auto prepared = exec::prepare(request, dir + "/test_data_set_0");
    auto optimized = cuda::gpu_optimized_graph(prepared.analysis.model);
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

}  // namespace
}  // namespace ridge::test
