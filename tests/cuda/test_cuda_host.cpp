// The GPU module's host side, checked on a machine without a GPU: algorithm names against cuDNN's
// enum, convolution windows from ONNX attributes against cuDNN's own output-size arithmetic (cuDNN's
// descriptor calls need no device) and ridge's shape inference, the kernel table against the
// bundled models' ops, broadcasting layouts, and the one-line errors when no GPU is there.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "exec/cuda/conv_graph.h"
#include "exec/cuda/conv_plan.h"
#include "exec/cuda/descriptors.h"
#include "exec/cuda/epilogue.h"
#include "exec/cuda/interpreter.h"
#include "exec/cuda/layout.h"
#include "exec/cuda/memory.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/resize_plan.h"
#include "exec/node_plan.h"
#include "exec/op_table.h"
#include "exec/optimized_graph.h"
#include "exec/options.h"
#include "report/bench_report.h"
#include "report/printer.h"
#include "support/loop_models.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "sys/cuda_module.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using exec::CudnnConvAlgo;
namespace cuda = exec::cuda;

TEST(CudaAlgorithms, NamesMapToCudnnsEnumValues) {
  // cudnnConvolutionFwdAlgo_t, as cudnn_cnn.h numbers it.
  const std::vector<std::pair<std::string, cudnnConvolutionFwdAlgo_t>> expected{
      {"implicit-gemm", CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
      {"implicit-precomp-gemm", CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
      {"gemm", CUDNN_CONVOLUTION_FWD_ALGO_GEMM},
      {"direct", CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
      {"fft", CUDNN_CONVOLUTION_FWD_ALGO_FFT},
      {"fft-tiling", CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING},
      {"winograd", CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD},
      {"winograd-nonfused", CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED}};
  for (const auto& [name, value] : expected) {
    auto algorithm = exec::parse_cudnn_conv_algo(name);
    EXPECT_EQ(cuda::to_cudnn(algorithm), value) << name;
    EXPECT_EQ(exec::name(cuda::from_cudnn(value)), name);
    EXPECT_TRUE(cuda::is_fixed(algorithm));
  }
  EXPECT_EQ(cuda::fixed_algorithms().size(), expected.size());
  EXPECT_EQ(exec::parse_cudnn_conv_algo("auto"), CudnnConvAlgo::kHeuristic);
  EXPECT_FALSE(cuda::is_fixed(CudnnConvAlgo::kBenchmark));
  EXPECT_FALSE(cuda::is_fixed(CudnnConvAlgo::kLegacyHeuristic));
  EXPECT_EQ(exec::parse_cudnn_conv_algo("legacy-heuristic"), CudnnConvAlgo::kLegacyHeuristic);
  EXPECT_THROW(cuda::to_cudnn(CudnnConvAlgo::kLegacyHeuristic), Error);
  EXPECT_THROW(cuda::to_cudnn(CudnnConvAlgo::kHeuristic), Error);
  EXPECT_THROW(cuda::from_cudnn(static_cast<cudnnConvolutionFwdAlgo_t>(8)), Error);
  EXPECT_THROW(exec::parse_cudnn_conv_algo("fastest"), Error);
  // fp32 keeps cuDNN off the tensor cores (no silent TF32); tf32 and 16-bit allow them; none lets cuDNN
  // convert fp32 data to fp16.
  EXPECT_EQ(cuda::math_type(exec::Precision::kFp32), CUDNN_FMA_MATH);
  EXPECT_EQ(cuda::math_type(exec::Precision::kTf32), CUDNN_DEFAULT_MATH);
  EXPECT_EQ(cuda::math_type(exec::Precision::kFp16), CUDNN_TENSOR_OP_MATH);
  EXPECT_EQ(cuda::math_type(exec::Precision::kBf16), CUDNN_TENSOR_OP_MATH);
}

TEST(CudaAlgorithms, EachDeviceTakesItsOwnOptions) {
  using exec::Backend;
  EXPECT_NO_THROW(exec::check_device_options(Backend::kCuda, exec::Precision::kTf32, "fft-tiling"));
  EXPECT_NO_THROW(exec::check_device_options(Backend::kCpu, exec::Precision::kBf16, "winograd"));
  EXPECT_NO_THROW(exec::check_device_options(Backend::kCuda, exec::Precision::kFp32, "all", exec::Mode::kCudaGraph));
  EXPECT_THROW(exec::check_device_options(Backend::kCpu, exec::Precision::kTf32, ""), Error);
  EXPECT_THROW(exec::check_device_options(Backend::kCpu, exec::Precision::kFp16, ""), Error);
  EXPECT_THROW(exec::check_device_options(Backend::kCpu, exec::Precision::kFp32, "implicit-gemm"), Error);
  EXPECT_THROW(exec::check_device_options(Backend::kCpu, exec::Precision::kFp32, "", exec::Mode::kCudaGraph), Error);
  EXPECT_NO_THROW(exec::check_device_options(Backend::kCuda, exec::Precision::kFp32, "", exec::Mode::kOptimized));
  EXPECT_EQ(exec::conv_algo_names(Backend::kCuda).size(), 11u);
  EXPECT_EQ(exec::mode_names(Backend::kCuda), (std::vector<std::string>{"eager", "cuda-graph", "optimized"}));
  EXPECT_EQ(exec::mode_names(Backend::kCpu), (std::vector<std::string>{"eager", "optimized"}));
  // --mode both: the device's two.
  EXPECT_EQ(exec::both_mode_names(Backend::kCuda), (std::vector<std::string>{"eager", "cuda-graph"}));
  EXPECT_EQ(exec::both_mode_names(Backend::kCpu), (std::vector<std::string>{"eager", "optimized"}));
  // --conv-algo takes every device's names once: the CPU's five and cuDNN's seven others.
  EXPECT_EQ(exec::all_conv_algo_names().size(), 12u);
}

TEST(CudaAlgorithms, ATrainingStepRunsUnrewritten) {
  using exec::Mode;
  EXPECT_NO_THROW(exec::check_training_options(Mode::kEager));
  EXPECT_NO_THROW(exec::check_training_options(Mode::kCudaGraph));
  EXPECT_THROW(exec::check_training_options(Mode::kOptimized), Error);
}

const graph::Node& only_node(const analysis::Result& r) { return r.model.graph.nodes.front(); }

struct ConvCase {
  std::vector<int64_t> input, weight, pads, strides, dilations;
  int64_t group = 1;
  std::string auto_pad = "NOTSET";
};

analysis::Result conv_model(const ConvCase& c) {
  ModelBuilder b;
  std::vector<DimSpec> dims(c.input.begin(), c.input.end());
  b.input("x", dims).weight("w", c.weight).output("y");
  auto& node = b.node("Conv", {"x", "w"}, {"y"}, "conv");
  if (!c.pads.empty()) set_ints(node, "pads", c.pads);
  if (!c.strides.empty()) set_ints(node, "strides", c.strides);
  if (!c.dilations.empty()) set_ints(node, "dilations", c.dilations);
  if (c.group != 1) set_int(node, "group", c.group);
  if (c.auto_pad != "NOTSET") set_string(node, "auto_pad", c.auto_pad);
  return analyze_file(b.save("cuda_conv"));
}

TEST(CudaConvGeometry, CudnnsOutputDimsAgreeWithShapeInference) {
  const std::vector<ConvCase> cases{
      {{1, 3, 224, 224}, {64, 3, 7, 7}, {3, 3, 3, 3}, {2, 2}, {}},            // ResNet's stem
      {{2, 32, 56, 56}, {32, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {}, 32},         // depthwise
      {{1, 16, 30, 30}, {8, 16, 3, 3}, {2, 2, 2, 2}, {1, 1}, {2, 2}},         // dilated
      {{1, 8, 17, 17}, {8, 4, 5, 5}, {}, {3, 3}, {}, 2},                      // grouped, strided, no pads
      {{1, 4, 20, 20}, {6, 4, 4, 4}, {}, {2, 2}, {}, 1, "SAME_UPPER"},        // even kernel: asymmetric
      {{1, 4, 9, 9}, {6, 4, 2, 2}, {0, 1, 1, 0}, {1, 1}, {}},                 // asymmetric by hand
      {{1, 2, 8, 8, 8}, {4, 2, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {1, 2, 1}, {}},  // 3-D
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    auto r = conv_model(c);
    const auto& node = only_node(r);
    const auto& g = r.model.graph;
    auto y = graph::known_dims(g.value(node.outputs[0]).shape);
    auto geometry = cuda::conv_geometry(node, c.input, c.weight);
    // The input cuDNN sees: padded where ONNX's pads are asymmetric.
    auto in = c.input;
    for (size_t d = 0; d + 2 < in.size(); ++d) in[d + 2] += geometry.copy_pad_begin[d] + geometry.copy_pad_end[d];
    auto x = cuda::tensor_descriptor(in, graph::DType::kFloat32);
    auto w = cuda::filter_descriptor(c.weight, graph::DType::kFloat32);
    cudnnConvolutionDescriptor_t conv = nullptr;
    ASSERT_EQ(cudnnCreateConvolutionDescriptor(&conv), CUDNN_STATUS_SUCCESS);
    cuda::ConvolutionDescriptor owned(conv);
    std::vector<int> pads, strides, dilations;
    for (size_t d = 0; d < geometry.kernel.size(); ++d) {
      pads.push_back(static_cast<int>(geometry.cudnn_pads[d]));
      strides.push_back(static_cast<int>(geometry.strides[d]));
      dilations.push_back(static_cast<int>(geometry.dilations[d]));
    }
    ASSERT_EQ(cudnnSetConvolutionNdDescriptor(conv, static_cast<int>(pads.size()), pads.data(), strides.data(),
                                              dilations.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnSetConvolutionGroupCount(conv, static_cast<int>(geometry.group)), CUDNN_STATUS_SUCCESS);
    std::vector<int> out(in.size());
    ASSERT_EQ(cudnnGetConvolutionNdForwardOutputDim(conv, x, w, static_cast<int>(out.size()), out.data()),
              CUDNN_STATUS_SUCCESS)
        << "case " << i;
    EXPECT_EQ(std::vector<int64_t>(out.begin(), out.end()), y) << "case " << i;
  }
}

TEST(CudaConvGeometry, AsymmetricPadsGoToAPaddedCopy) {
  ConvCase same{{1, 4, 20, 20}, {6, 4, 4, 4}, {}, {2, 2}, {}, 1, "SAME_UPPER"};
  auto r = conv_model(same);
  auto g = cuda::conv_geometry(only_node(r), same.input, same.weight);
  // out = ceil(20 / 2) = 10; total pad = (10 - 1) * 2 + 4 - 20 = 2: one before, one after.
  EXPECT_EQ(g.pads_begin, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(g.pads_end, (std::vector<int64_t>{1, 1}));
  EXPECT_FALSE(g.needs_padded_copy());
  EXPECT_EQ(g.cudnn_pads, (std::vector<int64_t>{1, 1}));

  ConvCase odd{{1, 4, 9, 9}, {6, 4, 2, 2}, {}, {1, 1}, {}, 1, "SAME_UPPER"};
  auto r2 = conv_model(odd);
  auto g2 = cuda::conv_geometry(only_node(r2), odd.input, odd.weight);
  // total = 8 + 2 - 9 = 1: SAME_UPPER puts it at the end, which cuDNN cannot express.
  EXPECT_EQ(g2.pads_begin, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(g2.pads_end, (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(g2.needs_padded_copy());
  EXPECT_EQ(g2.cudnn_pads, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(g2.copy_pad_end, (std::vector<int64_t>{1, 1}));

  // Channels that do not match the weight and group are named.
  try {
    cuda::conv_geometry(only_node(r2), {1, 5, 9, 9}, odd.weight);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input channels"), std::string::npos) << e.what();
  }
}

// The graph API's description of a convolution (conv_graph.h), finalized by cuDNN without a GPU: the same windows as
// the legacy descriptors above, a 1-D convolution as (N, C, L, 1), and an output of the wrong size refused in a line.
TEST(CudaConvGraph, TheGraphApiDescribesEveryWindowTheLegacyOneDoes) {
  const std::vector<ConvCase> cases{
      {{1, 3, 224, 224}, {64, 3, 7, 7}, {3, 3, 3, 3}, {2, 2}, {}},            // ResNet's stem
      {{2, 32, 56, 56}, {32, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {}, 32},         // depthwise
      {{1, 16, 30, 30}, {8, 16, 3, 3}, {2, 2, 2, 2}, {1, 1}, {2, 2}},         // dilated
      {{1, 8, 17, 17}, {8, 4, 5, 5}, {}, {3, 3}, {}, 2},                      // grouped, strided, no pads
      {{1, 4, 9, 9}, {6, 4, 2, 2}, {0, 1, 1, 0}, {1, 1}, {}},                 // asymmetric: a padded copy
      {{1, 2, 8, 8, 8}, {4, 2, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {1, 2, 1}, {}},  // 3-D
      {{2, 6, 40}, {4, 3, 5}, {2, 2}, {2}, {}, 2},                            // 1-D, grouped
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    auto r = conv_model(c);
    const auto& node = only_node(r);
    auto y = graph::known_dims(r.model.graph.value(node.outputs[0]).shape);
    auto geometry = cuda::conv_geometry(node, c.input, c.weight);
    auto in = c.input;
    for (size_t d = 0; d + 2 < in.size(); ++d) in[d + 2] += geometry.copy_pad_begin[d] + geometry.copy_pad_end[d];
    auto shape = cuda::graph_conv_shape(geometry, in, c.weight, y);
    size_t rank = std::max<size_t>(4, c.input.size());
    EXPECT_EQ(shape.x.size(), rank) << "case " << i;
    EXPECT_EQ(shape.y.size(), rank) << "case " << i;
    EXPECT_EQ(shape.strides.size(), rank - 2) << "case " << i;
    EXPECT_EQ(shape.pre_pads, shape.post_pads) << "case " << i;  // asymmetric pads went to the copy
    EXPECT_NO_THROW(cuda::convolution_operation(shape, graph::DType::kFloat32)) << "case " << i;
    EXPECT_NO_THROW(cuda::convolution_operation(shape, graph::DType::kFloat16)) << "case " << i;
    if (c.input.size() == 4) {  // channels-last: the same convolution over NHWC strides (x, w and y)
      auto nhwc = shape;
      nhwc.channels_last = true;
      EXPECT_NO_THROW(cuda::convolution_operation(nhwc, graph::DType::kFloat32)) << "case " << i;
      EXPECT_NO_THROW(cuda::convolution_operation(nhwc, graph::DType::kFloat16)) << "case " << i;
    }
    // One output row too many is not this convolution.
    auto wrong = shape;
    wrong.y[2] += 1;
    try {
      cuda::convolution_operation(wrong, graph::DType::kFloat32);
      ADD_FAILURE() << "case " << i << ": no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the convolution operation"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
  // The 1-D case, by hand: (2, 6, 40) as (2, 6, 40, 1); out = (40 + 4 - 5) / 2 + 1 = 20.
  auto r = conv_model(cases.back());
  auto geometry = cuda::conv_geometry(only_node(r), cases.back().input, cases.back().weight);
  auto shape = cuda::graph_conv_shape(geometry, {2, 6, 40}, {4, 3, 5}, {2, 4, 20});
  EXPECT_EQ(shape.x, (std::vector<int64_t>{2, 6, 40, 1}));
  EXPECT_EQ(shape.w, (std::vector<int64_t>{4, 3, 5, 1}));
  EXPECT_EQ(shape.pre_pads, (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(shape.strides, (std::vector<int64_t>{2, 1}));
  EXPECT_THROW(cuda::graph_conv_shape(geometry, {2, 6, 40, 1}, {4, 3, 5}, {2, 4, 20}), Error);
  EXPECT_EQ(cuda::dense_strides({2, 3, 4, 5}), (std::vector<int64_t>{60, 20, 5, 1}));
}

TEST(CudaConvGraph, EnginesKeepThePrecisionsMathAndAreNamedByWhatTheyDo) {
  using N = std::vector<cudnnBackendNumericalNote_t>;
  const N plain{}, tensor_core{CUDNN_NUMERICAL_NOTE_TENSOR_CORE},
      converted{CUDNN_NUMERICAL_NOTE_TENSOR_CORE, CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS},
      half_sum{CUDNN_NUMERICAL_NOTE_TENSOR_CORE, CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION},
      winograd{CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4},
      fft{CUDNN_NUMERICAL_NOTE_FFT, CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC};
  using P = exec::Precision;
  // fp32: no TF32, no fp16 inputs; tf32: tensor cores but no fp16 inputs; 16-bit: anything with an fp32 reduction.
  EXPECT_TRUE(cuda::engine_allowed(plain, P::kFp32));
  EXPECT_TRUE(cuda::engine_allowed(winograd, P::kFp32));
  EXPECT_TRUE(cuda::engine_allowed(fft, P::kFp32));
  EXPECT_FALSE(cuda::engine_allowed(tensor_core, P::kFp32));
  EXPECT_FALSE(cuda::engine_allowed(converted, P::kFp32));
  EXPECT_TRUE(cuda::engine_allowed(tensor_core, P::kTf32));
  EXPECT_FALSE(cuda::engine_allowed(converted, P::kTf32));
  EXPECT_TRUE(cuda::engine_allowed(tensor_core, P::kFp16));
  EXPECT_TRUE(cuda::engine_allowed(converted, P::kBf16));
  for (auto p : {P::kFp32, P::kTf32, P::kFp16, P::kBf16}) EXPECT_FALSE(cuda::engine_allowed(half_sum, p));
  EXPECT_EQ(cuda::engine_name(12, plain), "engine-12");
  EXPECT_EQ(cuda::engine_name(3, winograd), "engine-3-winograd");
  EXPECT_EQ(cuda::engine_name(41, {CUDNN_NUMERICAL_NOTE_FFT, CUDNN_NUMERICAL_NOTE_TENSOR_CORE}),
            "engine-41-fft-tensor-core");
  // The plan is declared for 16-byte aligned tensors; other addresses run the legacy call.
  alignas(16) static float buffer[8];
  EXPECT_TRUE(cuda::ConvGraphPlan::accepts(buffer, buffer + 4, buffer));
  EXPECT_FALSE(cuda::ConvGraphPlan::accepts(buffer + 1, buffer, buffer));
}

TEST(CudaKernels, TheBundledModelsOpsHaveGpuKernelsOrAreNamed) {
  // Every op of the bundled models runs or folds, the LSTM's recurrent layers included (recurrent.cpp).
  for (const auto* name : {"resnet50", "mobilenet_v2", "densenet121", "googlenet", "alexnet", "vgg16", "yolo_style",
                           "bert_base", "vit_b_16", "gpt2_tiny", "lstm_2layer"}) {
    shape::Bindings bindings;
    bindings.batch = 2;
    if (std::string(name) == "bert_base" || std::string(name) == "gpt2_tiny" || std::string(name) == "lstm_2layer")
      bindings.dims["seq"] = 16;
    auto r = analyze_file(model_path(name), bindings);
    auto missing = cuda::missing_kernels(r.model);
    std::string list;
    for (const auto& [op, count] : missing) list += op + " ";
    EXPECT_TRUE(missing.empty()) << name << ": " << list;
  }
  // An op the GPU lacks is named with its count: a Loop (its trip count an input) that doubles x.
  ModelBuilder b;
  b.input("x", {2, 3}).input("trips", {}, ::onnx::TensorProto::INT64).output("y");
  auto& loop = b.node("Loop", {"trips", "", "x"}, {"y"}, "loop");
  ::onnx::GraphProto body;
  body.set_name("body");
  for (const char* name : {"i", "cond_in", "x_in"}) body.add_input()->set_name(name);
  auto* twice = body.add_node();
  twice->set_op_type("Add");
  twice->add_input("x_in");
  twice->add_input("x_in");
  twice->add_output("x_out");
  auto* keep = body.add_node();
  keep->set_op_type("Identity");
  keep->add_input("cond_in");
  keep->add_output("cond_out");
  body.add_output()->set_name("cond_out");
  body.add_output()->set_name("x_out");
  auto* attr = loop.add_attribute();
  attr->set_name("body");
  attr->set_type(::onnx::AttributeProto::GRAPH);
  *attr->mutable_g() = body;
  auto missing = cuda::missing_kernels(analyze_file(b.save("cuda_missing")).model);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing.front().first, "Loop");
  EXPECT_EQ(missing.front().second, 1);
  // A Loop of a known trip count and a Scan run unrolled (exec/loop_unrolling.h): nothing is missing.
  // So does control flow nested in a loop where unrolling makes its If's condition known; where the condition is the
  // run's, each iteration's If stays.
  for (const auto& path : {recurrent_loop(4), reversed_scan(), nested_control_loop()}) {
    auto unrollable = cuda::missing_kernels(analyze_file(path).model);
    EXPECT_TRUE(unrollable.empty()) << path << ": " << unrollable.front().first;
  }
  EXPECT_EQ(cuda::missing_kernels(analyze_file(nested_control_loop(true)).model),
            (std::vector<std::pair<std::string, int>>{{"If", 3}}));
  // PyTorch's own export of such a loop (TorchScript, tools/export_scripted_references.py), its trip counts bound.
  auto scripted =
      analyze_file(source_path("tests/data/executor/scripted_loop/model.onnx"), {.dims = {{"outer", 3}, {"inner", 2}}});
  EXPECT_TRUE(cuda::missing_kernels(scripted.model).empty());
  // And one collecting a Python list: once unrolled, its sequence is a list of known values
  // (exec/sequence_elimination.h).
  auto list =
      analyze_file(source_path("tests/data/executor/scripted_list/model.onnx"), {.dims = {{"outer", 3}, {"inner", 2}}});
  EXPECT_TRUE(cuda::missing_kernels(list.model).empty());
}

// Past shape/context.h's 65536 elements shape inference keeps no value: ConstantOfShape then runs (GPT-2's causal mask
// at 512 tokens, the LSTM's initial state at batch 256, BERT's attention mask at 256 x 512 tokens) and a Constant's
// tensor is uploaded as a weight is; below it both fold. Either way the model runs on the GPU.
TEST(CudaKernels, ValuesTooLargeForShapeInferenceRunOrAreUploaded) {
  struct Point {
    const char* model;
    int64_t batch, seq;
  };
  for (const auto& [name, batch, seq] :
       {Point{"gpt2_tiny", 1, 512}, Point{"lstm_2layer", 256, 64}, Point{"bert_base", 256, 512}}) {
    for (bool large : {false, true}) {
      shape::Bindings bindings;
      bindings.batch = large ? batch : 1;
      bindings.dims["seq"] = large ? seq : 16;
      auto r = analyze_file(model_path(name), bindings);
      int constant_of_shape = 0, folded = 0;
      for (const auto& node : r.model.graph.nodes) {
        if (node.op_type != "ConstantOfShape") continue;
        ++constant_of_shape;
        folded += exec::is_folded_arithmetic(r.model.graph, node);
      }
      ASSERT_GT(constant_of_shape, 0) << name;
      EXPECT_EQ(folded, large ? 0 : constant_of_shape) << name << (large ? " large" : " small");
      auto missing = cuda::missing_kernels(r.model);
      EXPECT_TRUE(missing.empty()) << name << ": " << (missing.empty() ? "" : missing.front().first);
    }
  }
  // A Constant of 300 x 300 (90000 elements, no value kept) added to the input.
  ModelBuilder b;
  b.input("x", {300, 300}).output("y");
  set_tensor(b.node("Constant", {}, {"c"}, "table"), "value", ::onnx::TensorProto::FLOAT, {300, 300},
             std::string(300 * 300 * 4, '\0'));
  b.node("Add", {"x", "c"}, {"y"}, "add");
  auto r = analyze_file(b.save("cuda_large_constant"));
  ASSERT_TRUE(r.model.graph.find("c").has_value());
  EXPECT_EQ(r.model.graph.value(*r.model.graph.find("c")).constant, nullptr);
  EXPECT_TRUE(cuda::missing_kernels(r.model).empty());
}

// An If whose condition shape inference evaluated runs on the GPU as the branch it takes (exec/if_inlining.h); one
// whose condition the run computes is named.
TEST(CudaKernels, AnIfOfKnownConditionRunsAsItsBranch) {
  for (bool known : {true, false}) {
    ModelBuilder b;
    b.input("x", {int64_t{2}, int64_t{3}}).output("y");
    if (known) {
      b.int64_constant("zero", {}, {0}).int64_constant("two", {}, {2});
      b.node("Shape", {"x"}, {"s"}, "shape");
      b.node("Gather", {"s", "zero"}, {"rows"}, "rows");
      b.node("Equal", {"rows", "two"}, {"cond"}, "equal");
    } else {
      b.input("cond", {}, ::onnx::TensorProto::BOOL);
    }
    auto& node = b.node("If", {"cond"}, {"y"}, "branch");
    for (const char* name : {"then_branch", "else_branch"}) {
      ::onnx::GraphProto g;
      g.set_name(name);
      auto* n = g.add_node();
      n->set_op_type(std::string(name) == "then_branch" ? "Relu" : "Neg");
      n->add_input("x");
      n->add_output(std::string(name) + "_out");
      g.add_output()->set_name(std::string(name) + "_out");
      auto* attr = node.add_attribute();
      attr->set_name(name);
      attr->set_type(::onnx::AttributeProto::GRAPH);
      *attr->mutable_g() = g;
    }
    auto missing = cuda::missing_kernels(analyze_file(b.save("cuda_if")).model);
    if (known) {
      EXPECT_TRUE(missing.empty()) << missing.front().first;
    } else {
      ASSERT_EQ(missing.size(), 1u);
      EXPECT_EQ(missing.front().first, "If");
    }
  }
}

// Every activation the optimization plan finds has an epilogue op, and a layer's attributes (as the optimized
// graph writes them, a clip's bounds included) name the same op; an activation the kernel does not know fails.
// docs/gpu.md names every op the CPU executor runs and the GPU executor has no kernel for, and nothing else.
TEST(CudaKernels, TheOpsOnlyTheCpuRunsAreTheOnesDocsGpuMdNames) {
  std::set<std::string> cpu_only;
  const auto& gpu = cuda::KernelRegistry::instance();
  for (auto op : exec::OpRegistry::instance().op_types())
    if (!gpu.find(op)) cpu_only.emplace(op);
  std::ifstream doc(source_path("docs/gpu.md"));
  const std::string lead = "The CPU executor runs these ops and the GPU executor does not: ";
  std::string line;
  std::set<std::string> named;
  while (std::getline(doc, line)) {
    if (line.rfind(lead, 0) != 0) continue;
    std::stringstream list(line.substr(lead.size(), line.find('.') - lead.size()));
    for (std::string op; std::getline(list, op, ',');) named.insert(op.substr(op.find_first_not_of(' ')));
  }
  std::string want;
  for (const auto& op : cpu_only) want += (want.empty() ? "" : ", ") + op;
  EXPECT_EQ(named, cpu_only) << "docs/gpu.md should say: " << lead << want << ".";
}

// The executor's libtorch-free table says which ops the GPU has a kernel for (what `ridge ops` prints without loading
// this module): its kNoGpuKernel bits are exactly the ops this module's table lacks, and every GPU kernel is an op the
// CPU runs too.
TEST(CudaKernels, TheOpTablesGpuBitsAreTheGpusKernels) {
  const auto& gpu = cuda::KernelRegistry::instance();
  for (auto op : exec::OpRegistry::instance().op_types()) {
    const auto* row = exec::find_op(op);
    EXPECT_EQ(gpu.find(op) != nullptr, !row->has(exec::kNoGpuKernel)) << op;
    EXPECT_TRUE(!row->has(exec::kGpuFolds) || row->has(exec::kNoGpuKernel)) << op;
    EXPECT_TRUE(!row->has(exec::kGpuRewrites) || row->has(exec::kNoGpuKernel)) << op;
  }
  for (auto op : gpu.op_types()) EXPECT_NE(exec::find_op(op), nullptr) << op << ": a GPU kernel the CPU lacks";
}

TEST(CudaKernels, ALayersEpilogueComputesEveryActivationThePlanFinds) {
  using exec::FusedActivation;
  using Op = cuda::EpilogueOp;
  const std::vector<std::pair<FusedActivation, Op>> table{
      {FusedActivation::kRelu, Op::kRelu},         {FusedActivation::kClip, Op::kClip},
      {FusedActivation::kSilu, Op::kSilu},         {FusedActivation::kGeluErf, Op::kGeluErf},
      {FusedActivation::kGeluTanh, Op::kGeluTanh}, {FusedActivation::kHardSwish, Op::kHardSwish}};
  auto attribute = [](graph::Node& node, const char* name, graph::Attribute::Kind kind, const std::string& s,
                      double f) {
    graph::Attribute a;
    a.name = name;
    a.kind = kind;
    a.s = s;
    a.f = f;
    node.attributes.push_back(std::move(a));
  };
  for (const auto& [fused, op] : table) {
    EXPECT_EQ(cuda::epilogue_op(fused), op) << exec::name(fused);
    graph::Node layer;
    layer.name = "layer";
    attribute(layer, exec::kActivationAttribute, graph::Attribute::Kind::kString, std::string(exec::name(fused)), 0);
    attribute(layer, exec::kClipMinAttribute, graph::Attribute::Kind::kFloat, "", -1.5);
    attribute(layer, exec::kClipMaxAttribute, graph::Attribute::Kind::kFloat, "", 6);
    auto a = cuda::layer_activation(layer);
    EXPECT_EQ(a.op, op) << exec::name(fused);
    EXPECT_EQ(a.name, exec::name(fused));
    EXPECT_EQ(a.lo, op == Op::kClip ? -1.5f : 0.f);
    EXPECT_EQ(a.hi, op == Op::kClip ? 6.f : 0.f);
  }
  EXPECT_EQ(cuda::epilogue_op(FusedActivation::kNone), Op::kNone);
  graph::Node none;
  EXPECT_EQ(cuda::layer_activation(none).op, Op::kNone);
  EXPECT_EQ(cuda::layer_activation(none).name, "");
  graph::Node unknown;
  unknown.name = "odd";
  attribute(unknown, exec::kActivationAttribute, graph::Attribute::Kind::kString, "gelu", 0);
  EXPECT_THROW((void)cuda::layer_activation(unknown), Error);
}

TEST(CudaKernels, BroadcastLayoutsFollowNumpyRules) {
  auto l = cuda::broadcast_layout({3, 1}, {2, 3, 4});
  ASSERT_EQ(l.rank, 3);
  EXPECT_EQ(l.strides[0], 0);  // missing leading dim
  EXPECT_EQ(l.strides[1], 1);
  EXPECT_EQ(l.strides[2], 0);  // size-1 dim
  auto d = cuda::dense_layout({2, 3, 4});
  EXPECT_EQ(d.strides[0], 12);
  EXPECT_EQ(d.strides[1], 4);
  EXPECT_EQ(d.strides[2], 1);
  auto bias = cuda::broadcast_layout({4}, {2, 3, 4});
  EXPECT_EQ(bias.strides[0], 0);
  EXPECT_EQ(bias.strides[1], 0);
  EXPECT_EQ(bias.strides[2], 1);
  EXPECT_THROW(cuda::broadcast_layout({3}, {2, 4}), Error);
  EXPECT_THROW(cuda::dense_layout(std::vector<int64_t>(9, 1)), Error);
  EXPECT_EQ(cuda::Allocator::rounded(1), 512u);
  EXPECT_EQ(cuda::Allocator::rounded(512), 512u);
  EXPECT_EQ(cuda::Allocator::rounded(513), 1024u);
}

// The offset of output element i read through `in` over `out`'s dims, in 64 bits (the kernels' rule).
int64_t reference_offset(int64_t i, const cuda::Layout& out, const cuda::Layout& in) {
  int64_t offset = 0;
  for (int d = out.rank - 1; d >= 0; --d) {
    offset += (i % out.dims[d]) * in.strides[d];
    i /= out.dims[d];
  }
  return offset;
}

// Simplifying must not change which element any output element reads: every offset is compared with the
// unsimplified walk's.
void expect_same_walk(const cuda::Layout& out, std::vector<cuda::Layout> operands) {
  cuda::Layout o = out;
  auto simplified = operands;
  cuda::simplify(o, simplified.data(), static_cast<int>(simplified.size()));
  int64_t n = 1, m = 1;
  for (int d = 0; d < out.rank; ++d) n *= out.dims[d];
  for (int d = 0; d < o.rank; ++d) m *= o.dims[d];
  ASSERT_EQ(n, m);
  for (size_t k = 0; k < operands.size(); ++k)
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(reference_offset(i, o, simplified[k]), reference_offset(i, out, operands[k]))
          << "operand " << k << " element " << i;
  // The kernels' walks (the same code runs here on the host) give the same offsets, one operand at a time.
  const bool small = cuda::fits_32bit(o, simplified.data(), static_cast<int>(simplified.size()));
  for (size_t k = 0; k < operands.size(); ++k) {
    auto w32 = cuda::walk32<1>(o, &simplified[k]);
    auto w64 = cuda::walk64<1>(o, &simplified[k]);
    for (int64_t i = 0; i < n; ++i) {
      int64_t a[1], b[1];
      w64.at(i, b);
      ASSERT_EQ(b[0], reference_offset(i, out, operands[k])) << "walk64 operand " << k << " element " << i;
      if (!small) continue;
      w32.at(i, a);
      ASSERT_EQ(a[0], b[0]) << "walk32 operand " << k << " element " << i;
    }
  }
  // Rows, where the innermost dim allows them: each row's offsets from the outer walk, then step x index.
  auto rows = cuda::rows_of(o, simplified.data(), static_cast<int>(simplified.size()), 1);
  if (rows.ok) {
    ASSERT_EQ(rows.rows * rows.inner, n);
    for (size_t k = 0; k < operands.size(); ++k) {
      auto w = cuda::walk32<1>(rows.outer, &rows.operands[k]);
      for (int64_t row = 0; row < rows.rows; ++row) {
        int64_t at[1];
        w.at(row, at);
        for (int64_t j = 0; j < rows.inner; ++j)
          ASSERT_EQ(at[0] + rows.step[k] * j, reference_offset(row * rows.inner + j, out, operands[k]))
              << "rows: operand " << k << " row " << row << " element " << j;
      }
    }
  }
}

// The input layout of a permutation of a dense tensor of `dims`: output dim d reads input dim perm[d].
cuda::Layout permuted(const std::vector<int64_t>& dims, const std::vector<int>& perm) {
  auto in = cuda::dense_layout(dims);
  cuda::Layout l;
  l.rank = static_cast<int>(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) {
    l.dims[d] = dims[static_cast<size_t>(perm[d])];
    l.strides[d] = in.strides[perm[d]];
  }
  return l;
}

cuda::Transpose transpose_after_simplify(const std::vector<int64_t>& dims, const std::vector<int>& perm,
                                         int64_t min_side = 16) {
  auto l = permuted(dims, perm);
  cuda::Layout o;
  o.rank = l.rank;
  for (int d = 0; d < l.rank; ++d) o.dims[d] = l.dims[d];
  cuda::simplify(o, &l, 1);
  return cuda::transpose_of(o, l, min_side);
}

// Copies that move the input's contiguous dim are found as batched 2-D transposes after simplification; copies that
// keep it, and thin ones, are not.
TEST(CudaKernels, CopiesThatMoveTheInnermostDimAreTiledTransposes) {
  // NCHW to NHWC: [N, HxW, C] read from [N, C, HxW].
  auto nhwc = transpose_after_simplify({2, 24, 6, 7}, {0, 2, 3, 1});
  ASSERT_TRUE(nhwc.ok);
  EXPECT_EQ(nhwc.batches, 2);
  EXPECT_EQ(nhwc.rows, 42);
  EXPECT_EQ(nhwc.cols, 24);
  EXPECT_EQ(nhwc.batch_stride, 24 * 42);
  // A transformer's key, [B, S, H, D] to [B, H, D, S]: H and D merge into rows of 32.
  auto key = transpose_after_simplify({3, 20, 4, 8}, {0, 2, 3, 1});
  ASSERT_TRUE(key.ok);
  EXPECT_EQ(key.batches, 3);
  EXPECT_EQ(key.rows, 32);
  EXPECT_EQ(key.cols, 20);
  // A plain matrix transpose: no batch.
  auto matrix = transpose_after_simplify({40, 50}, {1, 0});
  ASSERT_TRUE(matrix.ok);
  EXPECT_EQ(matrix.batches, 1);
  EXPECT_EQ(matrix.rows, 50);  // the output is [50, 40]
  EXPECT_EQ(matrix.cols, 40);
  EXPECT_EQ(matrix.batch_stride, 0);
  EXPECT_FALSE(transpose_after_simplify({2, 20, 4, 8}, {0, 2, 1, 3}).ok);   // the head swap keeps D innermost
  EXPECT_FALSE(transpose_after_simplify({2, 3, 16, 16}, {0, 2, 3, 1}).ok);  // three channels: a thin side
  EXPECT_TRUE(transpose_after_simplify({2, 3, 16, 16}, {0, 2, 3, 1}, 3).ok);
  EXPECT_FALSE(transpose_after_simplify({4, 5, 6, 7}, {3, 2, 1, 0}).ok);  // a full reversal is no 2-D transpose
}

TEST(CudaKernels, SimplifiedLayoutsReadTheSameElementsWithLessArithmetic) {
  const std::vector<int64_t> nchw{2, 3, 4, 5};
  auto out = cuda::dense_layout(nchw);
  // Same shape: one flat dim.
  {
    cuda::Layout o = out, ops[2] = {out, out};
    cuda::simplify(o, ops, 2);
    EXPECT_EQ(o.rank, 1);
    EXPECT_EQ(o.dims[0], 120);
    EXPECT_EQ(cuda::access(ops[0]), cuda::Access::kFlat);
    EXPECT_EQ(cuda::access(ops[1]), cuda::Access::kFlat);
  }
  // A per-channel bias: [N, C, HxW] with strides [0, 1, 0].
  {
    auto bias = cuda::broadcast_layout({3, 1, 1}, nchw);
    cuda::Layout o = out, ops[2] = {out, bias};
    cuda::simplify(o, ops, 2);
    ASSERT_EQ(o.rank, 3);
    EXPECT_EQ(o.dims[0], 2);
    EXPECT_EQ(o.dims[1], 3);
    EXPECT_EQ(o.dims[2], 20);
    EXPECT_EQ(ops[1].strides[0], 0);
    EXPECT_EQ(ops[1].strides[1], 1);
    EXPECT_EQ(ops[1].strides[2], 0);
    EXPECT_EQ(cuda::access(ops[1]), cuda::Access::kStrided);
    // As rows: N x C rows of HxW, the input read flat, the bias as one element per row.
    auto rows = cuda::rows_of(o, ops, 2, 16);
    ASSERT_TRUE(rows.ok);
    EXPECT_EQ(rows.rows, 6);
    EXPECT_EQ(rows.inner, 20);
    EXPECT_EQ(rows.step[0], 1);
    EXPECT_EQ(rows.step[1], 0);
    EXPECT_FALSE(cuda::rows_of(o, ops, 2, 21).ok);  // rows shorter than asked for
    expect_same_walk(out, {out, bias});
  }
  // A scalar, and a tensor of ones' dims, are read as element 0.
  {
    auto scalar = cuda::broadcast_layout({}, nchw);
    cuda::Layout o = out, ops[2] = {out, scalar};
    cuda::simplify(o, ops, 2);
    EXPECT_EQ(cuda::access(ops[0]), cuda::Access::kFlat);
    EXPECT_EQ(cuda::access(ops[1]), cuda::Access::kScalar);
    auto one = cuda::dense_layout({1, 1, 1});
    cuda::Layout o1 = one, op1 = one;
    cuda::simplify(o1, &op1, 1);
    EXPECT_EQ(o1.rank, 0);
    EXPECT_EQ(cuda::access(op1), cuda::Access::kScalar);
  }
  // Trailing and leading broadcasts, a transpose (dims 1 and 2 swapped), a reversed walk and a where with three
  // operands keep their walks.
  expect_same_walk(out, {cuda::broadcast_layout({4, 5}, nchw), cuda::broadcast_layout({2, 1, 1, 5}, nchw)});
  cuda::Layout transpose = out;
  transpose.strides[1] = 5;
  transpose.strides[2] = 20;
  expect_same_walk(out, {transpose});
  cuda::Layout reversed = out;
  reversed.strides[3] = -1;
  expect_same_walk(out, {reversed, out});
  {  // a reversed innermost dim is not a row
    cuda::Layout o = out, ops[2] = {reversed, out};
    cuda::simplify(o, ops, 2);
    EXPECT_FALSE(cuda::rows_of(o, ops, 2, 1).ok);
  }
  expect_same_walk(cuda::dense_layout({2, 1, 3, 1, 4}),
                   {cuda::broadcast_layout({1, 1, 3, 1, 1}, {2, 1, 3, 1, 4}), cuda::dense_layout({2, 1, 3, 1, 4}),
                    cuda::broadcast_layout({4}, {2, 1, 3, 1, 4})});
}

TEST(CudaKernels, DividersDivideEveryIndexBelowTwoToThe31Exactly) {
  const uint32_t top = (uint32_t{1} << 31) - 1;
  std::vector<uint32_t> divisors{1,
                                 2,
                                 3,
                                 5,
                                 7,
                                 49,
                                 56,
                                 196,
                                 197,
                                 768,
                                 3072,
                                 50176,
                                 65535,
                                 65536,
                                 65537,
                                 1000003,
                                 top - 1,
                                 top,
                                 uint32_t{1} << 30,
                                 (uint32_t{1} << 30) + 1,
                                 (uint32_t{1} << 30) - 1};
  for (uint32_t shift = 0; shift < 31; ++shift) divisors.push_back(uint32_t{1} << shift);
  std::vector<uint32_t> numerators;
  for (uint32_t n = 0; n < 70000; ++n) numerators.push_back(n);
  uint64_t state = 0x9e3779b97f4a7c15u;  // splitmix-style stream: numerators spread over [0, 2^31)
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    numerators.push_back(static_cast<uint32_t>(state >> 33));
  }
  for (uint32_t d : divisors) {
    cuda::Divider divider(d);
    for (uint32_t n : {top, top - 1, d - 1, d, d + 1, top - top % d, top - top % d - 1})
      if (n <= top) {
        ASSERT_EQ(divider.divide(n), n / d) << n << " / " << d;
      }
    for (uint32_t n : numerators) ASSERT_EQ(divider.divide(n), n / d) << n << " / " << d;
  }
}

TEST(CudaKernels, ThirtyTwoBitIndexingOnlyWhereEveryOffsetFits) {
  const int64_t big = int64_t{1} << 31;
  auto fits = [](const std::vector<int64_t>& dims, const cuda::Layout& operand, int64_t base = 0) {
    auto o = cuda::dense_layout(dims);
    return cuda::fits_32bit(o, &operand, 1, base);
  };
  EXPECT_TRUE(fits({big - 1}, cuda::dense_layout({big - 1})));
  EXPECT_FALSE(fits({big}, cuda::dense_layout({big})));
  // Few elements, far apart: the offsets decide.
  cuda::Layout strided = cuda::dense_layout({2, 2});
  strided.strides[0] = big;
  EXPECT_FALSE(fits({2, 2}, strided));
  strided.strides[0] = -(big / 2);  // reach (2 - 1) x 2^30 + 1
  EXPECT_TRUE(fits({2, 2}, strided));
  EXPECT_FALSE(fits({2, 2}, strided, big - 2));  // the copy's base offset counts
}

TEST(CudaResize, NearestIndicesFollowOnnxsCoordinateModes) {
  using V = std::vector<int64_t>;
  // PyTorch's nearest upsampling (YOLO's exporter): asymmetric, floor.
  EXPECT_EQ(cuda::nearest_indices(4, 8, 2.0, "asymmetric", "floor"), (V{0, 0, 1, 1, 2, 2, 3, 3}));
  // half_pixel, 3 -> 2 (scale 2/3): x_in = (x + 0.5) * 1.5 - 0.5 = 0.25, 1.75 -> 0, 2.
  EXPECT_EQ(cuda::nearest_indices(3, 2, 2.0 / 3.0, "half_pixel", "round_prefer_floor"), (V{0, 2}));
  // align_corners, 3 -> 5: x * 2 / 4 = 0, 0.5, 1, 1.5, 2; halves go down with round_prefer_floor, up with ceil's.
  EXPECT_EQ(cuda::nearest_indices(3, 5, 5.0 / 3.0, "align_corners", "round_prefer_floor"), (V{0, 0, 1, 1, 2}));
  EXPECT_EQ(cuda::nearest_indices(3, 5, 5.0 / 3.0, "align_corners", "round_prefer_ceil"), (V{0, 1, 1, 2, 2}));
  // Downsampling by 2, asymmetric: every other element.
  EXPECT_EQ(cuda::nearest_indices(6, 3, 0.5, "asymmetric", "floor"), (V{0, 2, 4}));
  // tf_half_pixel_for_nn, 2 -> 4 with ceil: (x + 0.5) / 2 = 0.25, 0.75, 1.25, 1.75 -> 1, 1, 2 (clamped to 1), 2 -> 1.
  EXPECT_EQ(cuda::nearest_indices(2, 4, 2.0, "tf_half_pixel_for_nn", "ceil"), (V{1, 1, 1, 1}));
  EXPECT_THROW(cuda::nearest_indices(2, 4, 2.0, "crop_and_resize", "floor"), Error);
  EXPECT_THROW(cuda::nearest_indices(2, 4, 2.0, "asymmetric", "nearest"), Error);
}

TEST(CudaBenchOutput, AGpuRunsMemoryIsInItsJsonAndACpuRunHasNone) {
  exec::BenchResult gpu;
  gpu.mode = "cuda-graph";
  gpu.conv_algo = "implicit-precomp-gemm";
  gpu.latency_ms.samples = 3;
  gpu.latency_ms.mean = 1.5;
  gpu.device_memory = {123456789, 102400000, 4194304, 134217728};
  exec::BenchResult cpu = gpu;
  cpu.device_memory = {};
  std::ostringstream out;
  report::print_json(out, report::bench_document({gpu, cpu}, 10));
  auto doc = nlohmann::json::parse(out.str());
  const auto& memory = doc["runs"][0]["device_memory"];
  EXPECT_EQ(memory["peak_bytes"], 123456789);
  EXPECT_EQ(memory["weights_bytes"], 102400000);
  EXPECT_EQ(memory["workspace_bytes"], 4194304);
  EXPECT_EQ(memory["reserved_bytes"], 134217728);
  EXPECT_EQ(doc["runs"][0]["mode"], "cuda-graph");
  EXPECT_EQ(doc["runs"][0]["conv_algo"], "implicit-precomp-gemm");
  EXPECT_TRUE(!doc["runs"][1].contains("device_memory") || doc["runs"][1]["device_memory"].is_null());
}

}  // namespace
}  // namespace ridge::test
