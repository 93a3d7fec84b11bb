// `ridge calibrate` printed and kept (report/calibrate_command), in process: the GPU executor's fit from the H200's
// ResNet-50 runs, printed as the calibration's JSON and kept with the parameters given.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <variant>

#include "report/calibrate_command.h"
#include "report/calibration_report.h"
#include "report/result_codec.h"
#include "store/store.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

TEST(CalibrateCommand, TheFitIsPrintedAndKept) {
  auto dir = fs::path(temp_dir()) / "calibrate-command";
  fs::remove_all(dir);
  fs::create_directories(dir / "models");
  // The runs name models/resnet50.onnx: it is found beside them.
  fs::copy_file(source_path("tests/data/bench/h200/ridge-bench-resnet50.json"), dir / "runs.json");
  fs::copy_file(model_path("resnet50"), dir / "models/resnet50.onnx");
  calib::CalibrateRequest request;
  request.device = "h200";
  request.measured = {(dir / "runs.json").string()};
  request.output = (dir / "h200.yaml").string();
  auto path = (dir / "ridge.db").string();
  std::ostringstream out;
  report::calibrate_and_keep(request, {.device = "h200"}, "json", {.path = path}, {}, out);
  auto printed = nlohmann::json::parse(out.str());
  ASSERT_TRUE(report::is_calibration(printed)) << out.str().substr(0, 200);
  auto fit = report::decode_calibration(printed, "out");
  ASSERT_TRUE(std::holds_alternative<calib::ShapeCalibration>(fit));
  EXPECT_EQ(std::get<calib::ShapeCalibration>(fit).output, request.output);
  auto records = store::Store(path, true).query({});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].command, "calibrate");
  EXPECT_EQ(records[0].params.device, "h200");
  auto typed = report::decode_typed(records[0].result, "store");
  ASSERT_TRUE(typed.calibration);
  EXPECT_TRUE(std::holds_alternative<calib::ShapeCalibration>(*typed.calibration));
}

}  // namespace
}  // namespace ridge::test
