// The bundled models against independent figures:
//  - torchvision's published operation counts and parameter counts (the "_ops" GFLOPS and
//    "num_params" metadata of each weights enum in torchvision/models/*.py, shown in the
//    "GFLOPS" and "Params" columns of torchvision's classification model table). Those GFLOPS
//    are multiply-accumulates of conv, linear and matmul ops, in units of 1e9, to 3 decimals.
//  - models/reference.json, written by tools/export_models.py from the PyTorch models themselves:
//    parameter counts, BatchNorm channels, and MACs counted by intercepting the aten matrix and
//    convolution kernels PyTorch runs (TorchDispatchMode), at several (batch, seq) points.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/model_builder.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

struct Published {
  const char* model;
  double gmacs;    // torchvision "_ops"
  int64_t params;  // torchvision "num_params"
  friend void PrintTo(const Published& p, std::ostream* os) { *os << p.model; }
};

constexpr Published kTorchvision[] = {
    {"resnet50", 4.089, 25557032},    {"resnet152", 11.514, 60192808}, {"vgg16", 15.470, 138357544},
    {"mobilenet_v2", 0.301, 3504872}, {"densenet121", 2.834, 7978856}, {"googlenet", 1.498, 6624904},
    {"alexnet", 0.714, 61100840},     {"vit_b_16", 17.564, 86567656},
};

nlohmann::json reference() {
  std::ifstream in(source_path("models/reference.json"));
  return nlohmann::json::parse(in);
}

class TorchvisionModel : public ::testing::TestWithParam<Published> {};

TEST_P(TorchvisionModel, MacsMatchPublishedFigure) {
  const auto& p = GetParam();
  auto r = analyze_file(model_path(p.model));
  EXPECT_TRUE(r.cost.unknown_ops.empty());
  EXPECT_TRUE(r.cost.unresolved_ops.empty());
  EXPECT_NEAR(static_cast<double>(r.cost.totals.macs) / 1e9, p.gmacs, 0.0005) << p.model;
  // And exactly the count of the PyTorch model's own kernels.
  EXPECT_EQ(r.cost.totals.macs, reference()[p.model]["macs"]["1"].get<int64_t>()) << p.model;
}

// The exporter folds a BatchNorm that follows a convolution (weight + bias: 2C trained parameters)
// into that convolution, which had no bias and gains one (C): each folded BatchNorm removes C
// parameters. BatchNorms that follow something else (DenseNet's pre-activation norms after a
// Concat) stay, with their 2C parameters. So ONNX params = torchvision params - folded channels.
TEST_P(TorchvisionModel, ParamsMatchPublishedFigureMinusFoldedBatchNorm) {
  const auto& p = GetParam();
  auto ref = reference()[p.model];
  EXPECT_EQ(ref["params"].get<int64_t>(), p.params);  // the exported PyTorch model is the published one
  auto r = analyze_file(model_path(p.model));
  EXPECT_EQ(r.cost.totals.params, p.params - ref["bn_folded_channels"].get<int64_t>()) << p.model;
}

INSTANTIATE_TEST_SUITE_P(Published, TorchvisionModel, ::testing::ValuesIn(kTorchvision),
                         [](const auto& info) { return std::string(info.param.model); });

// The training exports (NAME_train.onnx) fold nothing: every trained parameter of the PyTorch model is in the file,
// every BatchNorm stays in training mode (batch statistics: 7 FLOPs per element, not the folded 2) with the
// PyTorch model's channels, every Dropout trains (2 FLOPs per element), and the products are the inference ones.
TEST(TrainingExports, KeepEveryBatchNormAndDropoutOfTheTrainedNetwork) {
  struct Case {
    const char* model;
    int batch_norms, dropouts;  // torchvision's BatchNorm2d and Dropout modules
  };
  for (auto [model, batch_norms, dropouts] :
       {Case{"resnet50", 53, 0}, Case{"vgg16", 0, 2}, Case{"mobilenet_v2", 52, 1}}) {
    const auto name = std::string(model) + "_train";
    const auto* published = std::find_if(std::begin(kTorchvision), std::end(kTorchvision),
                                         [&](const auto& p) { return p.model == std::string(model); });
    auto ref = reference()[name];
    auto r = analyze_file(model_path(name));
    EXPECT_TRUE(r.cost.unknown_ops.empty()) << name;
    EXPECT_TRUE(r.cost.unresolved_ops.empty()) << name;
    EXPECT_EQ(r.cost.totals.params, published->params) << name;  // nothing folded
    EXPECT_EQ(ref["params"].get<int64_t>(), published->params) << name;
    EXPECT_EQ(r.cost.totals.macs, ref["macs"]["1"].get<int64_t>()) << name;
    EXPECT_NEAR(static_cast<double>(r.cost.totals.macs) / 1e9, published->gmacs, 0.0005) << name;
    auto elements = [](const std::string& shape) {  // "1x64x112x112"
      int64_t n = 1;
      for (size_t at = 0; at < shape.size();) {
        size_t end = shape.find('x', at);
        n *= std::stoll(shape.substr(at, end - at));
        at = end == std::string::npos ? shape.size() : end + 1;
      }
      return n;
    };
    int seen_norms = 0, seen_dropouts = 0;
    int64_t channels = 0;
    for (const auto& node : r.cost.nodes) {
      if (node.op_type == "BatchNormalization") {
        ++seen_norms;
        EXPECT_EQ(node.flops, 7 * elements(node.output_shape)) << node.name;
        channels += std::stoll(node.output_shape.substr(node.output_shape.find('x') + 1));
      } else if (node.op_type == "Dropout") {
        ++seen_dropouts;
        EXPECT_EQ(node.flops, 2 * elements(node.output_shape)) << node.name;
      }
    }
    EXPECT_EQ(seen_norms, batch_norms) << name;
    EXPECT_EQ(seen_dropouts, dropouts) << name;
    EXPECT_EQ(channels, ref["bn_channels"].get<int64_t>()) << name;  // the PyTorch model's BatchNorm2d channels
  }
}

