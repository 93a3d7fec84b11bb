// The GPU executor on a GPU (scripts/gpu-check.sh; not part of the CPU-only CI run): the bundled small
// models' outputs against PyTorch's (as the CPU executor is checked), every cuDNN algorithm's outputs
// against each other, the CUDA-graph replay against eager, and the timing against the wall clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "exec/attention_fusion.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "exec/product_views.h"
#include "support/attention_patterns.h"
#include "support/attention_reference.h"
#include "support/backend_node_tests.h"
#include "support/einsum_reference.h"
#include "support/loop_models.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/paths.h"
#include "support/random_weights_fixtures.h"
#include "support/tensor_compare.h"
#include "util/error.h"

extern "C" ridge::exec::Engine* ridge_cuda_engine();

namespace ridge::test {
namespace {

// scripted_loop: a TorchScript Loop holding an If and a Loop, which the GPU runs rewritten
// (exec/control_flow_rewrite.h); scripted_list: the same loop collecting a Python list (ONNX's sequence ops, rewritten
// into a Concat once the loop is unrolled).
const std::vector<std::string> kModels{"resnet",  "mobilenet_v2", "densenet",      "googlenet",
                                       "alexnet", "vgg",          "yolo",          "vit",
                                       "bert",    "gpt2",         "scripted_loop", "scripted_list"};
const std::vector<std::string> kConvModels{"resnet", "mobilenet_v2", "densenet", "googlenet", "alexnet", "vgg", "yolo"};

std::string data_dir(const std::string& name) { return source_path("tests/data/executor/" + name); }

exec::Prepared prepared(const std::string& name) {
  analysis::Request request;
  request.model_path = data_dir(name) + "/model.onnx";
  return exec::prepare(request, data_dir(name) + "/test_data_set_0");
}

exec::ExecOptions gpu_options() {
  exec::ExecOptions o;
  o.device = exec::Backend::kCuda;
  return o;
}

// The first difference from PyTorch's output ("" if none).
std::string compare_with_pytorch(const std::string& name, const exec::RunOutput& out, double rtol, double atol) {
  if (out.random_weights) return "ran with random weights";
  return compare_outputs(out.outputs, data_dir(name) + "/test_data_set_0", rtol, atol);
}

TEST(GpuExecutor, Fp32MatchesPyTorch) {
  auto& engine = *ridge_cuda_engine();
  for (const auto& name : kModels) {
    auto p = prepared(name);
    auto out = engine.run(p.analysis.model, p.inputs, gpu_options());
    EXPECT_EQ(compare_with_pytorch(name, out, 1e-3, 1e-4), "") << name;
  }
}

TEST(GpuExecutor, Tf32AndHalfStayWithinTheirPrecision) {
  auto& engine = *ridge_cuda_engine();
  for (auto precision : {exec::Precision::kTf32, exec::Precision::kFp16, exec::Precision::kBf16}) {
    auto options = gpu_options();
    options.precision = precision;
    for (const auto& name : kConvModels) {
      auto p = prepared(name);
      auto out = engine.run(p.analysis.model, p.inputs, options);
      double tolerance = precision == exec::Precision::kBf16 ? 5e-2 : 1e-2;
      EXPECT_EQ(compare_with_pytorch(name, out, tolerance, tolerance), "") << name << " " << exec::name(precision);
    }
  }
}

TEST(GpuExecutor, EveryConvolutionAlgorithmGivesTheSameOutputs) {
  auto& engine = *ridge_cuda_engine();
  for (const auto& name : kConvModels) {
    auto p = prepared(name);
    for (const auto& algorithm : exec::cudnn_conv_algo_names()) {
      auto options = gpu_options();
      options.cudnn_conv_algo = exec::parse_cudnn_conv_algo(algorithm);
      auto out = engine.run(p.analysis.model, p.inputs, options);
      // FFT and Winograd round differently from direct products.
      EXPECT_EQ(compare_with_pytorch(name, out, 2e-3, 2e-4), "") << name << " " << algorithm;
    }
  }
  // Optimized mode too: a named algorithm cuDNN refuses for a fused layer (ReLU, with a residual) gives way to the
  // heuristic's choice in the fused call's steps as in a plain convolution, and the epilogue kernel's layers alike.
  for (const char* name : {"resnet", "mobilenet_v2"}) {
    auto p = prepared(name);
    for (const auto& algorithm : exec::cudnn_conv_algo_names()) {
      auto options = gpu_options();
      options.mode = exec::Mode::kOptimized;
      options.cudnn_conv_algo = exec::parse_cudnn_conv_algo(algorithm);
      auto out = engine.run(p.analysis.model, p.inputs, options);
      EXPECT_EQ(compare_with_pytorch(name, out, 2e-3, 2e-4), "") << name << " optimized " << algorithm;
    }
  }
}

// --conv-algo heuristic runs each convolution through cuDNN's graph API with a plan built once (conv_graph.h),
// legacy-heuristic through cudnnConvolutionForward: the profile names the graph API's engines ("engine-N...") for every
// convolution of the bundled CNNs, in every precision, and no note says a layer fell back to the legacy call.
TEST(GpuExecutor, TheHeuristicRunsEveryConvolutionOnAGraphPlan) {
  auto& engine = *ridge_cuda_engine();
  for (auto precision : {exec::Precision::kFp32, exec::Precision::kTf32, exec::Precision::kFp16}) {
    for (const auto& name : kConvModels) {
      auto p = prepared(name);
      exec::BenchOptions bench;
      bench.exec = gpu_options();
      bench.exec.precision = precision;
      bench.exec.profile_nodes = true;
      bench.fixed_iterations = 3;
      auto run = engine.bench(p.analysis.model, p.inputs, bench);
      int convs = 0, on_plans = 0;
      for (const auto& n : run.nodes) {
        if (n.op_type != "Conv") continue;
        ++convs;
        on_plans += n.algorithm.rfind("engine-", 0) == 0;
      }
      EXPECT_GT(convs, 0) << name;
      EXPECT_EQ(on_plans, convs) << name << " " << exec::name(precision);
      for (const auto& note : run.notes)
        EXPECT_EQ(note.find("graph API"), std::string::npos) << name << " " << exec::name(precision) << ": " << note;
      bench.exec.cudnn_conv_algo = exec::CudnnConvAlgo::kLegacyHeuristic;
      auto legacy = engine.bench(p.analysis.model, p.inputs, bench);
      for (const auto& n : legacy.nodes) {
        if (n.op_type == "Conv") {
          EXPECT_EQ(n.algorithm.rfind("engine-", 0), std::string::npos) << name;
        }
      }
    }
  }
}

// Optimized mode (exec/optimized_graph.h: ReLU and residual Adds fused into cuDNN's convolution in fp32 and tf32,
// BatchNorms folded, other epilogues in one kernel over the output) computes what PyTorch does, within
// each precision's tolerance, on every model; ResNet's run says what it fused, runs fewer nodes than eager, and its
// profile names the fused layers ("+add+relu"); ViT's fuses its products' biases, MobileNetV2's its clips.
TEST(GpuExecutor, OptimizedModeMatchesPyTorch) {
  auto& engine = *ridge_cuda_engine();
  // fp16 and bf16 keep activations in 16 bits between ops here (exec/cuda/storage_plan.h), as a half() model does.
  for (auto precision :
       {exec::Precision::kFp32, exec::Precision::kTf32, exec::Precision::kFp16, exec::Precision::kBf16}) {
    auto options = gpu_options();
    options.mode = exec::Mode::kOptimized;
    options.precision = precision;
    double tolerance = precision == exec::Precision::kFp32 ? 1e-3 : (precision == exec::Precision::kBf16 ? 5e-2 : 1e-2);
    for (const auto& name : kModels) {
      auto p = prepared(name);
      auto out = engine.run(p.analysis.model, p.inputs, options);
      // 16-bit activations round every op's output (a half() model's way): the absolute floor is the relative one,
      // as in Tf32AndHalfStayWithinTheirPrecision; fp32 and tf32 keep fp32 activations and a tenth of it.
      bool sixteen = precision == exec::Precision::kFp16 || precision == exec::Precision::kBf16;
      EXPECT_EQ(compare_with_pytorch(name, out, tolerance, sixteen ? tolerance : tolerance * 0.1), "")
          << name << " " << exec::name(precision);
    }
  }
  auto p = prepared("resnet");
  exec::BenchOptions bench;
  bench.exec = gpu_options();
  bench.exec.profile_nodes = true;
  bench.fixed_iterations = 5;
  auto eager = engine.bench(p.analysis.model, p.inputs, bench);
  bench.exec.mode = exec::Mode::kOptimized;
  auto optimized = engine.bench(p.analysis.model, p.inputs, bench);
  EXPECT_LT(optimized.executed_nodes, eager.executed_nodes);
  bool says = false, fused_layer = false;
  for (const auto& note : optimized.notes)
    says = says || note.find("activations fused into layers") != std::string::npos;
  for (const auto& n : optimized.nodes) fused_layer = fused_layer || n.algorithm.find("+add+relu") != std::string::npos;
  EXPECT_TRUE(says);
  EXPECT_TRUE(fused_layer);
  // The transformer's products take their biases and GELUs (matmul.cpp's epilogue), in fewer nodes than eager.
  auto vit = prepared("vit");
  bench.exec.mode = exec::Mode::kEager;
  auto vit_eager = engine.bench(vit.analysis.model, vit.inputs, bench);
  bench.exec.mode = exec::Mode::kOptimized;
  auto vit_optimized = engine.bench(vit.analysis.model, vit.inputs, bench);
  EXPECT_LT(vit_optimized.executed_nodes, vit_eager.executed_nodes);
  bool biases = false;
  for (const auto& note : vit_optimized.notes)
    biases = biases || (note.find("bias adds fused into matrix products") != std::string::npos &&
                        note.find(" 0 bias adds") == std::string::npos);
  EXPECT_TRUE(biases);
  // Its attention reads its heads and writes its context through strides (exec/product_views.h), in both layers.
  bool in_place = false;
  for (const auto& note : vit_optimized.notes)
    in_place = in_place || note.find("8 transposes and 2 scalings read or written by matrix products in place") !=
                               std::string::npos;
  EXPECT_TRUE(in_place);
  // In fp16 the activations stay 16-bit from the image's conversion to the output's, and the run says so.
  bench.exec.precision = exec::Precision::kFp16;
  auto half = engine.bench(p.analysis.model, p.inputs, bench);
  bool sixteen = false;
  for (const auto& note : half.notes)
    sixteen = sixteen || note.find("activations kept in fp16 between ops: 2 conversion(s) per run") == 0;
  EXPECT_TRUE(sixteen);
  bench.exec.precision = exec::Precision::kFp32;
  // MobileNetV2's ReLU6 (a clip) joins its convolutions through the epilogue kernel, in fp16 as in fp32.
  auto mobilenet = prepared("mobilenet_v2");
  for (auto precision : {exec::Precision::kFp32, exec::Precision::kFp16}) {
    bench.exec.precision = precision;
    auto run = engine.bench(mobilenet.analysis.model, mobilenet.inputs, bench);
    bool clipped = false;
    for (const auto& n : run.nodes) clipped = clipped || n.algorithm.find("+clip") != std::string::npos;
    EXPECT_TRUE(clipped) << exec::name(precision);
  }
}

// --memory-format channels-last (exec/cuda/storage_plan.h): the CNNs' 4-D activations held NHWC between convolutions,
// pooling, normalization, activations, arithmetic, concatenation, padding and resizing, in eager, CUDA-graph and
// optimized mode (fp16 in 16 bits too), compute what PyTorch does; ResNet's run converts only its input.
TEST(GpuExecutor, ChannelsLastMatchesPyTorch) {
  auto& engine = *ridge_cuda_engine();
  struct Case {
    exec::Mode mode;
    exec::Precision precision;
    double tolerance;
  };
  for (const auto& c : {Case{exec::Mode::kEager, exec::Precision::kFp32, 1e-3},
                        Case{exec::Mode::kCudaGraph, exec::Precision::kTf32, 1e-2},
                        Case{exec::Mode::kOptimized, exec::Precision::kFp32, 1e-3},
                        Case{exec::Mode::kOptimized, exec::Precision::kFp16, 1e-2}}) {
    auto options = gpu_options();
    options.memory_format = exec::MemoryFormat::kChannelsLast;
    options.mode = c.mode;
    options.precision = c.precision;
    for (const auto& name : kConvModels) {
      auto p = prepared(name);
      auto out = engine.run(p.analysis.model, p.inputs, options);
      EXPECT_EQ(compare_with_pytorch(name, out, c.tolerance, c.tolerance), "")
          << name << " " << exec::name(c.mode) << " " << exec::name(c.precision);
    }
  }
  auto p = prepared("resnet");
  exec::BenchOptions bench;
  bench.exec = gpu_options();
  bench.exec.memory_format = exec::MemoryFormat::kChannelsLast;
  bench.fixed_iterations = 3;
  auto run = engine.bench(p.analysis.model, p.inputs, bench);
  bool says = false;
  for (const auto& note : run.notes)
    says = says || note.find("channels-last: 4-D activations held NHWC between ops, 1 layout conversion(s)") == 0;
  EXPECT_TRUE(says);
}

// The ONNX project's node tests whose names contain one of `parts`, run on the GPU against its reference outputs; the
// number checked (tests with fp32 data only).
int check_node_tests(const std::vector<std::string>& parts, bool expanded = true) {
  namespace fs = std::filesystem;
  auto& engine = *ridge_cuda_engine();
  fs::path root = fs::path(onnx_testdata()) / "node";
  int checked = 0;
  if (!fs::exists(root)) return checked;
  for (const auto& entry : fs::directory_iterator(root)) {
    auto name = entry.path().filename().string();
    bool wanted = false;
    for (const auto& part : parts) wanted = wanted || name.find(part) != std::string::npos;
    if (!wanted || (!expanded && name.find("_expanded") != std::string::npos)) continue;
    analysis::Request request;
    request.model_path = (entry.path() / "model.onnx").string();
    auto data = entry.path() / "test_data_set_0";
    auto p = exec::prepare(request, data.string());
    if (p.inputs.empty() || p.inputs[0].dtype != graph::DType::kFloat32) continue;
    exec::RunOutput out;
    try {
      out = engine.run(p.analysis.model, p.inputs, gpu_options());
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.what();
      continue;
    }
    for (size_t i = 0; i < p.analysis.model.graph.outputs.size(); ++i) {
      auto want = read_expected((data / ("output_" + std::to_string(i) + ".pb")).string());
      EXPECT_TRUE(want) << name << " output " << i;
      if (want) {
        EXPECT_EQ(compare_tensor(out.outputs.at(i), *want, 1e-3, 1e-5), "") << name << " output " << i;
      }
    }
    ++checked;
  }
  return checked;
}

// RNN, GRU and LSTM (recurrent.cpp) against the ONNX project's node tests (both layouts, initial biases, peepholes,
// sequence lengths) and the bundled 2-layer LSTM against PyTorch, fp32 and tf32.
TEST(GpuExecutor, RecurrentLayersMatchOnnxAndPyTorch) {
  auto& engine = *ridge_cuda_engine();
  int checked = check_node_tests({"lstm", "gru", "rnn"});
  EXPECT_GE(checked, 12);
  auto lstm = prepared("lstm");
  for (auto precision : {exec::Precision::kFp32, exec::Precision::kTf32}) {
    auto options = gpu_options();
    options.precision = precision;
    auto out = engine.run(lstm.analysis.model, lstm.inputs, options);
    double tolerance = precision == exec::Precision::kFp32 ? 1e-3 : 1e-2;
    EXPECT_EQ(compare_with_pytorch("lstm", out, tolerance, tolerance * 0.1), "") << exec::name(precision);
  }
}

// Every ONNX node test whose ops the GPU executor has, as the CPU executor runs them (support/backend_node_tests.h):
// the reference outputs within rtol 1e-3; a kernel's refusal of a type it does not take (fp32-only kernels, casts it
// lacks) counts as skipped.
TEST(GpuExecutor, BackendNodeTestsMatchOnnxReference) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(onnx_testdata()) / "node";
  if (!fs::exists(root)) GTEST_SKIP() << "libonnx-testdata is not installed";
  auto tally = run_backend_node_tests(root.string(), *ridge_cuda_engine(), gpu_options(), [](const std::string& why) {
    return why.find("takes fp32") != std::string::npos || why.find("no GPU cast") != std::string::npos ||
           why.find("must be int32") != std::string::npos || why.find("must be int64") != std::string::npos;
  });
  std::cout << "GPU backend node tests: " << tally.pass << " pass, " << tally.fail << " fail, " << tally.skip
            << " skipped\n"
            << tally.failures;
  EXPECT_GT(tally.pass, 0);  // not yet run on a GPU: set the floor to the first run's count
  EXPECT_EQ(tally.fail, 0) << tally.failures;
}

// ReduceSum ... ArgMin (reduce.cpp) against the ONNX project's node tests: every axis form, keepdims, negative axes,
// select_last_index.
TEST(GpuExecutor, ReductionsMatchOnnxsNodeTests) {
  EXPECT_GE(check_node_tests({"test_reduce_", "test_argmax", "test_argmin"}), 90);
}

// GatherElements, ScatterElements, Scatter, GatherND, ScatterND, TopK (indexing.cpp) and MeanVarianceNormalization
// (reduce.cpp) against the ONNX project's node tests with fp32 data: negative and duplicate indices, reductions add and
// mul, batch_dims (CumSum's tests are fp64: BackendNodeTestsMatchOnnxReference runs them).
TEST(GpuExecutor, IndexOpsAndGroupNormalizationsMatchOnnxsNodeTests) {
  EXPECT_GE(check_node_tests({"test_gather_elements", "test_scatter", "test_gathernd", "test_mvn", "test_top_k"}), 18);
}

// QuantizeLinear and DynamicQuantizeLinear (quantization.cpp; the latter's range by the reduction kernel, and its
// expanded function body on the other kernels), OneHot with float indices and Hardmax on every axis (indexing.cpp)
// against the node tests with fp32 inputs (DequantizeLinear's uint8 ones: BackendNodeTestsMatchOnnxReference).
TEST(GpuExecutor, QuantizationOneHotAndHardmaxMatchOnnxsNodeTests) {
  EXPECT_GE(check_node_tests({"quantizelinear", "test_onehot", "test_hardmax"}), 17);
}

// MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv (integer_products.cpp) on the node tests, exactly (their
// inputs are 8-bit: check_node_tests leaves them out), and the CPU executor's bytes on a per-row and per-column case.
TEST(GpuExecutor, IntegerProductsMatchOnnxsNodeTestsExactly) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& t : node_tests({"test_matmulinteger", "test_qlinearmatmul", "test_basic_convinteger",
                                   "test_convinteger", "test_qlinearconv"})) {
    auto out = ridge_cuda_engine()->run(t.prepared.analysis.model, t.inputs(), gpu_options());
    auto want = t.expected();
    ASSERT_TRUE(want) << t.name;
    EXPECT_EQ(compare_tensor(out.outputs.at(0), *want, 0, 0), "") << t.name;
    ++checked;
  }
  EXPECT_EQ(checked, 7);
  ModelBuilder b(13);
  b.input("a", {int64_t{5}, int64_t{7}}, ::onnx::TensorProto::UINT8)
      .input("b", {int64_t{7}, int64_t{3}}, ::onnx::TensorProto::INT8)
      .input("az", {int64_t{5}}, ::onnx::TensorProto::UINT8)
      .input("bz", {int64_t{3}}, ::onnx::TensorProto::INT8)
      .output("y");
  b.node("MatMulInteger", {"a", "b", "az", "bz"}, {"y"}, "product");
  auto r = analyze_file(b.save("gpu_matmul_integer"));
  auto bytes = [](const std::string& name, graph::DType type, std::vector<int64_t> dims, int salt) {
    int64_t n = 1;
    for (auto d : dims) n *= d;
    exec::HostTensor t{name, type, dims, std::vector<uint8_t>(static_cast<size_t>(n))};
    for (int64_t i = 0; i < n; ++i) t.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>((i * 37 + salt * 101) % 256);
    return t;
  };
  std::vector<exec::HostTensor> inputs{
      bytes("a", graph::DType::kUInt8, {5, 7}, 1), bytes("b", graph::DType::kInt8, {7, 3}, 2),
      bytes("az", graph::DType::kUInt8, {5}, 3), bytes("bz", graph::DType::kInt8, {3}, 4)};
  auto cpu = exec::load_engine().run(r.model, inputs, {});
  auto gpu = ridge_cuda_engine()->run(r.model, inputs, gpu_options());
  EXPECT_EQ(gpu.outputs.at(0).dtype, graph::DType::kInt32);
  EXPECT_EQ(gpu.outputs.at(0).bytes, cpu.outputs.at(0).bytes);
}

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (loss.cpp) against their fp32 node tests (their function
// bodies, `_expanded`, run other kernels: BackendNodeTestsMatchOnnxReference).
TEST(GpuExecutor, LossesMatchOnnxsNodeTests) { EXPECT_EQ(check_node_tests({"test_nllloss_", "test_sce_"}, false), 52); }

// NonMaxSuppression (nms_kernels.h: CUB's segmented sort, a block per batch and class) against its 9 node tests.
TEST(GpuExecutor, NonMaxSuppressionMatchesOnnxsNodeTests) {
  EXPECT_EQ(check_node_tests({"test_nonmaxsuppression"}), 9);
}

// GridSample (grid_sample_kernels.h) against its 8 node tests: every mode, padding and alignment among them.
TEST(GpuExecutor, GridSampleMatchesOnnxsNodeTests) { EXPECT_EQ(check_node_tests({"test_gridsample"}), 8); }

// Einsum (matmul.cpp, einsum_plan.h) in every form the host-side plan is held to, against its definition: the strided
// copies, the reduction of an operand's own labels, cuBLAS's batched product, the reorder.
TEST(GpuExecutor, EinsumComputesItsDefinitionInEveryForm) {
  auto& engine = *ridge_cuda_engine();
  for (const auto& f : test::einsum_forms()) {
    test::ModelBuilder b(12);
    std::vector<std::string> names;
    std::vector<exec::HostTensor> inputs;
    std::vector<std::vector<float>> operands;
    for (size_t i = 0; i < f.dims.size(); ++i) {
      names.push_back("x" + std::to_string(i));
      b.input(names.back(), {f.dims[i].begin(), f.dims[i].end()});
      int64_t n = 1;
      for (auto d : f.dims[i]) n *= d;
      operands.push_back(test::einsum_operand(n, static_cast<int>(i)));
      inputs.push_back(test::float_tensor(names[i], f.dims[i], operands.back()));
    }
    b.output("y");
    test::set_string(b.node("Einsum", names, {"y"}, "einsum"), "equation", f.equation);
    analysis::Request request;
    request.model_path = b.save("gpu_einsum");
    auto p = exec::prepare_again(exec::prepare(request, "").analysis.model, request, inputs);
    auto got = test::host_values(engine.run(p.analysis.model, p.inputs, gpu_options()).outputs.at(0));
    EXPECT_EQ(test::compare_with_nan(got, test::einsum_by_definition(f.equation, f.dims, operands), 1e-4, 1e-5), "")
        << f.equation;
  }
}

// ONNX's Attention (attention_kernels.cu) in every variant the CPU executor is held to, against ONNX's reference
// semantics in plain loops: the shared-memory tiles, the warp shuffles of a row's thread group, masks and causal rows.
TEST(GpuExecutor, AttentionFollowsOnnxsReferenceInEveryVariant) {
  auto& engine = *ridge_cuda_engine();
  for (const auto& c : test::attention_cases()) {
    analysis::Request request;
    request.model_path = test::attention_model(c);
    auto inputs = test::attention_inputs(c);
    auto p = exec::prepare_again(exec::prepare(request, "").analysis.model, request, inputs);
    auto got = test::host_values(engine.run(p.analysis.model, p.inputs, gpu_options()).outputs.at(0));
    EXPECT_EQ(test::compare_with_nan(got, test::attention_reference(c, inputs), 1e-4, 1e-4), "") << c.label;
  }
}

// Optimized mode's fused attention (exec/attention_fusion.h) in every exported form, against the pattern computed by
// its definition on the host (the CPU executor is not carried to the GPU machine; tests/exec/test_attention_fusion.cpp
// holds the definition to it); in tf32 the same graph keeps its products (no fusion) and agrees within tf32's rounding.
TEST(GpuExecutor, FusedAttentionComputesWhatTheExportedGraphDoes) {
  auto& engine = *ridge_cuda_engine();
  for (const auto& c : test::attention_pattern_cases()) {
    analysis::Request request;
    request.model_path = c.model;
    auto p = exec::prepare_again(exec::prepare(request, "").analysis.model, request, c.inputs);
    auto g = p.analysis.model.graph;
    exec::absorb_product_views(g, "", [](const exec::ProductLayout&) { return true; });
    exec::fuse_attention(g, p.analysis.model.default_opset(), "", [](const exec::AttentionPattern&) { return true; });
    ASSERT_EQ(g.nodes.size(), 1u) << c.label;
    auto dims = [&](graph::ValueId id) { return graph::known_dims(g.value(id).shape); };
    const auto& node = g.nodes[0];
    std::optional<std::vector<int64_t>> mask_dims;
    if (node.input(3) != graph::kNoValue) mask_dims = dims(node.input(3));
    auto pattern = exec::attention_pattern(node, dims(node.inputs[0]), dims(node.inputs[1]), dims(node.inputs[2]),
                                           mask_dims, dims(node.outputs[0]));
    auto want = test::fused_attention_by_definition(pattern, c.inputs[0], c.inputs[1], c.inputs[2],
                                                    c.inputs.size() > 3 ? &c.inputs[3] : nullptr);
    for (auto precision : {exec::Precision::kFp32, exec::Precision::kTf32}) {
      exec::BenchOptions bench;
      bench.exec = gpu_options();
      bench.exec.mode = exec::Mode::kOptimized;
      bench.exec.precision = precision;
      bench.fixed_iterations = 2;
      auto result = engine.bench(p.analysis.model, p.inputs, bench);
      bool fused = false;
      for (const auto& note : result.notes) fused = fused || note.find("1 attention blocks") != std::string::npos;
      EXPECT_EQ(fused, precision == exec::Precision::kFp32) << c.label;
      auto got = test::host_values(engine.run(p.analysis.model, p.inputs, bench.exec).outputs.at(0));
      double tolerance = precision == exec::Precision::kFp32 ? 1e-4 : 1e-2;
      EXPECT_EQ(test::compare_with_nan(got, want, tolerance, tolerance), "") << c.label << " " << exec::name(precision);
    }
  }
}

TEST(GpuExecutor, BenchTimesAgreeWithTheWallClockAndCudaGraphsReplayTheSameWork) {
  auto& engine = *ridge_cuda_engine();
  auto p = prepared("resnet");
  for (auto mode : {exec::Mode::kEager, exec::Mode::kCudaGraph}) {
    exec::BenchOptions options;
    options.exec = gpu_options();
    options.exec.mode = mode;
    options.exec.profile_nodes = true;
    options.fixed_iterations = 20;
    auto start = std::chrono::steady_clock::now();
    auto result = engine.bench(p.analysis.model, p.inputs, options);
    double wall_ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e3;
    ASSERT_EQ(result.latency_ms.samples, 20);
    EXPECT_GT(result.latency_ms.min, 0);
    // 20 timed runs (plus warm-up and the profile) cannot take less wall time than their event times.
    EXPECT_LT(result.latency_ms.mean * 20, wall_ms);
    // The events between a node's markers sum to no more than the whole run's (allow 5% for event jitter).
    EXPECT_LT(result.node_sum_ms, result.profiled_run_ms * 1.05);
    EXPECT_GT(result.node_sum_ms, 0);
    bool conv_with_algorithm = false;
    for (const auto& n : result.nodes)
      if (n.op_type == "Conv" && !n.algorithm.empty() && n.workspace_bytes >= 0) conv_with_algorithm = true;
    EXPECT_TRUE(conv_with_algorithm);
    // The allocator's figures: the weights and a run's activations are in the peak, all of it reserved.
    EXPECT_GT(result.device_memory.peak_bytes, result.device_memory.weights_bytes);
    EXPECT_GT(result.device_memory.weights_bytes, 0);
    EXPECT_GE(result.device_memory.reserved_bytes, 0);
  }
}

TEST(GpuExecutor, AGpuThatDoesNotExistIsRefused) {
  auto& engine = *ridge_cuda_engine();
  auto p = prepared("alexnet");
  auto options = gpu_options();
  options.gpu = 1000;
  try {
    engine.run(p.analysis.model, p.inputs, options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--gpu 1000"), std::string::npos) << e.what();
  }
}

// The same seed draws the same random weights and inputs as the CPU engine (exec/host_values' rule and stream;
// tests/exec/test_executor.cpp checks the CPU side the same way).
// Unique without an axis (CUB's sort and scan): ONNX's node tests, and the CPU executor's outputs on a million ids with
// many repeats, sorted and in order of first appearance.
TEST(GpuExecutor, UniqueMatchesOnnxAndTheCpuExecutor) {
  EXPECT_EQ(check_node_tests({"test_unique_sorted_without_axis", "test_unique_not_sorted_without_axis"}), 2);
  const int64_t n = 1 << 20;
  std::vector<int64_t> ids(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ids[static_cast<size_t>(i)] = (i * 7919) % 100003 - 5000;
  auto x = int64_tensor("x", {n}, ids);
  for (bool sorted : {true, false}) {
    ModelBuilder b;
    b.input("x", {n}, ::onnx::TensorProto::INT64).output("y").output("first").output("inverse").output("counts");
    set_int(b.node("Unique", {"x"}, {"y", "first", "inverse", "counts"}, "unique"), "sorted", sorted);
    auto r = analyze_file(b.save("gpu_unique"));
    auto want = exec::load_engine().run(r.model, {x}, {}).outputs;
    auto got = ridge_cuda_engine()->run(r.model, {x}, gpu_options()).outputs;
    ASSERT_EQ(got.size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(got[i].dims, want.at(i).dims) << sorted << " output " << i;
      EXPECT_TRUE(got[i].bytes == want.at(i).bytes) << sorted << " output " << i;
    }
  }
}

// Values shape inference does not keep (more than 65536 elements): a Constant's tensor uploaded as a weight is, and
// ConstantOfShape filled on the device, bit for bit, in int64 (past 2^53), fp16 and fp32 (no value: zeros).
TEST(GpuExecutor, LargeConstantsAreUploadedAndConstantOfShapeFills) {
  const int64_t rows = 300, cols = 301, n = rows * cols;
  ModelBuilder b;
  b.input("x", {rows, cols}).output("sum").output("ints").output("halves").output("zeros");
  std::vector<float> table(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) table[static_cast<size_t>(i)] = static_cast<float>(i % 1013) * 0.25f;
  set_tensor(b.node("Constant", {}, {"table"}, "table"), "value", ::onnx::TensorProto::FLOAT, {rows, cols},
             std::string(reinterpret_cast<const char*>(table.data()), table.size() * 4));
  b.node("Add", {"x", "table"}, {"sum"}, "add");
  b.int64_constant("shape", {2}, {rows, cols});
  const int64_t big = (int64_t{1} << 60) + 3;  // not a double
  set_tensor(b.node("ConstantOfShape", {"shape"}, {"ints"}, "ints"), "value", ::onnx::TensorProto::INT64, {1},
             std::string(reinterpret_cast<const char*>(&big), 8));
  const uint16_t half_bits = 0x3e00;  // 1.5
  set_tensor(b.node("ConstantOfShape", {"shape"}, {"halves"}, "halves"), "value", ::onnx::TensorProto::FLOAT16, {1},
             std::string(reinterpret_cast<const char*>(&half_bits), 2));
  b.node("ConstantOfShape", {"shape"}, {"zeros"}, "zeros");
  auto r = analyze_file(b.save("gpu_large_constants"));
  exec::HostTensor x{"x", graph::DType::kFloat32, {rows, cols}, std::vector<uint8_t>(static_cast<size_t>(n) * 4)};
  std::vector<float> xs(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) xs[static_cast<size_t>(i)] = static_cast<float>(i % 7) - 3.f;
  std::memcpy(x.bytes.data(), xs.data(), x.bytes.size());
  {
    auto out = ridge_cuda_engine()->run(r.model, {x}, gpu_options());
    ASSERT_EQ(out.outputs.size(), 4u);
    auto sum = floats(out.outputs[0]);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(sum[static_cast<size_t>(i)], xs[static_cast<size_t>(i)] + table[static_cast<size_t>(i)]) << i;
    // Every element the fill's bytes.
    auto filled_with = [&](const exec::HostTensor& t, graph::DType dtype, const void* element, size_t size) {
      if (t.dtype != dtype || t.bytes.size() != static_cast<size_t>(n) * size) return false;
      for (int64_t i = 0; i < n; ++i)
        if (std::memcmp(t.bytes.data() + i * static_cast<int64_t>(size), element, size) != 0) return false;
      return true;
    };
    EXPECT_TRUE(filled_with(out.outputs[1], graph::DType::kInt64, &big, 8));
    EXPECT_TRUE(filled_with(out.outputs[2], graph::DType::kFloat16, &half_bits, 2));
    auto zeros = floats(out.outputs[3]);
    EXPECT_EQ(std::count(zeros.begin(), zeros.end(), 0.f), n);
  }
}

// An If whose condition shape inference knows runs as its taken branch, computing what the CPU executor's If does,
// and its profile has the If's row (the branch's nodes summed into it), as the analysis costs it.
TEST(GpuExecutor, AnInlinedIfComputesItsBranchAndIsTimedAsTheIf) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}}).output("y");
  b.int64_constant("zero", {}, {0}).int64_constant("two", {}, {2});
  b.node("Shape", {"x"}, {"s"}, "shape");
  b.node("Gather", {"s", "zero"}, {"rows"}, "rows");
  b.node("Equal", {"rows", "two"}, {"cond"}, "equal");
  auto& node = b.node("If", {"cond"}, {"picked"}, "branch");
  for (const char* name : {"then_branch", "else_branch"}) {
    bool then = std::string(name) == "then_branch";
    ::onnx::GraphProto g;
    g.set_name(name);
    auto* n = g.add_node();
    n->set_op_type(then ? "Relu" : "Neg");
    n->set_name(std::string(name) + "_op");
    n->add_input("x");
    n->add_output(std::string(name) + "_out");
    auto* twice = g.add_node();
    twice->set_op_type("Add");
    twice->set_name(std::string(name) + "_twice");
    twice->add_input(std::string(name) + "_out");
    twice->add_input(std::string(name) + "_out");
    twice->add_output(std::string(name) + "_sum");
    g.add_output()->set_name(std::string(name) + "_sum");
    auto* attr = node.add_attribute();
    attr->set_name(name);
    attr->set_type(::onnx::AttributeProto::GRAPH);
    *attr->mutable_g() = g;
  }
  b.node("Sigmoid", {"picked"}, {"y"}, "after");
  auto r = analyze_file(b.save("gpu_inlined_if"));
  auto x = float_tensor("x", {2, 3}, {-1.5f, -0.5f, 0.f, 0.5f, 1.f, 2.5f});
  auto cpu = exec::load_engine().run(r.model, {x}, {});
  auto gpu = ridge_cuda_engine()->run(r.model, {x}, gpu_options());
  ASSERT_EQ(gpu.outputs.size(), 1u);
  auto want = floats(cpu.outputs[0]), got = floats(gpu.outputs[0]);
  ASSERT_EQ(got.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
  EXPECT_NEAR(got[5], 1 / (1 + std::exp(-5.f)), 1e-6);  // sigmoid(relu(2.5) * 2)
  exec::BenchOptions bench;
  bench.exec = gpu_options();
  bench.exec.profile_nodes = true;
  bench.fixed_iterations = 5;
  auto run = ridge_cuda_engine()->bench(r.model, {x}, bench);
  std::vector<std::string> names;
  for (const auto& t : run.nodes) names.push_back(t.name + ":" + t.op_type);
  EXPECT_EQ(names, (std::vector<std::string>{"branch:If", "after:Sigmoid"}));
  bool noted = false;
  for (const auto& note : run.notes)
    noted = noted || note.find("times the branch's nodes as the If") != std::string::npos;
  EXPECT_TRUE(noted);
}

