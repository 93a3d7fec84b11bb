// Figures (report/figure): the plotted numbers against hand computations and against what the
// commands print, the renderers' files (SVG marks, PNG size and content), and the HTML page opened
// in a real headless Chromium.
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
#include "support/paths.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

using test::count_of;
using test::distinct_colours;
using test::model_path;
using test::png_size;
using test::run_ridge;
using test::temp_dir;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

Json json_file(const std::string& path) { return Json::parse(slurp(path)); }

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

const Json& row_where(const Json& rows, const std::string& key, const std::string& value) {
  for (const auto& row : rows)
    if (row.at(key) == value) return row;
  throw std::runtime_error("no row with " + key + " = " + value);
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

TEST(RooflineFigure, NothingToDrawIsAnError) { EXPECT_THROW(roofline_figure({.title = "empty"}), Error); }

TEST(FigureFiles, FormatComesFromTheExtension) {
  EXPECT_EQ(file_type("a.html"), FileType::kHtml);
  EXPECT_EQ(file_type("dir/a.svg"), FileType::kSvg);
  EXPECT_EQ(file_type("a.png"), FileType::kPng);
  EXPECT_EQ(file_type("a.pdf"), FileType::kPdf);
  EXPECT_EQ(file_type("a.vg.json"), FileType::kSpec);
  EXPECT_THROW(file_type("a.jpg"), Error);
}

// The plot command's points are the nodes `ridge predict` prints, with the same FLOPs, bytes and time.
TEST(PlotRoofline, OnePointPerPredictedNodeWithThePrintedNumbers) {
  auto dir = temp_dir();
  auto spec_path = dir + "/alexnet-h100.vg.json";
  auto plot = run_ridge("plot roofline " + model_path("alexnet") + " -d h100-sxm -o " + spec_path + " -f json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  auto summary = Json::parse(plot.out);
  auto predict = run_ridge("predict " + model_path("alexnet") + " -d h100-sxm --no-store -f json");
  ASSERT_EQ(predict.exit_code, 0) << predict.err;
  auto prediction = Json::parse(predict.out);
  auto spec = json_file(spec_path);
  const auto& points = data_values(spec, "points");
  size_t with_work = 0;
  for (const auto& node : prediction["nodes"]) {
    if (!node.contains("flops") || node["flops"].get<double>() == 0) continue;
    ++with_work;
    const auto& p = row_where(points, "name", node["name"].get<std::string>());
    EXPECT_EQ(p["flops"].get<double>(), node["flops"].get<double>());
    EXPECT_EQ(p["bytes"].get<double>(), node["bytes"].get<double>());
    EXPECT_DOUBLE_EQ(p["time_s"].get<double>(), node["time_s"].get<double>());
    EXPECT_DOUBLE_EQ(p["intensity"].get<double>(), node["flops"].get<double>() / node["bytes"].get<double>());
  }
  EXPECT_EQ(with_work, 19u);  // AlexNet's 20 nodes less the Flatten
  EXPECT_EQ(points.size(), with_work);
  EXPECT_EQ(summary["points"], with_work);
  EXPECT_EQ(summary["kind"], "roofline");
  // Ceilings: the device file's, every one of them for a single device.
  auto device = hw::find_device("h100-sxm");
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, ""));
  EXPECT_EQ(data_values(spec, "ceilings").size(), roofline.peak_flops.size() + roofline.bandwidth.size());
  // Equal ceilings share one label instead of printing two on one line (the H100's FP64 tensor and
  // FP32 vector peaks are both 66.9 TFLOP/s).
  ASSERT_EQ(roofline.peak_flops.at("fp32").value, roofline.peak_flops.at("fp64_tensor").value);
  EXPECT_EQ(row_where(data_values(spec, "ceilings"), "key", "fp64_tensor")["text"], "");
  size_t both = 0;
  for (const auto& row : data_values(spec, "ceilings"))
    if (row["text"].get<std::string>().find("fp32") != std::string::npos &&
        row["text"].get<std::string>().find("fp64_tensor") != std::string::npos)
      ++both;
  EXPECT_EQ(both, 1u);
}

