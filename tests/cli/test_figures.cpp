// `ridge plot roofline` through the binary: the plotted numbers against what the commands print, the
// renderers' files (SVG marks, PNG size and content), and the HTML page opened in a real headless Chromium.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <regex>
#include <set>
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

namespace ridge::report::figure {
namespace {

// The ceiling labels of a rendered roofline, read from its SVG: each label's box from its anchor, alignment, angle,
// font size and text (sans-serif at about 0.6 em per character, 0.8 em above the baseline and 0.2 below), and each
// ceiling's line. A label along a slanted line is rotated, so its box is kept in its own frame: `along` from the
// anchor in the text's direction (cos, sin of the angle), `across` downwards from the baseline.
struct DrawnLabel {
  std::string text;
  double ax, ay, ux, uy;
  double along0, along1, across0, across1;
  // Whether pixel (x, y) is inside the box.
  bool covers(double x, double y) const {
    double along = (x - ax) * ux + (y - ay) * uy, across = -(x - ax) * uy + (y - ay) * ux;
    return along > along0 && along < along1 && across > across0 && across < across1;
  }
  std::vector<std::pair<double, double>> corners() const {
    std::vector<std::pair<double, double>> out;
    for (double along : {along0, along1})
      for (double across : {across0, across1})
        out.emplace_back(ax + along * ux - across * uy, ay + along * uy + across * ux);
    return out;
  }
};
struct DrawnLine {
  std::string text;
  double x0, y0, x1, y1;
};

std::pair<std::vector<DrawnLabel>, std::vector<DrawnLine>> ceiling_labels(const std::string& svg) {
  std::vector<DrawnLine> lines;
  const std::regex line_re(
      R"re(<line aria-label="ceiling: ([^;"]+);[^>]*transform="translate\(([-0-9.e]+),([-0-9.e]+)\)" x2="([-0-9.e]+)" y2="([-0-9.e]+)")re");
  for (std::sregex_iterator it(svg.begin(), svg.end(), line_re), end; it != end; ++it) {
    double x = std::stod((*it)[2]), y = std::stod((*it)[3]);
    lines.push_back({(*it)[1], x, y, x + std::stod((*it)[4]), y + std::stod((*it)[5])});
  }
  std::set<std::string> names;
  for (const auto& l : lines) names.insert(l.text);
  std::vector<DrawnLabel> labels;
  const std::regex text_re(
      R"re(<text text-anchor="(start|end)" transform="translate\(([-0-9.e]+),([-0-9.e]+)\)(?: rotate\(([-0-9.e]+)\))?"[^>]*font-size="([0-9.]+)px"[^>]*>([^<]+)</text>)re");
  for (std::sregex_iterator it(svg.begin(), svg.end(), text_re), end; it != end; ++it) {
    std::string text = (*it)[6];
    if (text.find(" (") == std::string::npos) continue;  // axis ticks and titles
    // A label names its ceiling (or, merged, several ceilings of one value: "fp32, fp64_tensor 66.9 ...").
    bool ceiling = false;
    for (const auto& n : names) ceiling = ceiling || n.find(text.substr(text.find(' '))) != std::string::npos;
    if (!ceiling) continue;
    double x = std::stod((*it)[2]), y = std::stod((*it)[3]), em = std::stod((*it)[5]);
    double angle = (*it)[4].matched ? std::stod((*it)[4]) * std::numbers::pi / 180 : 0;
    double w = 0.6 * em * static_cast<double>(text.size());
    bool end_anchored = (*it)[1] == "end";
    labels.push_back({text, x, y, std::cos(angle), std::sin(angle), end_anchored ? -w : 0, end_anchored ? 0 : w,
                      -0.8 * em, 0.2 * em});
  }
  return {labels, lines};
}

bool crosses(const DrawnLine& l, const DrawnLabel& b) {
  for (int i = 0; i <= 400; ++i) {
    double t = i / 400.0;
    if (b.covers(l.x0 + t * (l.x1 - l.x0), l.y0 + t * (l.y1 - l.y0))) return true;
  }
  return false;
}

// Two boxes overlap unless one of their four edge directions separates them.
bool overlap(const DrawnLabel& a, const DrawnLabel& b) {
  auto ca = a.corners(), cb = b.corners();
  for (auto axis : {std::pair{a.ux, a.uy}, {-a.uy, a.ux}, {b.ux, b.uy}, {-b.uy, b.ux}}) {
    const double ux = axis.first, uy = axis.second;  // clang before 16 cannot capture a structured binding
    auto span = [&](const std::vector<std::pair<double, double>>& cs) {
      double lo = 1e300, hi = -1e300;
      for (auto [x, y] : cs) lo = std::min(lo, x * ux + y * uy), hi = std::max(hi, x * ux + y * uy);
      return std::pair{lo, hi};
    };
    auto [alo, ahi] = span(ca);
    auto [blo, bhi] = span(cb);
    if (ahi <= blo || bhi <= alo) return false;
  }
  return true;
}

// No label over another, and none crossed by a ceiling's line: its own (it would not say which side it labels) or
// another's (it would read as that line's label).
void expect_labels_apart(const std::string& svg, size_t at_least) {
  auto [labels, lines] = ceiling_labels(svg);
  ASSERT_GE(labels.size(), at_least);
  ASSERT_FALSE(lines.empty());
  for (size_t i = 0; i < labels.size(); ++i) {
    const auto& a = labels[i];
    for (size_t j = i + 1; j < labels.size(); ++j) {
      const auto& b = labels[j];
      EXPECT_FALSE(overlap(a, b)) << a.text << " over " << b.text;
    }
    for (const auto& l : lines) {
      bool own = l.text == a.text || l.text.find(a.text.substr(a.text.find(' '))) != std::string::npos;
      EXPECT_FALSE(crosses(l, a)) << a.text << " crossed by " << (own ? "its own line" : "the line of " + l.text);
    }
  }
}

// Ceiling labels never overlap each other nor are crossed by any ceiling's line: the H100's datasheet roofline (nine
// ceilings, two pairs of equal ones) and its measured one (seven compute ceilings, two pairs within a pixel of each
// other) under ResNet-50, the H200's (whose L2 and DRAM bandwidths lie about ten pixels apart: a label between them
// was crossed), a Jetson Orin's four power modes (three of them with one DRAM bandwidth, drawn over each other) and
// a Xavier's eight.
TEST(PlotRoofline, CeilingLabelsStayApartInTheSvg) {
  auto dir = temp_dir();
  auto datasheet = run_ridge("plot roofline " + model_path("resnet50") + " -d h100-sxm -o " + dir + "/d.svg");
  ASSERT_EQ(datasheet.exit_code, 0) << datasheet.err;
  expect_labels_apart(slurp(dir + "/d.svg"), 9);
  const std::string h = test::source_path("bench/results/gpu-h100-2026-11-26-kernels/");
  auto r = run_ridge("plot roofline --from " + h + "profile-resnet50.json --hierarchical -d " + h + "gpu.yaml -o " +
                     dir + "/h.svg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_labels_apart(slurp(dir + "/h.svg"), 10);
  auto h200 = run_ridge("plot roofline " + model_path("resnet50") + " -d h200 -o " + dir + "/h200.svg");
  ASSERT_EQ(h200.exit_code, 0) << h200.err;
  expect_labels_apart(slurp(dir + "/h200.svg"), 9);
  auto modes =
      run_ridge("plot roofline " + model_path("alexnet") + " -d jetson-agx-orin-64gb --modes all -o " + dir + "/m.svg");
  ASSERT_EQ(modes.exit_code, 0) << modes.err;
  // Six labels: four FLOP/s ceilings, and two bandwidths (the three modes at 205 GB/s share one line and one label).
  expect_labels_apart(slurp(dir + "/m.svg"), 6);
  EXPECT_EQ(count_of(slurp(dir + "/m.svg"), ">dram 205 GB/s (datasheet)</text>"), 1u);
  // A Xavier's modes: four bandwidths 6 to 9 pixels apart, too close for any label between them.
  auto xavier =
      run_ridge("plot roofline " + model_path("alexnet") + " -d jetson-agx-xavier --modes all -o " + dir + "/x.svg");
  ASSERT_EQ(xavier.exit_code, 0) << xavier.err;
  expect_labels_apart(slurp(dir + "/x.svg"), 8);
}

}  // namespace
}  // namespace ridge::report::figure
