// Input sizes: the bundled vision models' symbolic height and width with the default stored in the
// file (ridge.default_dims), and --input rebinding dims that a model file fixes.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "shape/infer.h"
#include "support/input_sizes_fixtures.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace input_sizes_fixtures;  // NOLINT(google-build-using-namespace)

nlohmann::json reference() {
  std::ifstream in(source_path("models/reference.json"));
  return nlohmann::json::parse(in);
}

std::string input_shape(const analysis::Result& r) { return r.inputs.empty() ? "" : r.inputs[0].second; }

bool has_note(const analysis::Result& r, const std::string& text) {
  for (const auto& n : r.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

constexpr int64_t kResnet50Macs224 = 4089184256;
constexpr int64_t kResnet50FcMacs = 2048 * 1000;

TEST(InputSizes, BundledResnet50DefaultsTo224FromTheFileAndSaysSo) {
  auto r = analyze_file(model_path("resnet50"));
  EXPECT_EQ(r.model.metadata.at(shape::kDefaultDimsKey), "height=224,width=224");
  EXPECT_EQ(input_shape(r), "1x3x224x224");
  EXPECT_EQ(r.cost.totals.macs, kResnet50Macs224);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0], "batch=1 (default) for dim 'batch'");
  EXPECT_EQ(r.notes[1], "height=224, width=224 (default from the model file) for dims 'height','width'");
}

TEST(InputSizes, Resnet50At320ByHand) {
  auto r = analyze_file(model_path("resnet50"), {.batch = {}, .dims = {}, .inputs = {{"input", {1, 3, 320, 320}}}});
  EXPECT_EQ(input_shape(r), "1x3x320x320");
  EXPECT_FALSE(has_note(r, "default from the model file"));
  // conv1: 7x7 stride 2 pad 3, 3 -> 64 channels: 320 -> 160.
  const auto& conv1 = node_named(r, "/conv1/Conv");
  EXPECT_EQ(conv1.output_shape, "1x64x160x160");
  EXPECT_EQ(conv1.macs, 64LL * 160 * 160 * 3 * 7 * 7);
  // Every convolution's output grid is (320/224)^2 = 100/49 times larger (160/112, 80/56, 40/28,
  // 20/14, 10/7); the final 2048 -> 1000 Linear after global pooling stays.
  int64_t expected = (kResnet50Macs224 - kResnet50FcMacs) / 49 * 100 + kResnet50FcMacs;
  EXPECT_EQ((kResnet50Macs224 - kResnet50FcMacs) % 49, 0);
  EXPECT_EQ(r.cost.totals.macs, expected);
  EXPECT_EQ(r.cost.totals.macs, reference()["resnet50"]["macs"]["1,320x320"].get<int64_t>());
  // The same through the named dims.
  auto by_dims =
      analyze_file(model_path("resnet50"), {.batch = {}, .dims = {{"height", 320}, {"width", 320}}, .inputs = {}});
  EXPECT_EQ(by_dims.cost.totals.macs, expected);
  EXPECT_FALSE(has_note(by_dims, "default from the model file"));
}

TEST(InputSizes, OneNamedDimKeepsTheOtherDefault) {
  auto r = analyze_file(model_path("resnet50"), {.batch = {}, .dims = {{"height", 320}}, .inputs = {}});
  EXPECT_EQ(input_shape(r), "1x3x320x224");
  EXPECT_TRUE(has_note(r, "width=224 (default from the model file) for dim 'width'"));
}

// Every spatially dynamic bundled model against PyTorch's own kernel counts at other sizes.
TEST(InputSizes, SpatialModelsMatchPyTorchAtOtherSizes) {
  auto ref = reference();
  for (const char* name : {"resnet50", "resnet152", "mobilenet_v2", "densenet121", "googlenet", "yolo_style"}) {
    int points = 0;
    for (const auto& [key, macs] : ref[name]["macs"].items()) {
      auto comma = key.find(','), x = key.find('x');
      if (comma == std::string::npos || x == std::string::npos) continue;
      shape::Bindings b;
      b.batch = std::stoll(key.substr(0, comma));
      b.dims["height"] = std::stoll(key.substr(comma + 1, x - comma - 1));
      b.dims["width"] = std::stoll(key.substr(x + 1));
      auto r = analyze_file(model_path(name), b);
      EXPECT_TRUE(r.cost.unresolved_ops.empty()) << name << " " << key;
      EXPECT_EQ(r.cost.totals.macs, macs.get<int64_t>()) << name << " " << key;
      ++points;
    }
    EXPECT_GE(points, 2) << name;
  }
}