TEST(PlotRoofline, BadInputGetsOneLine) {
  auto dir = temp_dir();
  auto no_device = run_ridge("plot roofline " + model_path("alexnet") + " -o " + dir + "/x.svg");
  EXPECT_EQ(no_device.exit_code, 1);
  EXPECT_NE(no_device.err.find("needs a device"), std::string::npos) << no_device.err;
  auto bad_ext = run_ridge("plot roofline " + model_path("alexnet") + " -d t4 -o " + dir + "/x.jpg");
  EXPECT_EQ(bad_ext.exit_code, 1);
  EXPECT_NE(bad_ext.err.find(".html, .svg, .png, .pdf"), std::string::npos) << bad_ext.err;
  std::ofstream(dir + "/not-ridge.json") << R"({"hello": 1})";
  auto foreign = run_ridge("plot roofline --from " + dir + "/not-ridge.json -o " + dir + "/x.svg");
  EXPECT_EQ(foreign.exit_code, 1);
  EXPECT_NE(foreign.err.find("not a JSON output ridge can draw"), std::string::npos) << foreign.err;
  auto bad_mode =
      run_ridge("plot roofline " + model_path("alexnet") + " -d jetson-agx-orin-64gb:TURBO -o " + dir + "/x.svg");
  EXPECT_EQ(bad_mode.exit_code, 1);
  for (const auto& r : {no_device, bad_ext, foreign, bad_mode}) EXPECT_EQ(count_of(r.err, "\n"), 1u) << r.err;
}

TEST(PlotRoofline, FromAPredictionJsonDrawsTheSamePoints) {
  auto dir = temp_dir();
  auto predict = run_ridge("predict " + model_path("alexnet") + " -d t4 --no-store -f json");
  ASSERT_EQ(predict.exit_code, 0);
  std::ofstream(dir + "/p.json") << predict.out;
  ASSERT_EQ(run_ridge("plot roofline --from " + dir + "/p.json -o " + dir + "/from.vg.json").exit_code, 0);
  ASSERT_EQ(run_ridge("plot roofline " + model_path("alexnet") + " -d t4 -o " + dir + "/live.vg.json").exit_code, 0);
  auto from = json_file(dir + "/from.vg.json"), live = json_file(dir + "/live.vg.json");
  EXPECT_EQ(data_values(from, "points").size(), data_values(live, "points").size());
  EXPECT_EQ(data_values(from, "ceilings").size(), data_values(live, "ceilings").size());
  for (size_t i = 0; i < data_values(live, "points").size(); ++i)
    EXPECT_EQ(data_values(from, "points")[i]["flops_per_s"], data_values(live, "points")[i]["flops_per_s"]);
}

// Measured node times from `ridge bench -f json` become a series with the analysis' FLOPs and bytes.
TEST(PlotRoofline, MeasuredBenchTimesAreASeries) {
  auto dir = temp_dir();
  auto bench = run_ridge("bench " + model_path("alexnet") + " --no-store --max-time 0.5 --min-runs 2 -f json");
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  std::ofstream(dir + "/bench.json") << bench.out;
  auto plot = run_ridge("plot roofline " + model_path("alexnet") + " -d t4 --measured " + dir + "/bench.json -o " +
                        dir + "/m.vg.json -f json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  auto analyze = Json::parse(run_ridge("analyze " + model_path("alexnet") + " --no-store -f json").out);
  auto spec = json_file(dir + "/m.vg.json");
  auto run = Json::parse(bench.out)["runs"][0];
  size_t measured = 0;
  for (const auto& p : data_values(spec, "points")) {
    if (p["time_kind"] != "measured") continue;
    ++measured;
    EXPECT_EQ(p["series"], "measured cpu eager fp32");
    const auto& node = row_where(run["nodes"], "name", p["name"].get<std::string>());
    EXPECT_DOUBLE_EQ(p["time_s"].get<double>(), node["mean_ms"].get<double>() / 1000);
    const auto& cost = row_where(analyze["nodes"], "name", p["name"].get<std::string>());
    EXPECT_EQ(p["flops"].get<double>(), cost["flops"].get<double>());
    EXPECT_EQ(p["bytes"].get<double>(), cost["bytes"].get<double>());
  }
  EXPECT_EQ(measured, 19u);
  // A bench of another batch size does not match the model as bound: refused, not mixed.
  auto other = run_ridge("plot roofline " + model_path("alexnet") + " -d t4 --batch 2 --measured " + dir +
                         "/bench.json -o " + dir + "/m2.vg.json");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("no inference run at batch 2"), std::string::npos) << other.err;
}

