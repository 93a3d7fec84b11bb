// `ridge plot roofline` as one call (report/figure/roofline_request): the points and ceilings it gathers, read back
// from the figure's data sets, and what it refuses, in process.
#include <gtest/gtest.h>

#include <set>

#include "hw/device_db.h"
#include "hw/roofline.h"
#include "report/figure/roofline_request.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fig = report::figure;

fig::RooflinePlotRequest resnet50_on(std::vector<std::string> devices) {
  fig::RooflinePlotRequest r;
  r.model = analysis::Request{};
  r.model->model_path = model_path("resnet50");
  r.model->bindings.batch = 32;
  r.model_name = "models/resnet50.onnx";
  r.devices = std::move(devices);
  return r;
}

TEST(RooflineRequest, AModelOnADeviceAndItsMeasuredRun) {
  auto r = resnet50_on({"h200"});
  r.measured = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  auto plot = fig::roofline_plot(r);
  EXPECT_EQ(plot.figure.title, "Roofline: resnet50 on h200");
  EXPECT_EQ(plot.source, "models/resnet50.onnx");
  std::set<std::string> series;
  for (const auto& p : fig::data_values(plot.figure.spec, "points")) series.insert(p.at("series").get<std::string>());
  // The prediction, and the two batch-32 runs of the file (eager and CUDA graph), each a series of its own.
  EXPECT_EQ(series.size(), 3u) << plot.figure.spec.dump().substr(0, 400);
  // One device and mode: every ceiling of its roofline is drawn.
  auto device = hw::find_device("h200");
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, ""));
  std::set<std::string> keys;
  for (const auto& c : fig::data_values(plot.figure.spec, "ceilings")) keys.insert(c.at("key").get<std::string>());
  EXPECT_EQ(keys.size(), roofline.peak_flops.size() + roofline.bandwidth.size());
}

TEST(RooflineRequest, RefusesWhatItCannotDraw) {
  auto no_device = resnet50_on({});
  EXPECT_NE(error_text([&] { fig::roofline_plot(no_device); }).find("needs a device"), std::string::npos);
  auto bad_key = resnet50_on({"h200"});
  bad_key.ceilings = "fp32,warp_drive";
  EXPECT_NE(error_text([&] { fig::roofline_plot(bad_key); }).find("no ceiling 'warp_drive'"), std::string::npos);
  // A run of ResNet-50 given with AlexNet: its nodes are not the model's.
  auto other = resnet50_on({"h200"});
  other.model->model_path = model_path("alexnet");
  other.model->bindings.batch = 32;
  other.measured = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  EXPECT_NE(error_text([&] { fig::roofline_plot(other); }).find("another model"), std::string::npos);
  // A batch the file has no run of.
  auto batch8 = resnet50_on({"h200"});
  batch8.model->bindings.batch = 8;
  batch8.measured = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  EXPECT_NE(error_text([&] { fig::roofline_plot(batch8); }).find("no inference run at batch 8"), std::string::npos);
  EXPECT_NE(error_text([] { fig::roofline_plot({}); }).find("nothing to plot"), std::string::npos);
}

}  // namespace
}  // namespace ridge::test
