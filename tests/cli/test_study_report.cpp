// `ridge report`: the HTML page and the Markdown write-up, checked against what the other commands
// print for the same model, the device database and the stored results.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hw/device_db.h"
#include "hw/roofline.h"
#include "support/browser.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A store with one bench result and one prediction of alexnet, made once per test process.
const std::string& study_store() {
  static const std::string store = [] {
    auto path = temp_dir() + "/study.db";
    auto bench = run_ridge("bench " + model_path("alexnet") + " --max-time 0.5 --store " + path);
    EXPECT_EQ(bench.exit_code, 0) << bench.err;
    auto predict = run_ridge("predict " + model_path("alexnet") + " -d h100-sxm --store " + path);
    EXPECT_EQ(predict.exit_code, 0) << predict.err;
    return path;
  }();
  return store;
}

// The HTML of `ridge report alexnet ARGS --store STUDY -o FILE`.
std::string report_html(const std::string& args) {
  static int n = 0;
  auto out = temp_dir() + "/report-" + std::to_string(++n) + ".html";
  auto r = run_ridge("report " + model_path("alexnet") + " " + args + " --store " + study_store() + " -o " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return slurp(out);
}

// The part of `html` from the element opening with `start` to the next `end`.
std::string between(const std::string& html, const std::string& start, const std::string& end) {
  auto at = html.find(start);
  if (at == std::string::npos) return "";
  auto stop = html.find(end, at);
  return html.substr(at, stop == std::string::npos ? std::string::npos : stop - at);
}

// The data-value of the record row `key` inside `table`.
std::string record_value(const std::string& table, const std::string& key) {
  auto row = between(table, "<tr data-key=\"" + key + "\">", "</tr>");
  auto at = row.find("data-value=\"");
  if (at == std::string::npos) return "";
  at += 12;
  return row.substr(at, row.find('"', at) - at);
}

// Every figure specification embedded in the page.
std::vector<Json> specs_of(const std::string& html) {
  std::vector<Json> out;
  const std::string open = "class=\"ridge-spec\"";
  for (auto at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    auto begin = html.find('>', at) + 1;
    auto end = html.find("</script>", begin);
    out.push_back(Json::parse(html.substr(begin, end - begin)));
  }
  return out;
}

const Json* data_set(const Json& spec, const std::string& name) {
  for (const auto& d : spec.at("data"))
    if (d.value("name", "") == name) return &d.at("values");
  return nullptr;
}

TEST(StudyReport, HtmlHasOneContainerPerFigureAndThePageScripts) {
  auto html = report_html("-d h100-sxm -d jetson-agx-orin-64gb --modes all");
  auto specs = specs_of(html);
  ASSERT_GE(specs.size(), 2u);  // a roofline per device, at least
  EXPECT_EQ(count_of(html, "<figure class=\"ridge-figure\""), static_cast<int>(specs.size()));
  for (size_t i = 1; i <= specs.size(); ++i)
    EXPECT_NE(html.find("id=\"figure-" + std::to_string(i) + "\""), std::string::npos) << i;
  // The page renders and reports itself for headless checks, with Vega inlined (no network).
  for (const char* marker : {"data-figures", "data-rendered", "data-errors", "data-done", "new vega.View"})
    EXPECT_NE(html.find(marker), std::string::npos) << marker;
  EXPECT_EQ(html.find("<script src="), std::string::npos);
  EXPECT_EQ(html.find("<link "), std::string::npos);
  // Tables sort on a header click, numerically on numeric columns.
  EXPECT_NE(html.find("table.sortable"), std::string::npos);
  EXPECT_NE(html.find("sorted-asc"), std::string::npos);
  EXPECT_NE(html.find("parseFloat"), std::string::npos);
  EXPECT_NE(html.find("<table class=\"sortable\" data-key=\"nodes\""), std::string::npos);
  // The power modes of one device are series of its roofline.
  std::set<std::string> series;
  for (const auto& spec : specs)
    if (const auto* ceilings = data_set(spec, "ceilings"))
      for (const auto& c : *ceilings) series.insert(c.at("series").get<std::string>());
  auto orin = hw::find_device("jetson-agx-orin-64gb");
  for (const auto& m : orin.modes) EXPECT_TRUE(series.count("jetson-agx-orin-64gb " + m.name)) << m.name;
}

TEST(StudyReport, AnalysisTotalsEqualThoseAnalyzePrints) {
  auto analyze = run_ridge("analyze " + model_path("alexnet") + " -f json --no-store");
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  auto totals = Json::parse(analyze.out).at("totals");
  auto html = report_html("");
  auto table = between(html, "data-key=\"totals\"", "</table>");
  ASSERT_FALSE(table.empty());
  for (const char* key : {"flops", "macs", "params", "bytes", "activation_bytes_read", "weight_bytes_read",
                          "bytes_written", "bytes_fused", "bytes_min", "weight_bytes", "peak_activation_bytes"})
    EXPECT_EQ(record_value(table, key), std::to_string(totals.at(key).get<int64_t>())) << key;
  EXPECT_DOUBLE_EQ(std::stod(record_value(table, "intensity")), totals.at("intensity").get<double>());
  // People read the same numbers formatted: 1.43 G FLOPs for alexnet.
  EXPECT_NE(table.find(">1.43 G<"), std::string::npos);
  EXPECT_NE(table.find("peak activation memory"), std::string::npos);
}

TEST(StudyReport, RooflineCeilingsAreTheDevicesRoofline) {
  auto html = report_html("-d h100-sxm");
  auto device = hw::find_device("h100-sxm");
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, ""));
  const Json* ceilings = nullptr;
  auto specs = specs_of(html);
  for (const auto& spec : specs)
    if (const auto* c = data_set(spec, "ceilings")) ceilings = c;
  ASSERT_NE(ceilings, nullptr);
  auto find = [&](const std::string& key, const std::string& kind) -> const Json* {
    for (const auto& c : *ceilings)
      if (c.at("key") == key && c.at("kind") == kind) return &c;
    return nullptr;
  };
  size_t expected = 0;
  for (const auto& [key, c] : roofline.peak_flops) {
    if (c.value <= 0) continue;
    ++expected;
    const auto* drawn = find(key, "compute");
    ASSERT_NE(drawn, nullptr) << key;
    EXPECT_DOUBLE_EQ(drawn->at("value").get<double>(), c.value) << key;
  }
  for (const auto& [key, c] : roofline.bandwidth) {
    if (c.value <= 0) continue;
    ++expected;
    const auto* drawn = find(key, "memory");
    ASSERT_NE(drawn, nullptr) << key;
    EXPECT_DOUBLE_EQ(drawn->at("value").get<double>(), c.value) << key;
  }
  EXPECT_EQ(ceilings->size(), expected);
  // The model's predicted layers are its points.
  bool points = false;
  for (const auto& spec : specs)
    if (const auto* p = data_set(spec, "points"); p && !p->empty()) points = true;
  EXPECT_TRUE(points);
}

