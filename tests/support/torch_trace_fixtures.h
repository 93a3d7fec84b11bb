#pragma once
// What the in-process tests (tests/profile/test_torch_trace.cpp) and the binary-driven tests
// (tests/cli/test_torch_trace.cpp) share.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "onnx/model_reader.h"
#include "profile/torch_trace.h"
#include "roofline/family_calibration.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::torch_trace_fixtures {

using profile::TorchSummary;
using profile::TorchTrace;

inline constexpr double kUs = 1e-6;

inline std::string data(const std::string& name) { return source_path("tests/data/torch_trace/" + name); }

// The real CUDA trace: two passes of torchvision ResNet-18 at batch 8 on an H200, no ProfilerSteps.
inline const char* const kResnet18Trace = "kineto-cuda-resnet18-b8.json";

// A model with torchvision ResNet-18's layers, named and ordered as torch.onnx exports it in eval mode
// (BatchNorm folded into the Conv before it): per pass of the trace, 20 Conv, 17 Relu, 8 Add, MaxPool,
// GlobalAveragePool, Flatten and Gemm. Weights are placeholders: only op types, names and the data flow
// matter to the layer mapping. Saved to a unique temporary file; returns its path.
inline std::string resnet18_model() {
  ModelBuilder b;
  b.input("input", {8, 3, 224, 224});
  int n = 0;
  auto conv = [&](const std::string& scope, const std::string& in) {
    auto w = "w" + std::to_string(n++);
    b.weight(w, {1, 1, 1, 1});
    b.node("Conv", {in, w}, {scope + "/Conv_output_0"}, scope + "/Conv");
    return scope + "/Conv_output_0";
  };
  auto relu = [&](const std::string& name, const std::string& in) {
    b.node("Relu", {in}, {name + "_output_0"}, name);
    return name + "_output_0";
  };
  auto x = relu("/relu/Relu", conv("/conv1", "input"));
  b.node("MaxPool", {x}, {"/maxpool/MaxPool_output_0"}, "/maxpool/MaxPool");
  x = "/maxpool/MaxPool_output_0";
  for (int layer = 1; layer <= 4; ++layer)
    for (int block = 0; block < 2; ++block) {
      auto scope = "/layer" + std::to_string(layer) + "/layer" + std::to_string(layer) + "." + std::to_string(block);
      auto y = relu(scope + "/relu/Relu", conv(scope + "/conv1", x));
      y = conv(scope + "/conv2", y);
      auto identity = layer > 1 && block == 0 ? conv(scope + "/downsample/downsample.0", x) : x;
      b.node("Add", {y, identity}, {scope + "/Add_output_0"}, scope + "/Add");
      x = relu(scope + "/relu_1/Relu", scope + "/Add_output_0");
    }
  b.node("GlobalAveragePool", {x}, {"/avgpool/GlobalAveragePool_output_0"}, "/avgpool/GlobalAveragePool");
  b.node("Flatten", {"/avgpool/GlobalAveragePool_output_0"}, {"/Flatten_output_0"}, "/Flatten");
  b.weight("fc.weight", {1, 1});
  b.weight("fc.bias", {1});
  b.node("Gemm", {"/Flatten_output_0", "fc.weight", "fc.bias"}, {"output"}, "/fc/Gemm");
  b.output("output");
  return b.save("resnet18");
}

}  // namespace ridge::test::torch_trace_fixtures
