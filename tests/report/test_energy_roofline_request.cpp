// `ridge plot energy-roofline` as one call (report/figure/energy_roofline_request): the curves drawn, the points'
// mode, and what it refuses, in process.
#include <gtest/gtest.h>

#include "hw/device_db.h"
#include "report/figure/energy_roofline_request.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fig = report::figure;

fig::EnergyRooflinePlotRequest alexnet_on(const std::string& device) {
  fig::EnergyRooflinePlotRequest r;
  r.model = analysis::Request{};
  r.model->model_path = model_path("alexnet");
  r.model_name = "models/alexnet.onnx";
  r.device = device;
  return r;
}

TEST(EnergyRooflineRequest, EveryModeACurveAndTheModelInOne) {
  auto plot = fig::energy_roofline_plot(alexnet_on("jetson-agx-orin-64gb:15W"));
  EXPECT_EQ(plot.series, static_cast<int>(hw::find_device("jetson-agx-orin-64gb").modes.size()));
  EXPECT_EQ(plot.source, "models/alexnet.onnx");
  EXPECT_EQ(plot.figure.title, "Energy roofline: alexnet on jetson-agx-orin-64gb (fp32, points in 15W)");
  EXPECT_FALSE(fig::data_values(plot.figure.spec, "points").empty());
  // Curves of MAXN only: the points' mode (15W) is drawn too.
  auto two = alexnet_on("jetson-agx-orin-64gb:15W");
  two.modes = "MAXN";
  EXPECT_EQ(fig::energy_roofline_plot(two).series, 2);
  // Without a model, curves alone, on fp32.
  fig::EnergyRooflinePlotRequest curves;
  curves.device = "jetson-agx-orin-64gb";
  auto alone = fig::energy_roofline_plot(curves);
  EXPECT_EQ(alone.source, "the device file");
  EXPECT_NE(alone.figure.title.find("(fp32)"), std::string::npos) << alone.figure.title;
}

TEST(EnergyRooflineRequest, RefusesAnUnknownCeilingOrMode) {
  auto ceiling = alexnet_on("jetson-agx-orin-64gb");
  ceiling.ceiling = "fp4";
  EXPECT_NE(error_text([&] { fig::energy_roofline_plot(ceiling); }).find("no ceiling 'fp4'"), std::string::npos);
  auto mode = alexnet_on("jetson-agx-orin-64gb");
  mode.modes = "MAXN,9000W";
  EXPECT_NE(error_text([&] { fig::energy_roofline_plot(mode); }).find("9000W"), std::string::npos);
}

}  // namespace
}  // namespace ridge::test
