// The roofline figure (report/figure): the plotted numbers against hand computations, and the file
// format chosen by the extension.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "hw/device_db.h"
#include "hw/roofline.h"
#include "report/figure/render.h"
#include "report/figure/roofline_figure.h"
#include "report/figure/sources.h"
#include "support/browser.h"
#include "support/figures_fixtures.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

using namespace test::figures_fixtures;  // NOLINT(google-build-using-namespace)

RooflineInput simple_input() {
  RooflineInput in{.title = "simple"};
  in.ceilings = {{"dev", "fp32", true, 1e12, "datasheet"},
                 {"dev", "fp16_tensor", true, 4e12, "measured"},
                 {"dev", "dram", false, 1e11, "datasheet"},
                 {"dev", "l2", false, 4e11, "theoretical"}};
  in.points = {{.series = "dev",
                .name = "conv",
                .op = "Conv",
                .family = "conv",
                .flops = 1e9,
                .bytes = 1e8,
                .time_s = 1e-3,
                .time_kind = "predicted"},
               {.series = "dev",
                .name = "relu",
                .op = "Relu",
                .family = "elementwise",
                .flops = 1e6,
                .bytes = 8e6,
                .time_s = 3e-3,
                .time_kind = "predicted"},
               {.series = "dev", .name = "flatten", .op = "Flatten"}};
  return in;
}