TEST(InputSizes, ModelsThatCannotTakeOtherSizesStayFixed) {
  for (const char* name : {"alexnet", "vgg16", "vit_b_16"}) {
    auto r = analyze_file(model_path(name));
    EXPECT_EQ(input_shape(r), "1x3x224x224") << name;
    EXPECT_FALSE(r.model.metadata.count(shape::kDefaultDimsKey)) << name;
  }
}

// x[1,3,8,8] fixed -> Conv 3x3 pad 1 -> GlobalAveragePool -> Flatten -> Gemm: any H and W work.
std::string fixed_size_cnn() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}}).output("y");
  b.weight("w", {4, 3, 3, 3}).weight("fc", {10, 4});
  set_ints(b.node("Conv", {"x", "w"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  b.node("GlobalAveragePool", {"c"}, {"p"}, "pool");
  b.node("Flatten", {"p"}, {"f"}, "flatten");
  set_int(b.node("Gemm", {"f", "fc"}, {"y"}, "fc"), "transB", 1);
  return b.save("fixed_cnn");
}

TEST(InputSizes, InputRebindsDimsTheFileFixes) {
  auto path = fixed_size_cnn();
  auto r = analyze_file(path, {.batch = {}, .dims = {}, .inputs = {{"x", {2, 3, 16, 12}}}});
  EXPECT_EQ(node_named(r, "conv").output_shape, "2x4x16x12");
  EXPECT_EQ(node_named(r, "conv").macs, 2LL * 4 * 16 * 12 * 3 * 3 * 3);
  EXPECT_EQ(node_named(r, "fc").output_shape, "2x10");
  EXPECT_TRUE(has_note(r, "--input x=2x3x16x12 replaces the model's fixed 1x3x8x8")) << r.notes.at(0);
  // The same shape as the file's is no rebinding and says nothing.
  auto same = analyze_file(path, {.batch = {}, .dims = {}, .inputs = {{"x", {1, 3, 8, 8}}}});
  EXPECT_TRUE(same.notes.empty());
}

TEST(InputSizes, ReshapeThatForbidsTheNewSizeIsOneLineNamingTheNode) {
  try {
    analyze_file(fixed_reshape_model(), {.batch = {}, .dims = {}, .inputs = {{"x", {1, 4, 3, 3}}}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "--input x=1x4x3x3: node '/Reshape' (Reshape): cannot reshape 1x4x3x3 (36 elements) into 1x16 "
                 "(16 elements)");
  }
  // A size whose element count still fits is fine (the graph allows it).
  auto r = analyze_file(fixed_reshape_model(), {.batch = {}, .dims = {}, .inputs = {{"x", {1, 16, 1, 1}}}});
  EXPECT_EQ(node_named(r, "/fc/Gemm").output_shape, "1x3");
}

TEST(InputSizes, ShapesTheFileDeclaresAreNotKeptAfterRebinding) {
  // An op without a shape rule whose output shape the file declares (value_info): right for the
  // file's input size, unknown (named, not guessed) for another.
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{4}}).output("z");
  auto& custom = b.node("FusedThing", {"x"}, {"y"}, "custom");
  custom.set_domain("com.example");
  auto* info = b.proto().mutable_graph()->add_value_info();
  info->set_name("y");
  info->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  for (int64_t d : {1, 4}) info->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  b.node("Relu", {"y"}, {"z"}, "relu");
  auto path = b.save("declared");
  EXPECT_EQ(node_named(analyze_file(path), "relu").output_shape, "1x4");
  auto rebound = analyze_file(path, {.batch = {}, .dims = {}, .inputs = {{"x", {1, 8}}}});
  EXPECT_EQ(node_named(rebound, "relu").status, cost::NodeStatus::kUnresolved);
}

}  // namespace
}  // namespace ridge::test
