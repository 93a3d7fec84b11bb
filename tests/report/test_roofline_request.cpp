// `ridge plot roofline` as one call (report/figure/roofline_request): the points and ceilings it gathers, read back
// from the figure's data sets, and what it refuses, in process. Also the plotted numbers against what predict, bench
// and analyze print, the renderers' files written as `ridge plot` writes them (report/plot_report: SVG marks, PNG size
// and content, PDF), and the ceiling labels of rendered SVGs kept apart.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/request_builder.h"
#include "hw/device_db.h"
#include "hw/roofline.h"
#include "report/analysis_report.h"
#include "report/bench_request.h"
#include "report/figure/roofline_request.h"
#include "report/plot_report.h"
#include "report/predict_request.h"
#include "report/results_report.h"
#include "support/browser.h"
#include "support/error_text.h"
#include "support/figures_fixtures.h"
#include "support/files.h"
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

using fig::Json;
using figures_fixtures::row_where;

Json json_file(const std::string& path) { return Json::parse(slurp(path)); }

// `ridge plot roofline MODEL -d DEVICE... [--modes MODES]`.
fig::RooflinePlotRequest model_on(const std::string& model, std::vector<std::string> devices,
                                  const std::string& modes = "") {
  fig::RooflinePlotRequest r;
  r.model = analysis::make_request({.model = model});
  r.model_name = model;
  r.devices = std::move(devices);
  r.modes = modes;
  return r;
}

// The figure of `request` written to `path` (`width_px`: a PNG's width, 0: the default), and what `ridge plot ... -f
// json` prints then.
Json plotted(const fig::RooflinePlotRequest& request, const std::string& path, int width_px = 0) {
  auto plot = fig::roofline_plot(request);
  std::ostringstream out;
  report::write_plot(plot.figure, path, width_px, "json", plot.series, plot.source, out);
  return Json::parse(out.str());
}

// What `ridge predict MODEL -d DEVICE -f json` prints, kept as `store` says.
std::string predicted(const std::string& model, const std::string& device,
                      const report::StoreOptions& store = {.disabled = true}) {
  analysis::ModelOptions options{.model = model};
  std::ostringstream out;
  report::predict_and_keep({.model = analysis::make_request(options), .device = device}, "", options, "json", store,
                           out);
  return out.str();
}

// The plot's points are the nodes `ridge predict` prints, with the same FLOPs, bytes and time.
TEST(RooflineRequest, OnePointPerPredictedNodeWithThePrintedNumbers) {
  auto dir = temp_dir();
  auto spec_path = dir + "/alexnet-h100.vg.json";
  auto summary = plotted(model_on(model_path("alexnet"), {"h100-sxm"}), spec_path);
  auto prediction = Json::parse(predicted(model_path("alexnet"), "h100-sxm"));
  auto spec = json_file(spec_path);
  const auto& points = fig::data_values(spec, "points");
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
  EXPECT_EQ(fig::data_values(spec, "ceilings").size(), roofline.peak_flops.size() + roofline.bandwidth.size());
  // Equal ceilings share one label instead of printing two on one line (the H100's FP64 tensor and
  // FP32 vector peaks are both 66.9 TFLOP/s).
  ASSERT_EQ(roofline.peak_flops.at("fp32").value, roofline.peak_flops.at("fp64_tensor").value);
  EXPECT_EQ(row_where(fig::data_values(spec, "ceilings"), "key", "fp64_tensor")["text"], "");
  // Its line still says which ceiling it is when hovered: every line's tooltip names its own ceiling.
  for (const auto& row : fig::data_values(spec, "ceilings"))
    EXPECT_EQ(row["tip"].get<std::string>().rfind(row["key"].get<std::string>() + " ", 0), 0u) << row.dump();
  EXPECT_EQ(row_where(fig::data_values(spec, "ceilings"), "key", "fp64_tensor")["tip"],
            "fp64_tensor 66.9 TFLOP/s (datasheet)");
  size_t both = 0;
  for (const auto& row : fig::data_values(spec, "ceilings"))
    if (row["text"].get<std::string>().find("fp32") != std::string::npos &&
        row["text"].get<std::string>().find("fp64_tensor") != std::string::npos)
      ++both;
  EXPECT_EQ(both, 1u);
}

