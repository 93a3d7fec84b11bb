// The study `ridge report` renders, gathered in one call (report/study_request): devices and modes, the model's
// analysis and predictions, the stored results, and what it refuses, in process.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "hw/device_db.h"
#include "report/study_request.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

std::string missing_store() {
  return (std::filesystem::temp_directory_path() / "ridge-study-request-none.db").string();
}

TEST(StudyRequest, AModelPredictedOnEveryModeOfADevice) {
  report::StudyRequest r;
  r.model = analysis::Request{};
  r.model->model_path = model_path("alexnet");
  r.model->bindings.batch = 4;
  r.model_name = "models/alexnet.onnx";
  r.devices = {"jetson-agx-orin-64gb"};
  r.modes = "all";
  r.store_path = missing_store();
  auto study = report::gather_study(r);
  EXPECT_EQ(study.model, "models/alexnet.onnx");
  EXPECT_EQ(study.batch, 4);
  ASSERT_TRUE(study.analysis);
  ASSERT_EQ(study.devices.size(), 1u);
  // One prediction per power mode the device file lists, each of batch 4.
  auto device = hw::find_device("jetson-agx-orin-64gb");
  ASSERT_GT(device.modes.size(), 1u);
  EXPECT_EQ(study.devices[0].predictions.size(), device.modes.size());
  for (const auto& p : study.devices[0].predictions) EXPECT_EQ(p.batch, 4);
  // A store that is not there is read as empty when nobody named it.
  EXPECT_TRUE(study.records.empty());
  EXPECT_TRUE(study.store_path.empty());
}

TEST(StudyRequest, RefusesANamedStoreThatIsMissingAndAnEmptyStudy) {
  report::StudyRequest r;
  r.store_path = missing_store();
  EXPECT_NE(error_text([&] { report::gather_study(r); }).find("nothing to report"), std::string::npos);
  r.store_required = true;
  EXPECT_NE(error_text([&] { report::gather_study(r); }).find("no results store at"), std::string::npos);
  report::StudyRequest bad_mode;
  bad_mode.devices = {"jetson-agx-orin-64gb"};
  bad_mode.modes = "WARP";
  EXPECT_NE(error_text([&] { report::gather_study(bad_mode); }).find("WARP"), std::string::npos);
}

// The filter's model is --of-model: none selects the MODEL's results (by its file name), "all" every model's, a name
// that model's; without a MODEL, none is every model's.
TEST(StudyRequest, TheModelFilterIsTheModelsUnlessOfModelSaysOtherwise) {
  auto path = (std::filesystem::path(temp_dir()) / "study-request-of-model.db").string();
  std::filesystem::remove(path);
  {
    store::Store s(path);
    for (const char* model : {"models/alexnet.onnx", "models/resnet50.onnx", "models/alexnet.onnx"}) {
      store::Record r{.command = "bench", .status = "ok"};
      r.params.model = model;
      s.save(r);
    }
  }
  auto models_of = [&](bool with_model, const std::string& of_model) {
    report::StudyRequest r;
    if (with_model) {
      r.model = analysis::Request{};
      r.model->model_path = model_path("alexnet");
      r.model_name = "models/alexnet.onnx";
    }
    r.store_path = path;
    r.filter.model = of_model;
    std::multiset<std::string> models;
    for (const auto& record : report::gather_study(r).records) models.insert(record.params.model);
    return models;
  };
  using Models = std::multiset<std::string>;
  const Models alexnet{"models/alexnet.onnx", "models/alexnet.onnx"}, resnet{"models/resnet50.onnx"};
  Models every = alexnet;
  every.insert("models/resnet50.onnx");
  EXPECT_EQ(models_of(true, ""), alexnet);
  EXPECT_EQ(models_of(true, "all"), every);
  EXPECT_EQ(models_of(true, "resnet50"), resnet);
  EXPECT_EQ(models_of(false, ""), every);
  EXPECT_EQ(models_of(false, "all"), every);
}

}  // namespace
}  // namespace ridge::test