TEST(Transformers, MacsAtSeveralBatchAndSequencePoints) {
  auto ref = reference();
  for (const char* model : {"bert_base", "gpt2_tiny"}) {
    for (const auto& [point, macs] : ref[model]["macs"].items()) {
      auto comma = point.find(',');
      shape::Bindings bind;
      bind.batch = std::stoll(point.substr(0, comma));
      bind.dims["seq"] = std::stoll(point.substr(comma + 1));
      auto r = analyze_file(model_path(model), bind);
      EXPECT_TRUE(r.cost.unresolved_ops.empty()) << model << " " << point;
      EXPECT_EQ(r.cost.totals.macs, macs.get<int64_t>()) << model << " at batch,seq = " << point;
    }
    // Parameters: GPT-2's LM head reuses the token embedding (weight tying). The exporter's
    // constant folding writes its transpose as a second initializer (vocab 1000 x width 128),
    // so the ONNX file really holds those extra weights, and ridge counts what the file holds.
    int64_t folded_transpose = std::string(model) == "gpt2_tiny" ? 1000 * 128 : 0;
    auto r = analyze_file(model_path(model), {.batch = 1, .dims = {{"seq", 16}}, .inputs = {}});
    EXPECT_EQ(r.cost.totals.params, ref[model]["params"].get<int64_t>() + folded_transpose) << model;
  }
}

TEST(Transformers, BatchSweepScalesLinearlyAndSequenceQuadratically) {
  auto at = [](int64_t batch, int64_t seq) {
    return analyze_file(model_path("bert_base"), {.batch = batch, .dims = {{"seq", seq}}, .inputs = {}}).cost.totals;
  };
  auto one = at(1, 128), eight = at(8, 128);
  EXPECT_EQ(eight.macs, 8 * one.macs);
  EXPECT_EQ(eight.flops, 8 * one.flops);
  EXPECT_EQ(eight.params, one.params);
  // Per layer: 4 projections (4 * s * 768^2) + FFN (2 * s * 768 * 3072) linear in s; QK^T and PV
  // (2 * s^2 * 768) quadratic. Doubling s from 128 to 256 adds exactly the extra s^2 terms.
  auto doubled = at(1, 256);
  int64_t linear = 12 * (4 * 768 * 768 + 2 * 768 * 3072), quadratic = 12 * 2 * 768;
  int64_t pooler = 768 * 768;
  EXPECT_EQ(one.macs, linear * 128 + quadratic * 128 * 128 + pooler);
  EXPECT_EQ(doubled.macs, linear * 256 + quadratic * 256 * 256 + pooler);
}

TEST(Recurrent, TwoLayerLstmByHand) {
  // LSTM(64 -> 256) then LSTM(256 -> 256), 50 steps, batch 1; Linear(256 -> 10) on the last step.
  auto r = analyze_file(model_path("lstm_2layer"), {.batch = 1, .dims = {{"seq", 50}}, .inputs = {}});
  int64_t layer1 = 50 * 4 * 256 * (64 + 256), layer2 = 50 * 4 * 256 * (256 + 256);
  EXPECT_EQ(r.cost.totals.macs, layer1 + layer2 + 256 * 10);
  EXPECT_EQ(r.cost.totals.params, reference()["lstm_2layer"]["params"].get<int64_t>());
}

TEST(Detector, YoloStyleMatchesPyTorchKernels) {
  auto r = analyze_file(model_path("yolo_style"));
  auto ref = reference()["yolo_style"];
  EXPECT_TRUE(r.cost.unknown_ops.empty());
  EXPECT_EQ(r.cost.totals.macs, ref["macs"]["1"].get<int64_t>());
  EXPECT_EQ(r.cost.totals.params, ref["params"].get<int64_t>() - ref["bn_folded_channels"].get<int64_t>());
}

}  // namespace
}  // namespace ridge::test
