// The loader: zero-copy weights, absent external data, subgraphs from ONNX's own test data.
#include <gtest/gtest.h>

#include <filesystem>

#include "exec/engine.h"
#include "graph/shape.h"
#include "onnx/model_reader.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

TEST(Loader, WeightsAreNotCopied) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{1024}}).weight("w", {1024, 4096}).output("y");  // 16 MiB of weights
  b.node("MatMul", {"x", "w"}, {"y"}, "mm");
  auto path = b.save("big");
  auto model = onnx::load_model(path);
  const auto& w = model.graph.value(*model.graph.find("w"));
  ASSERT_TRUE(w.initializer);
  const auto& loc = w.initializer->location;
  ASSERT_EQ(loc.kind, graph::TensorLocation::Kind::kInFile);
  EXPECT_EQ(loc.size, 1024 * 4096 * 4);
  // The weight's bytes are referenced by their offset in the file, not read or copied.
  auto file_size = static_cast<int64_t>(std::filesystem::file_size(path));
  EXPECT_EQ(model.file_bytes, file_size);
  EXPECT_GT(loc.offset, 0);
  EXPECT_LE(loc.offset + loc.size, file_size);
  EXPECT_EQ(w.constant, nullptr);  // never decoded: analysis does not need its values
}

// A string Constant (a tokenizer's vocabulary, labels) is analyzed as a tensor of known shape without values; an
// executor that needs its values refuses it in one line, naming it.
TEST(Loader, AStringConstantAnalyzesAndIsRefusedByName) {
  ModelBuilder b;
  b.input("x", {int64_t{3}}).output("y").output("labels");
  auto& node = b.node("Constant", {}, {"labels"}, "labels");
  auto* attr = node.add_attribute();
  attr->set_name("value");
  attr->set_type(::onnx::AttributeProto::TENSOR);
  auto* t = attr->mutable_t();
  t->set_data_type(::onnx::TensorProto::STRING);
  t->add_dims(2);
  t->add_string_data("cat");
  t->add_string_data("dog");
  b.node("Relu", {"x"}, {"y"}, "relu");
  auto r = analyze_file(b.save("string_constant"));
  const auto& labels = r.model.graph.value(*r.model.graph.find("labels"));
  EXPECT_EQ(labels.dtype, graph::DType::kString);
  ASSERT_TRUE(labels.has_shape);
  EXPECT_EQ(graph::known_dims(labels.shape), (std::vector<int64_t>{2}));
  EXPECT_EQ(node_named(r, "relu").flops, 3);
  auto text = error_text([&] { exec::load_engine().run(r.model, {float_tensor("x", {3}, {-1.f, 0.f, 2.f})}, {}); });
  EXPECT_NE(text.find("'labels'"), std::string::npos) << text;
  EXPECT_NE(text.find("holds strings"), std::string::npos) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
}

TEST(Loader, MissingExternalWeightsStillAnalyze) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{64}}).external_weight("w", {64, 32}, "absent.bin").output("y");
  b.node("MatMul", {"x", "w"}, {"y"}, "mm");
  auto r = analyze_file(b.save("external"));
  EXPECT_EQ(node_named(r, "mm").macs, 2 * 32 * 64);
  EXPECT_EQ(node_named(r, "mm").params, 64 * 32);
}

TEST(Loader, BundledModelsHaveNoWeightBytes) {
  // The committed files keep weights external (and absent), so they stay small.
  for (const char* name : {"resnet50", "vgg16", "bert_base"}) {
    auto size = std::filesystem::file_size(model_path(name));
    EXPECT_LT(size, 200'000u) << name;
  }
}

TEST(Loader, SubgraphsFromOnnxTestData) {
  for (const char* test : {"test_if", "test_loop11", "test_scan9_sum"}) {
    auto path = onnx_testdata() + "/node/" + test + "/model.onnx";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "libonnx-testdata not installed";
    auto model = onnx::load_model(path);
    bool has_subgraph = false;
    for (const auto& node : model.graph.nodes) has_subgraph = has_subgraph || !node.subgraphs().empty();
    EXPECT_TRUE(has_subgraph) << test;
  }
}

TEST(Loader, OpsetsAndProducerAreRead) {
  auto model = onnx::load_model(model_path("resnet50"));
  EXPECT_EQ(model.default_opset(), 17);
  EXPECT_EQ(model.producer, "pytorch");
}

}  // namespace
}  // namespace ridge::test

namespace ridge::test {
namespace {

// ONNX's own Scan tests: the body adds a 2-element state and a 2-element slice (2 FLOPs) per
// iteration, over 3 slices. Scan-8 adds a leading batch dim (1) and a sequence_lens input.
TEST(ControlFlowCost, ScanCostsBodyTimesIterations) {
  for (const char* test : {"test_scan9_sum", "test_scan_sum"}) {
    auto path = onnx_testdata() + "/node/" + test + "/model.onnx";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "libonnx-testdata not installed";
    auto r = analyze_file(path);
    ASSERT_EQ(r.cost.nodes.size(), 1u) << test;
    EXPECT_EQ(r.cost.nodes[0].status, cost::NodeStatus::kCosted) << test;
    EXPECT_EQ(r.cost.nodes[0].flops, 3 * 2) << test;
  }
}

}  // namespace
}  // namespace ridge::test
