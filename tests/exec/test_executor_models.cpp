// Whole models on the executor against PyTorch: small versions of every bundled architecture,
// exported with their weights by tools/export_executor_references.py together with the output
// PyTorch computed (tests/data/executor/<name>/). ridge must reproduce it within fp32 tolerance
// eagerly, in optimized mode (folded constants and BatchNorms, fused activations), with every convolution algorithm,
// and in channels-last; bf16 autocast must stay within bf16's precision.
#include <gtest/gtest.h>

#include <filesystem>

#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/paths.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

// scripted_loop: a TorchScript Loop holding an If and a Loop; scripted_list: the same loop collecting a Python list,
// which the exporter writes with ONNX's sequence ops (tools/export_scripted_references.py). decoder_step: a Llama-style
// layer's decode step in opset 24 (RMSNormalization, RotaryEmbedding, TensorScatter into key/value caches, Attention
// over them, a SwiGLU MLP), written node by node, PyTorch computing its outputs (tools/export_decoder_reference.py).
const std::vector<std::string> kModels{"resnet", "mobilenet_v2",  "densenet",      "googlenet",   "alexnet",
                                       "vgg",    "vit",           "bert",          "gpt2",        "lstm",
                                       "yolo",   "scripted_loop", "scripted_list", "decoder_step"};
const std::vector<std::string> kConvModels{"resnet", "mobilenet_v2", "densenet", "googlenet", "alexnet", "vgg", "yolo"};

std::string data_dir(const std::string& name) { return source_path("tests/data/executor/" + name); }

// Runs `name` with `options` and returns the first difference from PyTorch's output ("" if none).
std::string run_and_compare(const std::string& name, const exec::ExecOptions& options, double rtol, double atol,
                            std::vector<std::string>* notes = nullptr) {
  analysis::Request request;
  request.model_path = data_dir(name) + "/model.onnx";
  auto prepared = exec::prepare(request, data_dir(name) + "/test_data_set_0");
  auto& engine = exec::load_engine();
  exec::check_runnable(prepared.analysis.model, engine);
  auto out = engine.run(prepared.analysis.model, prepared.inputs, options);
  if (notes) *notes = out.notes;
  if (out.random_weights) return "ran with random weights";
  return compare_outputs(out.outputs, data_dir(name) + "/test_data_set_0", rtol, atol);
}

TEST(ExecutorModels, EagerMatchesPyTorch) {
  for (const auto& name : kModels) EXPECT_EQ(run_and_compare(name, {}, 1e-4, 1e-5), "") << name;
}

TEST(ExecutorModels, OptimizedMatchesPyTorchAndFoldsWork) {
  exec::ExecOptions options;
  options.mode = exec::Mode::kOptimized;
  for (const auto& name : kModels) {
    std::vector<std::string> notes;
    EXPECT_EQ(run_and_compare(name, options, 1e-4, 1e-5, &notes), "") << name;
    ASSERT_FALSE(notes.empty()) << name;
    EXPECT_NE(notes.front().find("optimized:"), std::string::npos) << name;
  }
  // DenseNet keeps pre-activation BatchNorms the exporter cannot fold; the shape subgraphs of the
  // transformers fold away.
  std::vector<std::string> notes;
  run_and_compare("bert", options, 1e-4, 1e-5, &notes);
  EXPECT_EQ(notes.front().find("optimized: 0 constant"), std::string::npos) << notes.front();
  // Both encoder layers' Erf-form GELU joins its fully connected layer; MobileNetV2's 35 ReLU6
  // (the stem, two per inverted residual block but the first, the last 1x1) join their convolutions.
  EXPECT_NE(notes.front().find("2 activations fused"), std::string::npos) << notes.front();
  run_and_compare("mobilenet_v2", options, 1e-4, 1e-5, &notes);
  EXPECT_NE(notes.front().find("35 activations fused"), std::string::npos) << notes.front();
  // GPT-2's tanh-form GELU, written out in nine nodes by the exporter.
  run_and_compare("gpt2", options, 1e-4, 1e-5, &notes);
  EXPECT_NE(notes.front().find("and 2 activations fused"), std::string::npos) << notes.front();
  // The YOLO-style network's 53 SiLU (x * sigmoid(x)) after its convolutions, and the 8 bottleneck
  // shortcuts added after them.
  run_and_compare("yolo", options, 1e-4, 1e-5, &notes);
  EXPECT_NE(notes.front().find("8 residual adds and 53 activations fused"), std::string::npos) << notes.front();
  // The decode step's Swish (opset 24) is its gate projection's SiLU, and both residuals join their products.
  run_and_compare("decoder_step", options, 1e-4, 1e-5, &notes);
  EXPECT_NE(notes.front().find("2 residual adds and 1 activations fused"), std::string::npos) << notes.front();
}

TEST(ExecutorModels, EveryConvolutionAlgorithmMatchesPyTorch) {
  for (const std::string algorithm : {"direct", "gemm", "fft", "winograd"}) {
    exec::ExecOptions options;
    options.conv_algo = exec::parse_conv_algo(algorithm);
    // FFT convolution rounds differently (sums in the frequency domain): a looser tolerance.
    double rtol = algorithm == "fft" || algorithm == "winograd" ? 1e-3 : 1e-4;
    for (const auto& name : kConvModels)
      EXPECT_EQ(run_and_compare(name, options, rtol, 1e-4), "") << name << " " << algorithm;
  }
}

// Optimized mode with another algorithm: the residual Adds and activations fused into the layers
// are applied with ATen after each convolution instead of by oneDNN.
TEST(ExecutorModels, OptimizedModeWithOtherConvolutionAlgorithmsMatchesPyTorch) {
  for (const std::string algorithm : {"gemm", "winograd"}) {
    exec::ExecOptions options;
    options.mode = exec::Mode::kOptimized;
    options.conv_algo = exec::parse_conv_algo(algorithm);
    for (const std::string name : {"resnet", "mobilenet_v2", "yolo"}) {
      std::vector<std::string> notes;
      EXPECT_EQ(run_and_compare(name, options, algorithm == "winograd" ? 1e-3 : 1e-4, 1e-4, &notes), "")
          << name << " " << algorithm;
      ASSERT_FALSE(notes.empty());
      EXPECT_EQ(notes.front().find("and 0 activations fused"), std::string::npos) << notes.front();
    }
  }
}

TEST(ExecutorModels, ChannelsLastMatchesPyTorch) {
  exec::ExecOptions options;
  options.memory_format = exec::MemoryFormat::kChannelsLast;
  for (const auto& name : kConvModels) EXPECT_EQ(run_and_compare(name, options, 1e-4, 1e-5), "") << name;
}

TEST(ExecutorModels, Bf16AutocastStaysWithinBf16Precision) {
  exec::ExecOptions options;
  options.precision = exec::Precision::kBf16;
  // bf16 keeps 8 bits of mantissa: outputs after a few layers agree to a few percent.
  for (const std::string name : {"resnet", "vgg", "bert"})
    EXPECT_EQ(run_and_compare(name, options, 0.1, 0.05), "") << name;
  // And it really computes in bf16: fp32 tolerance does not hold.
  EXPECT_NE(run_and_compare("vgg", options, 1e-6, 1e-7), "");
}

}  // namespace
}  // namespace ridge::test
