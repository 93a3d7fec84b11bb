// `ridge plot energy-roofline` as one call (report/figure/energy_roofline_request): the curves drawn, the points'
// mode, and what it refuses, in process; the figure written with its summary (report::write_plot), against the
// device of tests/roofline/test_energy.cpp. tests/cli/test_energy.cpp keeps the refusals' exit codes and lines.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hw/device_db.h"
#include "report/figure/energy_roofline_request.h"
#include "report/plot_report.h"
#include "support/energy_fixtures.h"
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

// `ridge plot energy-roofline THREE_NODES -d joule.yaml:half -o energy.vg.json -f json`.
TEST(EnergyRooflineRequest, WritesCurvesPerModeAndThePredictedNodes) {
  using namespace energy_fixtures;  // NOLINT(google-build-using-namespace)
  auto dev = temp_dir() + "/energy-roofline-request-joule.yaml";
  std::ofstream(dev) << kDevice;
  auto spec_path = temp_dir() + "/energy-roofline-request.vg.json";
  fig::EnergyRooflinePlotRequest r;
  r.model_name = three_node_model();
  r.model = analysis::Request{};
  r.model->model_path = r.model_name;
  r.device = dev + ":half";
  auto plot = fig::energy_roofline_plot(r);
  std::ostringstream out;
  report::write_plot(plot.figure, spec_path, 0, "json", plot.series, plot.source, out);
  auto summary = Json::parse(out.str());
  EXPECT_EQ(summary["kind"], "energy-roofline");
  EXPECT_EQ(summary["series"], 3);
  EXPECT_EQ(summary["points"], 3);
  std::ifstream in(spec_path);
  auto spec = Json::parse(in);
  for (const auto& p : fig::data_values(spec, "points")) {
    EXPECT_EQ(p["series"], "half");
    EXPECT_DOUBLE_EQ(p["flops_per_joule"].get<double>(), p["flops"].get<double>() / p["energy_j"].get<double>());
  }
}

}  // namespace
}  // namespace ridge::test
