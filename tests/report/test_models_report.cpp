// `ridge models` as one call (report/models_report): the bundled models with the dims a user binds, the defaults
// their files store, and MACs checked against torchvision's published figure; a directory without models refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "report/models_report.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

TEST(ModelsReport, ListsTheBundledModelsWithTheirDimsAndCosts) {
  auto doc = report::models_document(source_path("models"));
  const auto* t = doc.find("models");
  ASSERT_NE(t, nullptr);
  std::map<std::string, const std::vector<report::Value>*> rows;
  std::vector<std::string> order;
  for (const auto& row : t->rows) {
    auto name = std::get<std::string>(*t->cell(row, "model"));
    rows[name] = &row;
    order.push_back(name);
  }
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  auto text = [&](const std::string& model, const std::string& key) {
    return std::get<std::string>(*t->cell(*rows.at(model), key));
  };
  ASSERT_TRUE(rows.count("resnet50.onnx"));
  EXPECT_EQ(text("resnet50.onnx", "symbolic_dims"), "batch, height, width");
  EXPECT_EQ(text("resnet50.onnx", "defaults"), "height=224,width=224");
  // torchvision's 4.089 GFLOPS (multiply-adds) at 224 x 224, from the defaults the file stores.
  EXPECT_EQ(std::get<int64_t>(*t->cell(*rows.at("resnet50.onnx"), "macs")), 4089184256);
  EXPECT_EQ(text("bert_base.onnx", "symbolic_dims"), "batch, seq");
  EXPECT_EQ(text("vgg16.onnx", "inputs"), "input=batchx3x224x224");
  EXPECT_EQ(text("vgg16.onnx", "path"), source_path("models") + "/vgg16.onnx");
}

TEST(ModelsReport, RefusesADirectoryWithoutModelsAndAFile) {
  auto dir = temp_dir() + "/no-models";
  std::filesystem::create_directories(dir);
  EXPECT_NE(error_text([&] { report::models_document(dir); }).find("no .onnx files in '" + dir + "'"),
            std::string::npos);
  auto file = model_path("alexnet");
  EXPECT_EQ(error_text([&] { report::models_document(file); }), "'" + file + "' is not a directory of models");
}

}  // namespace
}  // namespace ridge::test