TEST(RooflineRequest, FromAPredictionJsonDrawsTheSamePoints) {
  auto dir = temp_dir();
  std::ofstream(dir + "/p.json") << predicted(model_path("alexnet"), "t4");
  plotted({.from = {dir + "/p.json"}}, dir + "/from.vg.json");
  plotted(model_on(model_path("alexnet"), {"t4"}), dir + "/live.vg.json");
  auto from = json_file(dir + "/from.vg.json"), live = json_file(dir + "/live.vg.json");
  EXPECT_EQ(fig::data_values(from, "points").size(), fig::data_values(live, "points").size());
  EXPECT_EQ(fig::data_values(from, "ceilings").size(), fig::data_values(live, "ceilings").size());
  for (size_t i = 0; i < fig::data_values(live, "points").size(); ++i)
    EXPECT_EQ(fig::data_values(from, "points")[i]["flops_per_s"], fig::data_values(live, "points")[i]["flops_per_s"]);
}

// Measured node times from `ridge bench -f json` become a series with the analysis' FLOPs and bytes.
TEST(RooflineRequest, MeasuredBenchTimesAreASeries) {
  auto dir = temp_dir();
  // `ridge bench MODEL --no-store --max-time 0.5 --min-runs 2 -f json`
  report::BenchCommand bench;
  bench.bench.model = analysis::make_request({.model = model_path("alexnet")});
  bench.bench.max_time_s = 0.5;
  bench.bench.min_runs = 2;
  std::ostringstream bench_out, bench_err;
  ASSERT_EQ(report::bench_and_keep(bench, "json", {.disabled = true}, bench_out, bench_err), 0) << bench_err.str();
  std::ofstream(dir + "/bench.json") << bench_out.str();
  auto request = model_on(model_path("alexnet"), {"t4"});
  request.measured = dir + "/bench.json";
  plotted(request, dir + "/m.vg.json");
  // `ridge analyze MODEL --no-store -f json`
  report::AnalyzeCommand analyze{.format = "json", .store = {.disabled = true}};
  analyze.model.model = model_path("alexnet");
  std::ostringstream analyzed;
  report::analyze_and_keep(analyze, analyzed);
  auto cost = Json::parse(analyzed.str());
  auto spec = json_file(dir + "/m.vg.json");
  auto run = Json::parse(bench_out.str())["runs"][0];
  size_t measured = 0;
  for (const auto& p : fig::data_values(spec, "points")) {
    if (p["time_kind"] != "measured") continue;
    ++measured;
    EXPECT_EQ(p["series"], "measured cpu eager fp32");
    const auto& node = row_where(run["nodes"], "name", p["name"].get<std::string>());
    EXPECT_DOUBLE_EQ(p["time_s"].get<double>(), node["mean_ms"].get<double>() / 1000);
    const auto& node_cost = row_where(cost["nodes"], "name", p["name"].get<std::string>());
    EXPECT_EQ(p["flops"].get<double>(), node_cost["flops"].get<double>());
    EXPECT_EQ(p["bytes"].get<double>(), node_cost["bytes"].get<double>());
  }
  EXPECT_EQ(measured, 19u);
  // A bench of another batch size does not match the model as bound: refused, not mixed.
  auto other = request;
  other.model = analysis::make_request({.model = model_path("alexnet"), .batch = 2});
  auto error = error_text([&] { plotted(other, dir + "/m2.vg.json"); });
  EXPECT_NE(error.find("no inference run at batch 2"), std::string::npos) << error;
}