// A stored prediction draws by id, like its printed JSON does.
TEST(PlotRoofline, AStoredPredictionDrawsById) {
  auto dir = temp_dir();
  auto store = dir + "/stored.db";
  ASSERT_EQ(run_ridge("predict " + model_path("alexnet") + " -d t4 --store " + store).exit_code, 0);
  auto listed = Json::parse(run_ridge("results --store " + store + " -f json").out);
  ASSERT_EQ(listed["results"].size(), 1u);
  auto id = listed["results"][0]["id"].get<int64_t>();
  auto plot = run_ridge("plot roofline --store " + store + " --result " + std::to_string(id) + " -o " + dir +
                        "/stored.vg.json -f json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_EQ(Json::parse(plot.out)["points"], 19);
  auto missing = run_ridge("plot roofline --store " + store + " --result 99 -o " + dir + "/x.svg");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no result 99"), std::string::npos) << missing.err;
}

TEST(PlotRoofline, SvgHasOneLabelledMarkPerPointAndPngHasTheRequestedWidth) {
  auto dir = temp_dir();
  auto plot = run_ridge("plot roofline " + model_path("alexnet") + " -d jetson-agx-orin-64gb --modes all -o " + dir +
                        "/r.svg -f json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  auto points = Json::parse(plot.out)["points"].get<size_t>();
  EXPECT_EQ(points, 19u * hw::find_device("jetson-agx-orin-64gb").modes.size());
  auto svg = slurp(dir + "/r.svg");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count_of(svg, "aria-label=\"node: "), points);  // every point names its node (the tooltip's text)

  auto png = run_ridge("plot roofline " + model_path("alexnet") + " -d t4 --width 900 -o " + dir + "/r.png");
  ASSERT_EQ(png.exit_code, 0) << png.err;
  auto [width, height] = png_size(dir + "/r.png");
  EXPECT_EQ(width, 900u);
  EXPECT_GT(height, 300u);
  EXPECT_GT(distinct_colours(dir + "/r.png"), 20);  // lines, points, text: not blank

  auto pdf = run_ridge("plot roofline " + model_path("alexnet") + " -d t4 -o " + dir + "/r.pdf");
  ASSERT_EQ(pdf.exit_code, 0) << pdf.err;
  EXPECT_EQ(slurp(dir + "/r.pdf").substr(0, 5), "%PDF-");
}

TEST(PlotRoofline, WithoutTheRendererTheSpecIsKeptAndTheErrorSaysHow) {
  auto dir = temp_dir();
  // A PATH without node: the SVG cannot be drawn.
  auto r = run_ridge("plot roofline " + model_path("alexnet") + " -d t4 -o " + dir + "/r.png", "PATH=/nonexistent");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("apt-get install nodejs node-vega"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ridge plot render"), std::string::npos) << r.err;
  auto spec = json_file(dir + "/r.vg.json");
  EXPECT_EQ(data_values(spec, "points").size(), 19u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.png"));
  // ... and rendering it later gives the figure.
  auto later = run_ridge("plot render " + dir + "/r.vg.json -o " + dir + "/r.svg");
  ASSERT_EQ(later.exit_code, 0) << later.err;
  EXPECT_EQ(count_of(slurp(dir + "/r.svg"), "aria-label=\"node: "), 19u);
}

// The HTML page opened from disk by a real browser: no errors, every figure rendered with one mark
// per point, each naming its node (Vega's tooltip text), and a screenshot that is not blank.
TEST(PlotRoofline, HtmlRendersInHeadlessChromium) {
  if (!test::chromium()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  auto dir = temp_dir();
  auto plot = run_ridge("plot roofline " + model_path("alexnet") + " -d h100-sxm -d t4 --with-training -o " + dir +
                        "/r.html -f json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  auto points = Json::parse(plot.out)["points"].get<size_t>();
  auto html = slurp(dir + "/r.html");
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org"));  // no fetches: everything inline
  auto page = test::render_page(dir + "/r.html", dir);
  ASSERT_TRUE(page.ok) << page.log;
  EXPECT_NE(page.body.find("data-figures=\"1\""), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("data-rendered=\"1\""), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("data-errors=\"0\""), std::string::npos) << page.body;
  EXPECT_EQ(count_of(page.dom, "aria-label=\"node: "), points);
  // 2 devices x (19 nodes with work in inference + the same 19 and the optimizer step in training).
  EXPECT_EQ(points, 2u * 19u + 2u * (19u + 1u));

  ASSERT_TRUE(test::screenshot(dir + "/r.html", dir + "/shot.png", 1200, 900, dir));
  auto [width, height] = png_size(dir + "/shot.png");
  EXPECT_EQ(width, 1200u);
  EXPECT_EQ(height, 900u);
  EXPECT_GT(distinct_colours(dir + "/shot.png"), 20);
}

}  // namespace
}  // namespace ridge::report::figure