// A Loop of a known trip count and a Scan run as their iterations (exec/loop_unrolling.h): the CPU executor's Loop and
// Scan results (a product per iteration, a Slice at the iteration number; a scan input read from its end, an output
// stacked in reverse), eager and as a CUDA graph, and a profile's one row per loop.
TEST(GpuExecutor, UnrolledLoopsComputeWhatTheCpusLoopsDo) {
  auto loop = analyze_file(recurrent_loop(5));
  auto x = float_tensor("x", {2, 3}, {-1.5f, -0.5f, 0.f, 0.5f, 1.f, 2.5f});
  auto scan = analyze_file(reversed_scan());
  auto s0 = float_tensor("s0", {2}, {1.f, -1.f});
  auto xs = float_tensor("xs", {4, 2}, {0.5f, -1.f, 2.f, 0.25f, -0.75f, 1.5f, 3.f, -2.f});
  auto ys = float_tensor("ys", {2, 4}, {0.5f, 1.5f, -2.f, 3.f, 0.25f, -0.75f, 1.f, 2.f});
  auto nested = analyze_file(nested_control_loop());  // an If on the iteration number and a loop in the body
  struct Case {
    const analysis::Result* model;
    std::vector<exec::HostTensor> inputs;
    const char* row;
  };
  for (const auto& [model, inputs, row] :
       {Case{&loop, {x}, "loop:Loop"}, Case{&scan, {s0, xs, ys}, "scan:Scan"}, Case{&nested, {x}, "outer:Loop"}}) {
    SCOPED_TRACE(row);
    auto cpu = exec::load_engine().run(model->model, inputs, {});
    for (auto mode : {exec::Mode::kEager, exec::Mode::kCudaGraph}) {
      auto options = gpu_options();
      options.mode = mode;
      auto gpu = ridge_cuda_engine()->run(model->model, inputs, options);
      ASSERT_EQ(gpu.outputs.size(), cpu.outputs.size());
      for (size_t i = 0; i < cpu.outputs.size(); ++i) {
        EXPECT_EQ(gpu.outputs[i].dims, cpu.outputs[i].dims) << i;
        auto want = floats(cpu.outputs[i]), got = floats(gpu.outputs[i]);
        ASSERT_EQ(got.size(), want.size());
        for (size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-5 + 1e-5 * std::abs(want[k])) << i;
      }
    }
    exec::BenchOptions bench;
    bench.exec = gpu_options();
    bench.exec.profile_nodes = true;
    bench.fixed_iterations = 5;
    auto run = ridge_cuda_engine()->bench(model->model, inputs, bench);
    std::vector<std::string> names;
    for (const auto& t : run.nodes) names.push_back(t.name + ":" + t.op_type);
    EXPECT_EQ(names, (std::vector<std::string>{row}));
    bool noted = false;
    for (const auto& note : run.notes) noted = noted || note.find("ran as its iterations' nodes") != std::string::npos;
    EXPECT_TRUE(noted);
  }
}

TEST(GpuExecutor, RandomWeightsAndInputsComeFromTheSharedRule) {
  auto p = random_weights::random_matmul("random_matmul_gpu");
  auto options = gpu_options();
  options.seed = 7;
  auto out = ridge_cuda_engine()->run(p.analysis.model, {}, options);
  ASSERT_TRUE(out.random_weights);
  random_weights::expect_product(floats(out.outputs.at(0)), random_weights::expected_product(p, 7));
}

// A sequence as a model's input is refused by name on the GPU as on the CPU (the GPU would otherwise draw a scalar for
// it: a sequence has no dims).
TEST(GpuExecutor, ASequenceAsAModelsInputIsRefused) {
  auto model = std::filesystem::path(onnx_testdata()) / "node" / "test_sequence_insert_at_back" / "model.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "libonnx-testdata is not installed";
  auto r = analyze_file(model.string());
  try {
    ridge_cuda_engine()->run(r.model, {}, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the model's input 'sequence' is a sequence"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ridge::test