// A stored prediction draws by id, like its printed JSON does.
TEST(RooflineRequest, AStoredPredictionDrawsById) {
  auto dir = temp_dir();
  auto store = dir + "/stored.db";
  predicted(model_path("alexnet"), "t4", {.path = store});
  std::ostringstream list;
  report::print_results({.store_path = store, .format = "json"}, list);
  auto listed = Json::parse(list.str());
  ASSERT_EQ(listed["results"].size(), 1u);
  auto id = listed["results"][0]["id"].get<int64_t>();
  EXPECT_EQ(plotted({.store_path = store, .results = {id}}, dir + "/stored.vg.json")["points"], 19);
  auto missing = error_text([&] { plotted({.store_path = store, .results = {99}}, dir + "/x.svg"); });
  EXPECT_NE(missing.find("no result 99"), std::string::npos) << missing;
}

TEST(RooflineRequest, SvgHasOneLabelledMarkPerPointAndPngHasTheRequestedWidth) {
  auto dir = temp_dir();
  auto points =
      plotted(model_on(model_path("alexnet"), {"jetson-agx-orin-64gb"}, "all"), dir + "/r.svg")["points"].get<size_t>();
  EXPECT_EQ(points, 19u * hw::find_device("jetson-agx-orin-64gb").modes.size());
  auto svg = slurp(dir + "/r.svg");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count_of(svg, "aria-label=\"node: "), points);  // every point names its node (the tooltip's text)

  plotted(model_on(model_path("alexnet"), {"t4"}), dir + "/r.png", 900);
  auto [width, height] = png_size(dir + "/r.png");
  EXPECT_EQ(width, 900u);
  EXPECT_GT(height, 300u);
  EXPECT_GT(distinct_colours(dir + "/r.png"), 20);  // lines, points, text: not blank

  plotted(model_on(model_path("alexnet"), {"t4"}), dir + "/r.pdf");
  EXPECT_EQ(slurp(dir + "/r.pdf").substr(0, 5), "%PDF-");
}

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
    // A label names its ceiling (or, merged, several ceilings of one value: "fp32, fp64_tensor 66.9 ..."), and each
    // line's tooltip its own: they share what follows the keys, " VALUE UNIT (LABEL)".
    size_t keys_end = 0;
    while ((keys_end = text.find(' ', keys_end + 1)) != std::string::npos && text[keys_end - 1] == ',') {
    }
    if (keys_end == std::string::npos) continue;
    bool ceiling = false;
    for (const auto& n : names) ceiling = ceiling || n.find(text.substr(keys_end)) != std::string::npos;
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
TEST(RooflineRequest, CeilingLabelsStayApartInTheSvg) {
  auto dir = temp_dir();
  plotted(model_on(model_path("resnet50"), {"h100-sxm"}), dir + "/d.svg");
  expect_labels_apart(slurp(dir + "/d.svg"), 9);
  const std::string h = source_path("bench/results/gpu-h100-2026-11-26-kernels/");
  plotted({.devices = {h + "gpu.yaml"}, .from = {h + "profile-resnet50.json"}, .hierarchical = true}, dir + "/h.svg");
  expect_labels_apart(slurp(dir + "/h.svg"), 10);
  plotted(model_on(model_path("resnet50"), {"h200"}), dir + "/h200.svg");
  expect_labels_apart(slurp(dir + "/h200.svg"), 9);
  plotted(model_on(model_path("alexnet"), {"jetson-agx-orin-64gb"}, "all"), dir + "/m.svg");
  // Six labels: four FLOP/s ceilings, and two bandwidths (the three modes at 205 GB/s share one line and one label).
  expect_labels_apart(slurp(dir + "/m.svg"), 6);
  EXPECT_EQ(count_of(slurp(dir + "/m.svg"), ">dram 205 GB/s (datasheet)</text>"), 1u);
  // A Xavier's modes: four bandwidths 6 to 9 pixels apart, too close for any label between them.
  plotted(model_on(model_path("alexnet"), {"jetson-agx-xavier"}, "all"), dir + "/x.svg");
  expect_labels_apart(slurp(dir + "/x.svg"), 8);
}

}  // namespace
}  // namespace ridge::test
