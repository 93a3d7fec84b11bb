// The study `ridge report` writes (report/study_report: the HTML page and the Markdown write-up), in process through
// gather_study and write_study, checked against what the other commands compute for the same model (analyze_and_keep),
// the device database and the stored results. tests/cli/test_study_report.cpp keeps the refusals as one line on
// stderr and the page rendered by headless Chromium, made through the binary.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/request_builder.h"
#include "hw/device_db.h"
#include "hw/roofline.h"
#include "report/analysis_report.h"
#include "report/bench_request.h"
#include "report/command_output.h"
#include "report/predict_request.h"
#include "report/result_import.h"
#include "report/study_output.h"
#include "report/study_request.h"
#include "store/store.h"
#include "support/browser.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/saved_invocation.h"
#include "support/scoped_env.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// A store with one bench result and one prediction of alexnet, made once per test process, each kept with the
// command line `ridge bench` / `ridge predict` would record for it.
const std::string& study_store() {
  static const std::string store = [] {
    auto path = fresh_dir("study-report-inprocess") + "/study.db";
    SavedInvocation saved;
    report::invocation().command_line = "ridge bench " + model_path("alexnet") + " --max-time 0.5 --store " + path;
    report::BenchCommand bench;
    bench.bench.model = analysis::make_request({.model = model_path("alexnet")});
    bench.bench.max_time_s = 0.5;
    std::ostringstream out, err;
    EXPECT_EQ(report::bench_and_keep(bench, "table", {.path = path}, out, err), 0) << err.str();
    report::invocation().command_line = "ridge predict " + model_path("alexnet") + " -d h100-sxm --store " + path;
    analysis::ModelOptions model{.model = model_path("alexnet")};
    report::predict_and_keep({.model = analysis::make_request(model), .device = "h100-sxm"}, "", model, "table",
                             {.path = path}, out);
    return path;
  }();
  return store;
}

// The request of `ridge report [MODEL] [-d DEVICE]... [--modes MODES] --store STORE`, as the CLI makes it.
report::StudyRequest study_request(const std::string& model, const std::vector<std::string>& devices,
                                   const std::string& modes, const std::string& store) {
  report::StudyRequest r;
  r.model_name = model;
  if (!model.empty()) r.model = analysis::make_request({.model = model});
  r.devices = devices;
  r.modes = modes;
  r.store_path = store;
  r.store_required = true;  // --store names it
  return r;
}

// The HTML of `ridge report alexnet [-d DEVICE]... [--modes MODES] --store STUDY -o FILE`.
std::string report_html(const std::vector<std::string>& devices = {}, const std::string& modes = "") {
  static int n = 0;
  auto out = temp_dir() + "/study-report-inprocess-" + std::to_string(++n) + ".html";
  auto written =
      report::write_study(report::gather_study(study_request(model_path("alexnet"), devices, modes, study_store())),
                          {.html = out}, [](const std::string&) {});
  EXPECT_TRUE(written.errors.empty()) << written.errors.front();
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
  auto html = report_html({"h100-sxm", "jetson-agx-orin-64gb"}, "all");
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
  // `ridge analyze alexnet -f json --no-store`
  report::AnalyzeCommand analyze{.model = {.model = model_path("alexnet")}, .format = "json"};
  analyze.store.disabled = true;
  std::ostringstream printed;
  report::analyze_and_keep(analyze, printed);
  auto totals = Json::parse(printed.str()).at("totals");
  auto html = report_html();
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
  auto html = report_html({"h100-sxm"});
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
  auto html = report_html({"h100-sxm"});
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
  auto stored = store::Store(study_store(), true).query({});
  ASSERT_EQ(stored.size(), 2u);
  auto html = report_html();
  auto table = between(html, "data-key=\"run_matrix\"", "</table>");
  auto body = between(table, "<tbody>", "</tbody>");
  EXPECT_EQ(count_of(body, "<tr>"), static_cast<int>(stored.size()));
  for (const auto& r : stored) {
    EXPECT_NE(body.find("<td class=\"num\" data-value=\"" + std::to_string(r.id) + "\">"), std::string::npos);
    EXPECT_NE(body.find(">" + r.command + "<"), std::string::npos);
  }
  EXPECT_NE(body.find("--max-time 0.5"), std::string::npos);  // the command line that ran it
}

