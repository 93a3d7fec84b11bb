// profile::import_torch: traces read and their layers mapped, checked through the codec `ridge import torch -f json`
// prints.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "profile/torch_import.h"
#include "report/torch_import_codec.h"
#include "support/paths.h"
#include "support/torch_trace_fixtures.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace torch_trace_fixtures;  // NOLINT(google-build-using-namespace)

nlohmann::json json_of(const profile::TorchImportRequest& request) {
  return nlohmann::json::parse(report::encode_torch_imports(profile::import_torch(request)).dump());
}

TEST(TorchImport, RealCudaTraceFitsAResnet18Export) {
  auto model = resnet18_model();
  auto doc = json_of({.files = {data(kResnet18Trace)}, .model = model});
  const auto& t = doc["traces"][0];
  EXPECT_EQ(t["model_fit"]["verdict"], "fits");
  EXPECT_EQ(t["model_fit"]["passes"], 2);
  EXPECT_EQ(t["passes"], 2);
  EXPECT_EQ(t["mapped_by"]["op_order"], 2 * 49);
  bool pool = false;
  for (const auto& l : doc["layers"])
    if (l["layer"] == "/maxpool/MaxPool") {
      pool = true;
      EXPECT_NEAR(l["gpu_time_s"].get<double>(), (27.936 + 27.968) / 2 * kUs, 1e-10);
      EXPECT_EQ(l["passes"], 2);
    }
  EXPECT_TRUE(pool);
}

// Without a model, layers are the trace's own ranges; the imports name no model.
TEST(TorchImport, EveryTraceIsImportedInOrder) {
  auto imports = profile::import_torch({.files = {data("cuda_by_hand.json"), data(kResnet18Trace)}});
  ASSERT_EQ(imports.imports.size(), 2u);
  EXPECT_EQ(imports.imports[0].trace.source, data("cuda_by_hand.json"));
  EXPECT_EQ(imports.imports[1].trace.source, data(kResnet18Trace));
  EXPECT_TRUE(imports.model_path.empty());
  EXPECT_EQ(imports.imports[1].kernels_read, 238);
  EXPECT_THROW(profile::import_torch({.files = {data("cuda_by_hand.json")}, .model = data("nowhere.onnx")}), Error);
}

}  // namespace
}  // namespace ridge::test
