// The loader: zero-copy weights, absent external data, subgraphs from ONNX's own test data.
#include <gtest/gtest.h>

#include <filesystem>

#include "onnx/model_reader.h"
#include "support/model_builder.h"
#include "support/paths.h"

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