TEST(StudyReport, MarkdownWriteUpWithPngFigures) {
  auto dir = temp_dir() + "/study-md-inprocess";
  std::vector<std::string> progress;
  auto written =
      report::write_study(report::gather_study(study_request(model_path("alexnet"), {"h100-sxm"}, "", study_store())),
                          {.markdown_dir = dir}, [&](const std::string& line) { progress.push_back(line); });
  ASSERT_TRUE(written.errors.empty()) << written.errors.front();
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
    auto size = png_size(dir + "/fig-" + std::to_string(i) + ".png");
    EXPECT_GT(size.first, 0u) << i;
    EXPECT_GT(size.second, 0u) << i;
  }
  EXPECT_GE(figures, 1);
  ASSERT_FALSE(progress.empty());
  EXPECT_NE(progress.front().find("figure 1/"), std::string::npos) << progress.front();  // one line per figure
}

// The renderer (node) is looked for on PATH when a figure is rendered: none there, the write-up and the figures'
// specifications are kept and each figure not rendered is named with what to install.
TEST(StudyReport, MissingRendererKeepsTheSpecsAndFails) {
  auto dir = temp_dir() + "/study-no-renderer-inprocess";
  auto study = report::gather_study(study_request(model_path("alexnet"), {"h100-sxm"}, "", study_store()));
  ScopedEnvironment path("PATH", temp_dir() + "/no-such-dir");
  auto written = report::write_study(study, {.markdown_dir = dir}, [](const std::string&) {});
  EXPECT_TRUE(fs::exists(dir + "/report.md"));
  EXPECT_TRUE(fs::exists(dir + "/fig-1.vg.json"));
  std::string errors;
  for (const auto& line : written.errors) errors += line + "\n";
  EXPECT_NE(errors.find("fig-1.png: "), std::string::npos) << errors;
  EXPECT_NE(errors.find("nodejs"), std::string::npos) << errors;  // what to install
}

TEST(StudyReport, StoredResultsAloneMakeAReport) {
  auto out = temp_dir() + "/stored-only-inprocess.html";
  auto request = study_request("", {}, "", study_store());
  request.filter.command = "bench";
  auto written = report::write_study(report::gather_study(request), {.html = out}, [](const std::string&) {});
  ASSERT_TRUE(written.errors.empty()) << written.errors.front();
  auto html = slurp(out);
  auto matrix = between(between(html, "data-key=\"run_matrix\"", "</table>"), "<tbody>", "</tbody>");
  EXPECT_EQ(count_of(matrix, "<tr>"), 1);
  EXPECT_NE(html.find("No MODEL was given"), std::string::npos);
  EXPECT_NE(html.find("data-key=\"measurements\""), std::string::npos);
}

// A study of GPU runs imported from the real H200 file (tests/data/bench/h200): the environment is the GPU's that
// measured, and the notes four runs share are said once each, with the runs' ids (22 lines become 9).
TEST(StudyReport, ImportedGpuRunsWithTheirEnvironmentAndGroupedWarnings) {
  auto dir = fresh_dir("study-gpu-inprocess");
  auto store = dir + "/gpu.db";
  report::import_into_store({source_path("tests/data/bench/h200/ridge-bench-resnet50.json")}, store,
                            [](const std::string&) {});
  auto written = report::write_study(report::gather_study(study_request("", {}, "", store)),
                                     {.html = dir + "/report.html"}, [](const std::string&) {});
  ASSERT_TRUE(written.errors.empty()) << written.errors.front();
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
  auto paired = report::write_study(
      report::gather_study(study_request(source_path("models/resnet50.onnx"), {"h200", "h100-sxm"}, "", store)),
      {.html = dir + "/paired.html"}, [](const std::string&) {});
  ASSERT_TRUE(paired.errors.empty()) << paired.errors.front();
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