TEST(RooflineFigure, PointsAndCeilingsAreComputedByHand) {
  auto fig = roofline_figure(simple_input());
  const auto& points = data_values(fig.spec, "points");
  ASSERT_EQ(points.size(), 2u);  // the flatten has no work: named in the notes, not drawn at zero
  const auto& conv = row_where(points, "name", "conv");
  EXPECT_DOUBLE_EQ(conv["intensity"].get<double>(), 10.0);    // 1e9 / 1e8
  EXPECT_DOUBLE_EQ(conv["flops_per_s"].get<double>(), 1e12);  // 1e9 / 1e-3
  EXPECT_DOUBLE_EQ(conv["share"].get<double>(), 0.25);        // 1 ms of 4 ms
  const auto& relu = row_where(points, "name", "relu");
  EXPECT_DOUBLE_EQ(relu["intensity"].get<double>(), 0.125);
  EXPECT_NEAR(relu["flops_per_s"].get<double>(), 1e6 / 3e-3, 1e-3);
  EXPECT_DOUBLE_EQ(relu["share"].get<double>(), 0.75);
  ASSERT_EQ(fig.notes.size(), 1u);
  EXPECT_NE(fig.notes[0].find("flatten"), std::string::npos);

  const auto& ceilings = data_values(fig.spec, "ceilings");
  ASSERT_EQ(ceilings.size(), 4u);
  // A compute ceiling starts where the top bandwidth (L2, 4e11 B/s) reaches it: 1e12 / 4e11 = 2.5.
  const auto& fp32 = row_where(ceilings, "key", "fp32");
  EXPECT_DOUBLE_EQ(fp32["x1"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(fp32["y1"].get<double>(), 1e12);
  EXPECT_EQ(fp32["label"], "datasheet");
  // A memory ceiling ends where it meets the top compute ceiling (4e12): DRAM at 40 FLOP/B.
  const auto& dram = row_where(ceilings, "key", "dram");
  EXPECT_DOUBLE_EQ(dram["x2"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(dram["y2"].get<double>(), 4e12);
  EXPECT_DOUBLE_EQ(dram["y1"].get<double>() / dram["x1"].get<double>(), 1e11);  // on the line y = B x
  EXPECT_EQ(row_where(ceilings, "key", "l2")["label"], "theoretical");
  EXPECT_EQ(row_where(ceilings, "key", "fp16_tensor")["label"], "measured");
  // The axes cover every point and ridge point in whole decades.
  auto x_domain = fig.spec["scales"][0]["domain"];
  EXPECT_LE(x_domain[0].get<double>(), 0.125 / 2);
  EXPECT_GE(x_domain[1].get<double>(), 40.0 * 2);
}

TEST(RooflineFigure, CeilingsOfEveryPowerModeAreTheDevicesRooflines) {
  auto device = hw::find_device("jetson-agx-orin-64gb");
  ASSERT_GT(device.modes.size(), 1u);
  RooflineInput in{.title = "modes"};
  size_t expected = 0;
  for (const auto& mode : device.modes) {
    auto roofline = hw::roofline_for(device, mode);
    auto ceilings = ceilings_of(roofline, mode.name);
    expected += roofline.peak_flops.size() + roofline.bandwidth.size();
    in.ceilings.insert(in.ceilings.end(), ceilings.begin(), ceilings.end());
  }
  auto fig = roofline_figure(in);
  const auto& rows = data_values(fig.spec, "ceilings");
  ASSERT_EQ(rows.size(), expected);
  for (const auto& mode : device.modes) {
    auto roofline = hw::roofline_for(device, mode);
    for (const auto& row : rows) {
      if (row["series"] != mode.name) continue;
      const auto& table = row["kind"] == "compute" ? roofline.peak_flops : roofline.bandwidth;
      const auto& c = table.at(row["key"].get<std::string>());
      EXPECT_DOUBLE_EQ(row["value"].get<double>(), c.value) << mode.name << " " << row["key"];
      EXPECT_EQ(row["label"], c.label);
    }
  }
  // Lower-clocked modes have lower FP32 peaks: the classic per-mode roofline.
  auto maxn = hw::roofline_for(device, device.modes.front()).peak_flops.at("fp32").value;
  auto last = hw::roofline_for(device, device.modes.back()).peak_flops.at("fp32").value;
  EXPECT_LT(last, maxn);
}

TEST(RooflineFigure, HierarchicalKernelsGetOnePointPerLevelJoinedByALine) {
  auto doc = Json::parse(R"J({"kernels": [
      {"name": "sgemm_128x64(float)", "time_s": 0.002, "flops": 4e9, "bytes": {"l1": 8e8, "l2": 2e8, "dram": 5e7}},
      {"name": "relu_kernel", "time_s": 0.001, "flops": 1e6, "bytes": {"l1": 8e6, "l2": 8e6, "dram": 8e6}},
      {"name": "no_counters", "time_s": 0.001}]})J");
  ASSERT_EQ(document_kind(doc), "kernels");
  RooflineInput in{.title = "kernels",
                   .ceilings = {{"gpu", "fp32", true, 6e13, "datasheet"}, {"gpu", "dram", false, 3e12, "datasheet"}},
                   .points = kernel_points(doc, "gpu"),
                   .hierarchical = true};
  auto fig = roofline_figure(in);
  EXPECT_EQ(fig.kind, "hierarchical-roofline");
  const auto& points = data_values(fig.spec, "points");
  ASSERT_EQ(points.size(), 6u);
  for (const auto& p : points) {
    if (p["name"] != "sgemm_128x64(float)") continue;
    EXPECT_DOUBLE_EQ(p["flops_per_s"].get<double>(), 2e12);  // 4e9 FLOPs in 2 ms, at every level
    EXPECT_DOUBLE_EQ(p["share"].get<double>(), 2.0 / 3.0);   // 2 ms of 3 ms: a kernel counts once
  }
  const auto& links = data_values(fig.spec, "links");
  ASSERT_EQ(links.size(), 2u);
  const auto& gemm = row_where(links, "name", "sgemm_128x64(float)");
  EXPECT_DOUBLE_EQ(gemm["x1"].get<double>(), 5.0);   // 4e9 / 8e8 at L1
  EXPECT_DOUBLE_EQ(gemm["x2"].get<double>(), 80.0);  // 4e9 / 5e7 at DRAM
  ASSERT_EQ(fig.notes.size(), 1u);
  EXPECT_NE(fig.notes[0].find("no_counters"), std::string::npos);
}

// A legend entry longer than 26 characters loses its middle, not its end (where series differ), in the SVG too;
// the full name is each entry's tooltip.
TEST(RooflineFigure, LongSeriesNamesAreShortenedFromTheMiddle) {
  auto in = simple_input();
  for (auto& c : in.ceilings) c.series = "jetson-agx-orin-64gb MAXN training";
  auto fig = roofline_figure(in);
  const Json* series_legend = nullptr;
  for (const auto& l : fig.spec["legends"])
    if (l.value("stroke", "") == "series_color") series_legend = &l;
  ASSERT_TRUE(series_legend);
  EXPECT_NE((*series_legend)["encode"]["labels"]["update"]["text"]["signal"].get<std::string>().find(
                "'jetson-agx-orin-64gb MAXN training': 'jetson-agx-o\u2026MAXN training'"),
            std::string::npos);
  auto path = test::temp_dir() + "/legend.svg";
  try {
    write_figure(fig, path);
  } catch (const Error& e) {
    if (std::string(e.what()).find("need Node.js and Vega") == std::string::npos) throw;
    GTEST_SKIP() << "no SVG renderer (node-vega) here";
  }
  std::ifstream in_file(path);
  std::stringstream svg;
  svg << in_file.rdbuf();
  EXPECT_NE(svg.str().find(">jetson-agx-o\u2026MAXN training</text>"), std::string::npos);
  EXPECT_EQ(svg.str().find(">jetson-agx-orin-64gb MAXN training</text>"), std::string::npos);
}

TEST(RooflineFigure, NothingToDrawIsAnError) { EXPECT_THROW(roofline_figure({.title = "empty"}), Error); }

TEST(FigureFiles, FormatComesFromTheExtension) {
  EXPECT_EQ(file_type("a.html"), FileType::kHtml);
  EXPECT_EQ(file_type("dir/a.svg"), FileType::kSvg);
  EXPECT_EQ(file_type("a.png"), FileType::kPng);
  EXPECT_EQ(file_type("a.pdf"), FileType::kPdf);
  EXPECT_EQ(file_type("a.vg.json"), FileType::kSpec);
  EXPECT_THROW(file_type("a.jpg"), Error);
}

// The SVG is laid out at the widths the font draws (vega-render.js reads each character's advance from the font file):
// a title of narrow letters takes less room than one of wide letters of the same length, and both about what DejaVu
// Sans Bold's advances give (i 702 and W 2264 of 2048 units per em), not Vega's 0.8 em estimate for every character
// (672 px here).
TEST(FigureFiles, TextIsLaidOutAtTheFontsWidths) {
  auto svg_width = [](const std::string& title) {
    Json spec = base_spec(title, 20, 20);
    add_data(spec, "points", Json::array({Json{{"x", 1}}}));
    spec["marks"] = Json::array({Json{{"type", "symbol"}, {"from", {{"data", "points"}}}}});
    std::string svg;
    try {
      svg = render_svg(spec);
    } catch (const Error&) {
      return -1.0;  // no renderer: the test below skips
    }
    auto at = svg.find("width=\"");
    return at == std::string::npos ? -2.0 : std::stod(svg.substr(at + 7));
  };
  const double narrow = svg_width(std::string(60, 'i')), wide = svg_width(std::string(60, 'W'));
  if (narrow == -1) GTEST_SKIP() << "no SVG renderer (node, node-vega)";
  const double padding = 16;  // base_spec's 8 on each side
  EXPECT_NEAR(narrow - padding, 60 * 0.343 * 14, 20);
  EXPECT_NEAR(wide - padding, 60 * 1.105 * 14, 20);
  EXPECT_LT(narrow, 0.8 * 60 * 14 / 2);
}

}  // namespace
}  // namespace ridge::report::figure