TEST(StudyReport, WarnsOfRandomWeightsAndUncalibratedPredictions) {
  auto html = report_html("-d h100-sxm");
  auto warnings = between(html, "<section id=\"warnings\">", "</section>");
  EXPECT_NE(warnings.find("RANDOM weights"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("prediction h100-sxm"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("uncalibrated"), std::string::npos) << warnings;
  // The runs were measured on this machine's CPU: an H100's prediction is not their pair, and the section says so.
  auto accuracy = between(html, "<section id=\"accuracy\">", "</section>");
  EXPECT_EQ(accuracy.find("data-key=\"predicted_vs_measured\""), std::string::npos) << accuracy;
  EXPECT_NE(accuracy.find("for the hardware that measured it"), std::string::npos) << accuracy;
  EXPECT_NE(accuracy.find("are for other hardware: not paired"), std::string::npos) << accuracy;
}

TEST(StudyReport, RunMatrixListsEveryStoredResult) {
  auto results = run_ridge("results --store " + study_store() + " -f json");
  ASSERT_EQ(results.exit_code, 0) << results.err;
  auto stored = Json::parse(results.out).at("results");
  ASSERT_EQ(stored.size(), 2u);
  auto html = report_html("");
  auto table = between(html, "data-key=\"run_matrix\"", "</table>");
  auto body = between(table, "<tbody>", "</tbody>");
  EXPECT_EQ(count_of(body, "<tr>"), static_cast<int>(stored.size()));
  for (const auto& r : stored) {
    EXPECT_NE(body.find("<td class=\"num\" data-value=\"" + std::to_string(r.at("id").get<int64_t>()) + "\">"),
              std::string::npos);
    EXPECT_NE(body.find(">" + r.at("command").get<std::string>() + "<"), std::string::npos);
  }
  EXPECT_NE(body.find("--max-time 0.5"), std::string::npos);  // the command line that ran it
}

TEST(StudyReport, MarkdownWriteUpWithPngFigures) {
  auto dir = temp_dir() + "/study-md";
  auto r =
      run_ridge("report " + model_path("alexnet") + " -d h100-sxm --store " + study_store() + " --markdown " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto md = slurp(dir + "/report.md");
  for (const char* heading :
       {"## Warnings", "## 1. Experiment design", "### Environment", "### Run matrix", "## 2. Complexity (analysis)",
        "## 3. Measurement", "## 4. Roofline", "### Predicted against measured", "## 5. Analysis"})
    EXPECT_NE(md.find(std::string("\n") + heading + "\n"), std::string::npos) << heading;
  EXPECT_NE(md.find("> _Your interpretation:"), std::string::npos);
  EXPECT_NE(md.find("| FLOPs | 1.43 G | 1430080104 |"), std::string::npos);
  EXPECT_NE(md.find("RANDOM weights"), std::string::npos);
  int figures = 0;
  for (int i = 1; md.find("](fig-" + std::to_string(i) + ".png)") != std::string::npos; ++i) {
    ++figures;
    auto [width, height] = png_size(dir + "/fig-" + std::to_string(i) + ".png");
    EXPECT_GT(width, 0u) << i;
    EXPECT_GT(height, 0u) << i;
  }
  EXPECT_GE(figures, 1);
  EXPECT_NE(r.err.find("figure 1/"), std::string::npos) << r.err;  // progress, one line per figure
}

TEST(StudyReport, MissingRendererKeepsTheSpecsAndFails) {
  auto dir = temp_dir() + "/study-no-renderer";
  auto r = run_ridge("report " + model_path("alexnet") + " -d h100-sxm --store " + study_store() + " --markdown " + dir,
                     "PATH=" + temp_dir() + "/no-such-dir");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(fs::exists(dir + "/report.md"));
  EXPECT_TRUE(fs::exists(dir + "/fig-1.vg.json"));
  EXPECT_NE(r.err.find("fig-1.png: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nodejs"), std::string::npos) << r.err;  // what to install
}

TEST(StudyReport, NothingToReportIsOneLine) {
  auto empty = run_ridge("report --store " + study_store() + " --id 999 -o " + temp_dir() + "/none.html");
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.err.find("nothing to report"), std::string::npos) << empty.err;
  EXPECT_EQ(count_of(empty.err, "\n"), 1) << empty.err;
  EXPECT_FALSE(fs::exists(temp_dir() + "/none.html"));
  auto no_store = run_ridge("report -o " + temp_dir() + "/none.html", "RIDGE_STORE=" + temp_dir() + "/missing.db");
  EXPECT_EQ(no_store.exit_code, 1);
  EXPECT_NE(no_store.err.find("nothing to report"), std::string::npos) << no_store.err;
  EXPECT_FALSE(fs::exists(temp_dir() + "/missing.db"));
  auto no_output = run_ridge("report " + model_path("alexnet") + " --store " + study_store());
  EXPECT_EQ(no_output.exit_code, 1);
  EXPECT_NE(no_output.err.find("-o report.html"), std::string::npos) << no_output.err;
}

TEST(StudyReport, StoredResultsAloneMakeAReport) {
  auto out = temp_dir() + "/stored-only.html";
  auto r = run_ridge("report --store " + study_store() + " --command bench -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto html = slurp(out);
  auto matrix = between(between(html, "data-key=\"run_matrix\"", "</table>"), "<tbody>", "</tbody>");
  EXPECT_EQ(count_of(matrix, "<tr>"), 1);
  EXPECT_NE(html.find("No MODEL was given"), std::string::npos);
  EXPECT_NE(html.find("data-key=\"measurements\""), std::string::npos);
}

// The page as a reader gets it: opened from disk by headless Chromium, every figure renders (one mark
// per point of its data), no script error, and the screenshot is not blank.
TEST(StudyReport, RendersInHeadlessChromium) {
  if (!chromium()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  auto dir = temp_dir() + "/browser";
  fs::create_directories(dir);
  auto out = dir + "/report.html";
  auto r = run_ridge("report " + model_path("alexnet") + " -d jetson-agx-orin-64gb --modes all --store " +
                     study_store() + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto specs = specs_of(slurp(out));
  ASSERT_GE(specs.size(), 3u);  // the roofline and the stored results' figures
  auto page = render_page(out, dir);
  ASSERT_TRUE(page.ok) << page.log;
  auto figures = std::to_string(specs.size());
  EXPECT_NE(page.body.find("data-figures=\"" + figures + "\""), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("data-rendered=\"" + figures + "\""), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("data-errors=\"0\""), std::string::npos) << page.body;
  // The roofline's points are drawn, each naming its node (the text of its tooltip).
  size_t roofline_points = 0, energy_points = 0;
  for (const auto& spec : specs)
    for (const auto& data : spec["data"]) {
      if (data["name"] != "points") continue;
      auto title = spec["title"]["text"].get<std::string>();
      if (title.rfind("Roofline", 0) == 0) roofline_points += data["values"].size();
      if (title.rfind("Energy roofline", 0) == 0) energy_points += data["values"].size();
    }
  EXPECT_EQ(roofline_points, 4u * 19u);  // 4 power modes x AlexNet's 19 nodes with work
  EXPECT_EQ(energy_points, 19u);         // the energy roofline: the first mode's nodes on every mode's curve
  EXPECT_EQ(count_of(page.dom, "aria-label=\"node: "), roofline_points + energy_points);
  EXPECT_NE(page.dom.find("<svg"), std::string::npos);
  ASSERT_TRUE(screenshot(out, dir + "/shot.png", 1200, 2400, dir));
  auto [width, height] = png_size(dir + "/shot.png");
  EXPECT_EQ(width, 1200u);
  EXPECT_EQ(height, 2400u);
  EXPECT_GT(distinct_colours(dir + "/shot.png"), 50);
}

// A study of GPU runs imported from the real H200 file (tests/data/bench/h200): the environment is the GPU's that
// measured, and the notes four runs share are said once each, with the runs' ids (22 lines become 9).
TEST(StudyReport, ImportedGpuRunsWithTheirEnvironmentAndGroupedWarnings) {
  auto dir = temp_dir() + "/study-gpu";
  fs::create_directories(dir);
  auto store = dir + "/gpu.db";
  ASSERT_EQ(run_ridge("results import " + source_path("tests/data/bench/h200/ridge-bench-resnet50.json") + " --store " +
                      store)
                .exit_code,
            0);
  auto r = run_ridge("report --store " + store + " -o " + dir + "/report.html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto html = slurp(dir + "/report.html");
  auto environment = between(html, "<section id=\"environment\">", "</section>");
  EXPECT_NE(environment.find("cuda:0 NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)"), std::string::npos) << environment;
  EXPECT_NE(environment.find("6564498"), std::string::npos) << environment;
  auto warnings = between(html, "<section id=\"warnings\">", "</section>");
  auto count = [&](const std::string& text) {
    size_t n = 0;
    for (auto at = warnings.find(text); at != std::string::npos; at = warnings.find(text, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("inputs generated"), 1u) << warnings;
  EXPECT_EQ(count("results 1, 2, 3, 4 (bench): inputs generated"), 1u) << warnings;
  EXPECT_EQ(count("wall clock per run"), 1u) << warnings;  // four figures, one kind
  EXPECT_NE(warnings.find("figures differ between them"), std::string::npos) << warnings;
  EXPECT_EQ(count("result 1 (bench)"), 0u) << warnings;
  EXPECT_LE(count("<li class=\"warning\">"), 10u) << warnings;

  // With ResNet-50 predicted for the H200 and an H100 at batch 1: the H200's prediction pairs with both batch-1 runs
  // (eager and cuda-graph: a roofline bound is for any mode), the H100's with none.
  auto paired = run_ridge("report " + source_path("models/resnet50.onnx") + " -d h200 -d h100-sxm --store " + store +
                          " -o " + dir + "/paired.html");
  ASSERT_EQ(paired.exit_code, 0) << paired.err;
  auto pairs = between(slurp(dir + "/paired.html"), "<section id=\"accuracy\">", "</section>");
  auto rows = between(between(pairs, "data-key=\"predicted_vs_measured\"", "</table>"), "<tbody>", "</tbody>");
  EXPECT_EQ(count_of(rows, "<tr>"), 2) << rows;
  EXPECT_NE(rows.find("h200 default"), std::string::npos) << rows;
  EXPECT_EQ(rows.find("h100"), std::string::npos) << rows;
  EXPECT_NE(pairs.find("2 prediction(s) of the same model and batch are for other hardware"), std::string::npos)
      << pairs;
}

}  // namespace
}  // namespace ridge::test
