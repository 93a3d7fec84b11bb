// report/results_report in process: merging stores (`ridge store merge`), each result once, line by line; and
// `ridge results --show` and `--export` of what a filter selects. Also the stores the commands that keep their results
// (analyze, predict, bench: report/*_and_keep) fill, listed, shown and exported as `ridge results` does, and the files
// `ridge results import` brings in (report/result_import) read back through the list.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/analysis_report.h"
#include "report/bench_request.h"
#include "report/command_output.h"
#include "report/document_codec.h"
#include "report/predict_request.h"
#include "report/result_import.h"
#include "report/results_report.h"
#include "report/study_output.h"
#include "report/study_request.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/saved_invocation.h"
#include "support/scoped_env.h"

namespace ridge::test {
namespace {

TEST(ResultsReport, MergeCopiesEachResultOnceLineByLine) {
  auto dir = std::filesystem::path(temp_dir()) / "results-report-merge";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto a = (dir / "a.db").string(), b = (dir / "b.db").string(), out = (dir / "out.db").string();
  for (const auto& [path, count] : {std::pair{a, 2}, std::pair{b, 1}}) {
    store::Store s(path);
    for (int i = 0; i < count; ++i) {
      store::Record r;
      r.command = "bench";
      r.status = "ok";
      s.save(r);
    }
  }
  std::vector<std::string> lines;
  auto line = [&](const std::string& text) { lines.push_back(text); };
  report::merge_stores({a, b}, out, line);
  EXPECT_EQ(lines, (std::vector<std::string>{a + ": 2 results, 2 added, 0 already in " + out,
                                             b + ": 1 results, 1 added, 0 already in " + out,
                                             out + " now holds 3 results (3 added)"}));
  lines.clear();
  report::merge_stores({b}, out, line);  // again: nothing added
  EXPECT_EQ(lines.back(), out + " now holds 3 results (0 added)");
  EXPECT_EQ(report::holds_line("x.db", 1, 1), "x.db now holds 1 result (1 added)");
}

// A store with an ok analyze result (its document says "hello"), a failed bench cell and an ok predict result.
std::string three_results(const std::string& name) {
  auto dir = std::filesystem::path(temp_dir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto path = (dir / "ridge.db").string();
  store::Store s(path);
  report::Document doc;
  doc.command = "analyze";
  doc.field("greeting", "greeting", "hello", "hello");
  store::Record analyze{.command = "analyze", .status = "ok"}, failed{.command = "bench", .status = "failed"},
      predict{.command = "predict", .status = "ok"};
  analyze.document = report::encode_document(doc);
  analyze.environment.created_at = "2026-11-27T10:00:00Z";
  failed.error = "out of memory";
  doc.command = "predict";
  predict.document = report::encode_document(doc);
  s.save(analyze);
  s.save(failed);
  s.save(predict);
  return path;
}

TEST(ResultsReport, ShowPrintsEachSelectedDocumentAfterItsLine) {
  report::ResultsRequest r{.store_path = three_results("results-report-show"), .show = true};
  r.filter.ids = {1, 2};
  std::ostringstream table;
  report::print_results(r, table);
  auto text = table.str();
  EXPECT_EQ(text.rfind("result 1 (analyze, 2026-11-27T10:00:00Z):\n", 0), 0u) << text;
  EXPECT_NE(text.find("hello"), std::string::npos) << text;
  EXPECT_NE(text.find("result 2: bench failed: out of memory\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("predict"), std::string::npos) << "result 3 was not selected: " << text;
  r.format = "json";  // no line before a document a program reads
  r.filter.ids = {1};
  std::ostringstream json;
  report::print_results(r, json);
  EXPECT_EQ(json.str().find("result 1"), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"hello\""), std::string::npos) << json.str();
}

TEST(ResultsReport, ShowAndExportRefuseWhatSelectsNothing) {
  report::ResultsRequest r{.store_path = three_results("results-report-none"), .show = true};
  r.filter.command = "compare";
  std::ostringstream out;
  EXPECT_EQ(error_text([&] { report::print_results(r, out); }), "no stored result matches");
  r.show = false;
  r.export_dir = temp_dir() + "/results-report-none/export";
  r.filter.command.clear();  // no bench result is ok: nothing to export
  EXPECT_EQ(error_text([&] { report::print_results(r, out); }), "no stored bench result matches: nothing to export");
  EXPECT_EQ(out.str(), "");
  r.export_dir.clear();  // the list
  report::print_results(r, out);
  EXPECT_NE(out.str().find("predict"), std::string::npos) << out.str();
}

// What the commands that keep their results put in a store, read back through `ridge results` (print_results).

using json = nlohmann::json;
namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

// The cell under `column` of a CSV file's data row `row` (0: the first after the header).
std::string csv_cell(const std::vector<std::string>& lines, size_t row, const std::string& column) {
  auto header = split(lines.at(0));
  auto cells = split(lines.at(row + 1));
  for (size_t c = 0; c < header.size(); ++c)
    if (header[c] == column) return cells.at(c);
  ADD_FAILURE() << "no column " << column << " in " << lines.at(0);
  return "";
}

// What `ridge results` prints for `request`.
std::string results_text(const report::ResultsRequest& request) {
  std::ostringstream out;
  report::print_results(request, out);
  return out.str();
}

// The listing of `store` that `filter` selects, as `ridge results -f json` prints it.
json results_json(const std::string& store, const store::Filter& filter = {}) {
  auto text = results_text({.store_path = store, .filter = filter, .format = "json"});
  EXPECT_TRUE(json::accept(text)) << text;
  return json::accept(text) ? json::parse(text) : json::object();
}

int64_t count_in(const std::string& store) { return static_cast<int64_t>(results_json(store)["results"].size()); }

// `ridge results --store STORE --id ID --show -f FORMAT`.
std::string shown(const std::string& store, int64_t id, const std::string& format) {
  report::ResultsRequest request{.store_path = store, .format = format, .show = true};
  request.filter.ids = {id};
  return results_text(request);
}

const std::string kBenchArgs = " --max-time 0.2 --warmup 0 --no-per-node --threads 1 --sweep batch=1,2";

// `ridge bench MODEL` + kBenchArgs.
report::BenchCommand two_point_bench(const std::string& model) {
  report::BenchCommand c;
  c.bench.model = analysis::make_request({.model = model});
  c.bench.exec.threads = 1;
  c.bench.max_time_s = 0.2;
  c.bench.warmup_s = 0;
  c.bench.per_node = false;
  exec::bind_sweeps(c.bench, {"batch=1,2"});
  return c;
}

// `ridge analyze MODEL --summary` (its batch bound to `batch` when given) kept in `store`, as the binary would
// with that command line.
void analyze_into(const std::string& store, int64_t batch = 0) {
  SavedInvocation keep;
  auto model = model_path("alexnet");
  report::invocation().command_line = "ridge analyze " + model + " --summary --store " + store;
  report::AnalyzeCommand analyze{.summary = true, .store = {.path = store}};
  analyze.model.model = model;
  analyze.model.batch = batch;
  std::ostringstream out;
  report::analyze_and_keep(analyze, out);
}

// `ridge predict alexnet --device t4` printed in `format` and kept as `store` says.
std::string predict_t4(const report::StoreOptions& store, const std::string& format = "table") {
  analysis::ModelOptions options{.model = model_path("alexnet")};
  std::ostringstream out;
  report::predict_and_keep({.model = analysis::make_request(options), .device = "t4"}, "", options, format, store, out);
  return out.str();
}

// analyze, predict and a two-point bench of alexnet into `store`, each with the command line the binary records;
// returns what the bench printed with -f json.
json populate(const std::string& store) {
  SavedInvocation keep;
  auto& invocation = report::invocation();
  invocation.quiet = false;
  invocation.cell = {};
  invocation.store_path.clear();
  auto model = model_path("alexnet");
  analyze_into(store);
  invocation.command_line = "ridge predict " + model + " --device t4 --store " + store;
  predict_t4({.path = store});
  invocation.command_line = "ridge bench " + model + kBenchArgs + " --store " + store + " -f json";
  std::ostringstream out, err;
  EXPECT_EQ(report::bench_and_keep(two_point_bench(model), "json", {.path = store}, out, err), 0) << err.str();
  EXPECT_TRUE(json::accept(out.str())) << out.str();
  return json::accept(out.str()) ? json::parse(out.str()) : json::object();
}

TEST(ResultsReport, EveryCommandIsStoredWithItsEnvironment) {
  auto store = fresh_dir("results-report-every") + "/s.db";
  auto bench = populate(store);
  ASSERT_EQ(bench["runs"].size(), 2u);
  auto listing = results_json(store);
  EXPECT_EQ(listing["store"], store);
  const auto& results = listing["results"];
  ASSERT_EQ(results.size(), 4u) << listing.dump(2);
  const std::vector<std::string> commands{"analyze", "predict", "bench", "bench"};
  for (size_t i = 0; i < 4; ++i) {
    const auto& r = results[i];
    SCOPED_TRACE(r.dump(2));
    EXPECT_EQ(r["id"], static_cast<int64_t>(i + 1));
    EXPECT_EQ(r["command"], commands[i]);
    EXPECT_EQ(r["status"], "ok");
    EXPECT_EQ(r["model"], model_path("alexnet"));
    EXPECT_FALSE(r["host"].get<std::string>().empty());
    EXPECT_FALSE(r["cpu"].get<std::string>().empty());
    EXPECT_FALSE(r["revision"].get<std::string>().empty());
    EXPECT_EQ(r["versions"]["ridge"], bench["environment"]["ridge_version"]);
    EXPECT_FALSE(r["versions"]["sqlite"].get<std::string>().empty());
    // The invocation's command line (the binary records its argv there: tests/cli/test_results.cpp).
    auto command_line = r["command_line"].get<std::string>();
    EXPECT_NE(command_line.find(" " + commands[i] + " "), std::string::npos) << command_line;
    EXPECT_NE(command_line.find("--store " + store), std::string::npos) << command_line;
    EXPECT_EQ(r["uid"].get<std::string>().size(), 32u);
    EXPECT_EQ(r["created_at"].get<std::string>().size(), 20u);  // 2026-11-24T19:42:36Z
    EXPECT_FALSE(r["result"].get<std::string>().empty());
  }
  EXPECT_EQ(results[0]["batch"], 1);
  EXPECT_EQ(results[1]["device"], "t4");
  EXPECT_EQ(results[2]["batch"], 1);
  EXPECT_EQ(results[3]["batch"], 2);
  for (size_t i : {2, 3}) {
    const auto& r = results[i];
    EXPECT_NE(r["command_line"].get<std::string>().find("--sweep batch=1,2"), std::string::npos);
    EXPECT_EQ(r["threads"], 1);
    EXPECT_EQ(r["mode"], "eager");
    EXPECT_EQ(r["precision"], "fp32");
    EXPECT_EQ(r["versions"]["torch"], bench["environment"]["torch_version"]);
    EXPECT_EQ(r["random_weights"], true);  // alexnet.onnx holds no weights
    EXPECT_EQ(r["input_size"], bench["runs"][i - 2]["input_size"]);
  }
  EXPECT_EQ(results[2]["input_size"], "1x3x224x224");
  EXPECT_EQ(results[3]["input_size"], "2x3x224x224");
  // The headline of a bench result is its mean.
  auto mean = bench["runs"][1]["latency_ms"]["mean"].get<double>();
  char headline[64];
  std::snprintf(headline, sizeof headline, "mean %.3f ms", mean);
  EXPECT_EQ(results[3]["result"], headline);

  // Filters.
  auto one = results_json(store, {.command = "bench", .batch = 2});
  ASSERT_EQ(one["results"].size(), 1u) << one.dump(2);
  EXPECT_EQ(one["results"][0]["id"], 4);
  EXPECT_EQ(one["results"][0]["batch"], 2);
  EXPECT_EQ(results_json(store, {.command = "bench"})["results"].size(), 2u);
  EXPECT_EQ(results_json(store, {.model = "alexnet"})["results"].size(), 4u);
  EXPECT_EQ(results_json(store, {.model = "resnet50"})["results"].size(), 0u);
  auto last = results_json(store, {.last = 2});
  ASSERT_EQ(last["results"].size(), 2u);
  EXPECT_EQ(last["results"][0]["id"], 3);
  EXPECT_EQ(last["results"][1]["id"], 4);
  auto ids = results_json(store, {.ids = {1, 3}});
  ASSERT_EQ(ids["results"].size(), 2u);
  EXPECT_EQ(ids["results"][1]["command"], "bench");

  // --show prints what the bench command printed for that point.
  for (int point : {0, 1}) {
    auto text = shown(store, 3 + point, "json");
    ASSERT_TRUE(json::accept(text)) << text;
    auto document = json::parse(text);
    ASSERT_EQ(document["runs"].size(), 1u);
    EXPECT_EQ(document["runs"][0]["latency_ms"]["mean"].get<double>(),
              bench["runs"][point]["latency_ms"]["mean"].get<double>());
    EXPECT_EQ(document["runs"][0], bench["runs"][point]);
    EXPECT_EQ(document["environment"], bench["environment"]);
    EXPECT_EQ(document["model"], bench["model"]);
  }
  // --show in the other formats too (the analyze result as a table).
  auto table = shown(store, 1, "table");
  EXPECT_EQ(table.rfind("result 1 (analyze, ", 0), 0u) << table;
  EXPECT_NE(table.find("per op type:"), std::string::npos) << table;
  auto csv = shown(store, 4, "csv");
  EXPECT_EQ(csv.rfind("model,algorithm,input_size,", 0), 0u) << csv;
}

TEST(ResultsReport, ExportWritesTheSeedCsvLayouts) {
  auto dir = fresh_dir("results-report-export");
  auto store = dir + "/s.db";
  auto bench = populate(store);
  auto out = dir + "/csv";
  auto written = results_text({.store_path = store, .export_dir = out});
  for (const char* file : {"overall.csv", "layers.csv", "metrics.csv", "benchmark_results.csv"}) {
    EXPECT_TRUE(fs::exists(out + "/" + file)) << file;
    EXPECT_NE(written.find(out + "/" + file), std::string::npos) << written;
  }
  auto overall = lines_of(slurp(out + "/overall.csv"));
  ASSERT_EQ(overall.size(), 3u) << slurp(out + "/overall.csv");  // header + two bench points
  EXPECT_EQ(overall[0].rfind("model,algorithm,input_size,", 0), 0u) << overall[0];
  EXPECT_EQ(csv_cell(overall, 0, "batch"), "1");
  EXPECT_EQ(csv_cell(overall, 1, "batch"), "2");
  EXPECT_EQ(csv_cell(overall, 0, "model"), model_path("alexnet"));
  EXPECT_EQ(std::stod(csv_cell(overall, 1, "mean_ms")), bench["runs"][1]["latency_ms"]["mean"].get<double>());

  auto layers = lines_of(slurp(out + "/layers.csv"));
  ASSERT_GE(layers.size(), 1u);  // --no-per-node: the header alone
  EXPECT_EQ(layers[0].rfind("model,algorithm,input_size,", 0), 0u) << layers[0];
  EXPECT_NE(layers[0].find(",layer,op,"), std::string::npos) << layers[0];

  auto metrics = lines_of(slurp(out + "/metrics.csv"));
  ASSERT_EQ(metrics.size(), 3u) << slurp(out + "/metrics.csv");
  EXPECT_EQ(metrics[0], "label,model,batch,precision,memory_format,images_per_s,measured_s,iterations");
  auto results = lines_of(slurp(out + "/benchmark_results.csv"));
  ASSERT_EQ(results.size(), 3u) << slurp(out + "/benchmark_results.csv");
  EXPECT_EQ(results[0], "model,mode,batch,latency_ms");
  for (size_t row : {0u, 1u}) {
    SCOPED_TRACE(row);
    EXPECT_EQ(csv_cell(metrics, row, "images_per_s"), csv_cell(overall, row, "throughput"));
    EXPECT_EQ(csv_cell(metrics, row, "batch"), csv_cell(overall, row, "batch"));
    EXPECT_EQ(csv_cell(metrics, row, "iterations"), csv_cell(overall, row, "samples"));
    EXPECT_EQ(csv_cell(results, row, "latency_ms"), csv_cell(overall, row, "mean_ms"));
    EXPECT_EQ(csv_cell(results, row, "batch"), csv_cell(overall, row, "batch"));
    EXPECT_EQ(csv_cell(results, row, "mode"), "eager");
    // measured_s is the timed runs: mean x runs.
    double measured = std::stod(csv_cell(overall, row, "mean_ms")) * std::stod(csv_cell(overall, row, "samples")) / 1e3;
    EXPECT_NEAR(std::stod(csv_cell(metrics, row, "measured_s")), measured, 1e-9 * measured);
  }
  EXPECT_EQ(std::stod(csv_cell(metrics, 1, "images_per_s")), bench["runs"][1]["throughput"].get<double>());

  // Exporting again replaces the files (never appends), and a filter exports only its results.
  results_text({.store_path = store, .filter = {.batch = 2}, .export_dir = out});
  auto only = lines_of(slurp(out + "/overall.csv"));
  ASSERT_EQ(only.size(), 2u);
  EXPECT_EQ(csv_cell(only, 0, "batch"), "2");
  // No bench result selected: an error, nothing written.
  auto none = error_text(
      [&] { results_text({.store_path = store, .filter = {.command = "analyze"}, .export_dir = dir + "/none"}); });
  EXPECT_NE(none.find("nothing to export"), std::string::npos) << none;
  EXPECT_FALSE(fs::exists(dir + "/none/overall.csv"));
}

// The export rebuilds from stored documents exactly what bench --csv wrote as it measured (layers.csv
// from each run's overall row and nodes).
TEST(ResultsReport, ExportEqualsWhatBenchWroteByteForByte) {
  auto dir = fresh_dir("results-report-export-equal");
  auto store = dir + "/store.db";
  auto bench = two_point_bench(model_path("alexnet"));
  bench.bench.per_node = true;  // the per-node pass, so layers.csv has rows
  bench.csv_dir = dir + "/direct";
  std::ostringstream out, err;
  ASSERT_EQ(report::bench_and_keep(bench, "table", {.path = store}, out, err), 0) << err.str();
  results_text({.store_path = store, .export_dir = dir + "/exported"});
  for (const char* file : {"overall.csv", "layers.csv", "metrics.csv", "benchmark_results.csv"}) {
    auto direct = slurp(dir + "/direct/" + file);
    EXPECT_FALSE(direct.empty()) << file;
    EXPECT_EQ(slurp(dir + "/exported/" + file), direct) << file;
  }
}

// --no-store: printed, and the store ($RIDGE_STORE here) is left as it was; with no store anywhere, none is created.
TEST(ResultsReport, NoStoreLeavesTheStoreUntouched) {
  SavedInvocation keep;
  report::invocation().store_path.clear();
  auto store = fresh_dir("results-report-nostore") + "/s.db";
  analyze_into(store);
  auto before = slurp(store);
  ASSERT_FALSE(before.empty());
  auto model = model_path("alexnet");
  report::AnalyzeCommand analyze{.summary = true, .store = {.disabled = true}};
  analyze.model.model = model;
  std::ostringstream analyzed;
  std::string predicted;
  {
    ScopedEnvironment environment("RIDGE_STORE", store);
    report::analyze_and_keep(analyze, analyzed);
    predicted = predict_t4({.disabled = true});
  }
  EXPECT_NE(analyzed.str().find("per op type:"), std::string::npos) << analyzed.str();
  EXPECT_FALSE(predicted.empty());
  EXPECT_EQ(slurp(store), before);
  EXPECT_EQ(count_in(store), 1);
  // --no-store with no store anywhere creates none.
  auto nowhere = fresh_dir("results-report-nowhere") + "/s.db";
  {
    ScopedEnvironment environment("RIDGE_STORE", nowhere);
    std::ostringstream out;
    report::analyze_and_keep(analyze, out);
  }
  EXPECT_FALSE(fs::exists(nowhere));
}

TEST(ResultsReport, RidgeStoreEnvironmentIsTheDefault) {
  SavedInvocation keep;
  report::invocation().store_path.clear();
  auto store = fresh_dir("results-report-env") + "/from-env.db";
  auto model = model_path("alexnet");
  report::AnalyzeCommand analyze{.summary = true};
  analyze.model.model = model;
  json j;
  {
    ScopedEnvironment environment("RIDGE_STORE", store);
    std::ostringstream out;
    report::analyze_and_keep(analyze, out);
    predict_t4({});
    // `ridge results` without --store reads the store the options select: $RIDGE_STORE's.
    j = results_json(report::store_path({}));
  }
  EXPECT_EQ(j["store"], store);
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"][0]["command"], "analyze");
  EXPECT_EQ(j["results"][1]["command"], "predict");
  // --store wins over the environment.
  auto other = fresh_dir("results-report-env-other") + "/other.db";
  {
    ScopedEnvironment environment("RIDGE_STORE", store);
    analyze.store.path = other;
    std::ostringstream out;
    report::analyze_and_keep(analyze, out);
  }
  EXPECT_EQ(count_in(other), 1);
  EXPECT_EQ(count_in(store), 2);
}

TEST(ResultsReport, MergeAddsTheUnionOnce) {
  auto dir = fresh_dir("results-report-merge");
  auto a = dir + "/a.db", b = dir + "/b.db", c = dir + "/c.db";
  analyze_into(a);
  predict_t4({.path = a});
  // b holds a's two results and one of its own.
  std::vector<std::string> lines;
  auto line = [&](const std::string& text) { lines.push_back(text); };
  report::merge_stores({a}, b, line);
  analyze_into(b, 4);
  EXPECT_EQ(count_in(b), 3);

  lines.clear();
  report::merge_stores({a, b}, c, line);
  auto first = fmt::format("{}", fmt::join(lines, "\n"));
  EXPECT_NE(first.find(a + ": 2 results, 2 added, 0 already in " + c), std::string::npos) << first;
  EXPECT_NE(first.find(b + ": 3 results, 1 added, 2 already in " + c), std::string::npos) << first;
  EXPECT_NE(first.find(c + " now holds 3 results (3 added)"), std::string::npos) << first;
  lines.clear();
  report::merge_stores({a, b}, c, line);
  auto second = fmt::format("{}", fmt::join(lines, "\n"));
  EXPECT_NE(second.find(c + " now holds 3 results (0 added)"), std::string::npos) << second;

  auto merged = results_json(c);
  ASSERT_EQ(merged["results"].size(), 3u);
  std::vector<std::string> uids;
  for (const auto& r : merged["results"]) uids.push_back(r["uid"]);
  std::sort(uids.begin(), uids.end());
  EXPECT_EQ(std::unique(uids.begin(), uids.end()), uids.end());
  EXPECT_EQ(merged["results"][2]["batch"], 4);
  // The results came with their documents.
  auto document = shown(c, 3, "json");
  EXPECT_NE(document.find("\"op_types\""), std::string::npos) << document;
  // A store into itself: refused with one line.
  auto self = error_text([&] { report::merge_stores({c}, c, line); });
  EXPECT_NE(self.find("itself"), std::string::npos) << self;
  EXPECT_EQ(self.find('\n'), std::string::npos) << self;
  EXPECT_EQ(count_in(c), 3);
}

TEST(ResultsReport, MissingStoreIsAnErrorAndIsNotCreated) {
  auto missing = fresh_dir("results-report-missing") + "/absent.db";
  std::vector<report::ResultsRequest> requests{{.store_path = missing},
                                               {.store_path = missing, .show = true},
                                               {.store_path = missing, .export_dir = missing + ".csv"},
                                               {.store_path = missing, .format = "json"}};
  for (const auto& request : requests) {
    std::ostringstream out;
    auto error = error_text([&] { report::print_results(request, out); });
    EXPECT_NE(error, "accepted");
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_NE(error.find(missing), std::string::npos) << error;
    EXPECT_TRUE(out.str().empty()) << out.str();
    EXPECT_FALSE(fs::exists(missing));
  }
}

// A store that cannot be written: the result is printed first, then one line says it was not saved (and how to skip
// the store); no store file appears.
TEST(ResultsReport, UnwritableStoreStillPrintsTheResult) {
  auto dir = fresh_dir("results-report-unwritable");
  auto file = dir + "/a-file";
  std::ofstream(file) << "x\n";
  std::vector<std::string> stores{dir + "/no/such/dir/s.db", file + "/s.db"};
  if (::geteuid() != 0) {  // root writes anywhere
    auto read_only = dir + "/read-only";
    fs::create_directories(read_only);
    ::chmod(read_only.c_str(), 0555);
    stores.push_back(read_only + "/s.db");
  }
  for (const auto& store : stores) {
    SCOPED_TRACE(store);
    report::AnalyzeCommand analyze{.summary = true, .format = "json", .store = {.path = store}};
    analyze.model.model = model_path("alexnet");
    std::ostringstream out;
    auto error = error_text([&] { report::analyze_and_keep(analyze, out); });
    ASSERT_TRUE(json::accept(out.str())) << out.str();
    EXPECT_TRUE(json::parse(out.str()).contains("totals")) << out.str();
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_NE(error.find("not saved"), std::string::npos) << error;
    EXPECT_NE(error.find("--no-store"), std::string::npos) << error;
    EXPECT_NE(error.find(store), std::string::npos) << error;
    EXPECT_FALSE(fs::exists(store));
  }
  // predict, the same.
  std::string printed;
  auto error = error_text([&] {
    analysis::ModelOptions options{.model = model_path("alexnet")};
    std::ostringstream out;
    try {
      report::predict_and_keep({.model = analysis::make_request(options), .device = "t4"}, "", options, "table",
                               {.path = stores[0]}, out);
    } catch (...) {
      printed = out.str();
      throw;
    }
  });
  EXPECT_FALSE(printed.empty());
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_NE(error.find("not saved"), std::string::npos) << error;
}

TEST(ResultsReport, DamagedStoredDocumentIsOneLine) {
  auto store = fresh_dir("results-report-damaged") + "/s.db";
  for (int i = 0; i < 3; ++i) analyze_into(store);
  {
    store::Connection db(store, false);
    db.execute(
        "UPDATE results SET document = '{\"fields\": [], \"tables\": [{\"key\": \"t\", "
        "\"columns\": [{\"key\": \"x\", \"style\": 3, \"decimals\": -1}], \"rows\": [[1.5]]}]}' WHERE id = 2");
    db.execute("UPDATE results SET document = '{not json' WHERE id = 3");
  }
  EXPECT_FALSE(shown(store, 1, "table").empty());
  for (const auto& [id, expected] : {std::pair{2, "stored document"}, std::pair{3, "not JSON"}}) {
    SCOPED_TRACE(id);
    // error_text hears a ridge::Error only: anything else (what the binary calls an internal error) fails here.
    auto error = error_text([&, id = id] { shown(store, id, "table"); });
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_EQ(error.find("internal"), std::string::npos) << error;
    EXPECT_NE(error.find(expected), std::string::npos) << error;
  }
  // Listing reads no documents: every result is still listed.
  EXPECT_EQ(count_in(store), 3);
}

TEST(ResultsReport, NoMatchIsAnEmptyListNotAnError) {
  auto store = fresh_dir("results-report-nomatch") + "/s.db";
  analyze_into(store);
  auto failed = results_json(store, {.status = "failed"});
  ASSERT_TRUE(failed.contains("results")) << failed.dump();
  EXPECT_TRUE(failed["results"].is_array());
  EXPECT_EQ(failed["results"].size(), 0u);
  auto table = results_text({.store_path = store, .filter = {.status = "failed"}});
  EXPECT_NE(table.find("no stored result matches"), std::string::npos) << table;
  auto csv = results_text({.store_path = store, .filter = {.status = "failed"}, .format = "csv"});
  EXPECT_EQ(lines_of(csv).size(), 1u) << csv;  // the header alone
  EXPECT_EQ(results_json(store, {.status = "ok"})["results"].size(), 1u);
}

// `ridge results import` (report::import_into_store): the real H200 bench file (tests/data/bench/h200, four runs)
// enters the store with the environment it records, not this machine's; importing it again, or after a merge, adds
// nothing.
TEST(ResultsReport, ImportedGpuRunsKeepTheirEnvironmentAndAreAddedOnce) {
  auto dir = fresh_dir("results-report-import-gpu");
  auto store = dir + "/imported.db";
  auto file = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  std::string printed;
  auto line = [&](const std::string& text) { printed += text + "\n"; };
  report::import_into_store({file}, store, line);
  EXPECT_NE(printed.find("4 results, 4 added, 0 already in"), std::string::npos) << printed;
  printed.clear();
  report::import_into_store({file}, store, line);
  EXPECT_NE(printed.find("4 results, 0 added, 4 already in"), std::string::npos) << printed;
  auto list = results_json(store);
  ASSERT_EQ(list["results"].size(), 4u);
  std::vector<std::string> modes;
  for (const auto& r : list["results"]) {
    EXPECT_EQ(r["command"], "bench");
    EXPECT_EQ(r["gpu"], "cuda:0 NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)");
    EXPECT_EQ(r["revision"], "6564498");  // the revision that measured, not this build's
    EXPECT_TRUE(!r.contains("threads") || r["threads"].is_null()) << r.dump();  // a GPU run's host threads: none
    modes.push_back(r["mode"].get<std::string>() + "@" + std::to_string(r["batch"].get<int>()));
  }
  EXPECT_EQ(modes, (std::vector<std::string>{"eager@1", "cuda-graph@1", "eager@32", "cuda-graph@32"}));
  // The stored documents are the runs as the file holds them.
  auto document = json::parse(shown(store, 2, "json"));
  auto original = json::parse(std::ifstream(file));
  EXPECT_EQ(document["runs"][0]["latency_ms"], original["runs"][1]["latency_ms"]);
  // A store that merged this one holds the same results: an import adds nothing there either.
  auto merged = dir + "/merged.db";
  report::merge_stores({store}, merged, [](const std::string&) {});
  printed.clear();
  report::import_into_store({file}, merged, line);
  EXPECT_NE(printed.find("0 added"), std::string::npos) << printed;
  // A file that is no bench output: one line, and the store is not created.
  auto bad =
      error_text([&] { report::import_into_store({source_path("tests/data/ncu/README.md")}, dir + "/bad.db", line); });
  EXPECT_NE(bad, "accepted");
  EXPECT_EQ(std::count(bad.begin(), bad.end(), '\n'), 0) << bad;
  EXPECT_FALSE(fs::exists(dir + "/bad.db"));
}

// A prediction written elsewhere (`ridge predict -f json`) enters the store through the prediction codec, once; the
// report then pairs it with the imported H200 runs by the GPU each run records, batch by batch, and every number in
// the pair is the typed value (the run's mean, the prediction's latency).
TEST(ResultsReport, ImportedPredictionsPairWithImportedGpuRuns) {
  auto dir = fresh_dir("results-report-paired");
  auto store = dir + "/paired.db";
  auto predicted = dir + "/h200-b32.json";
  analysis::ModelOptions options{.model = model_path("resnet50"), .batch = 32};
  std::ostringstream p;
  report::predict_and_keep({.model = analysis::make_request(options), .device = "h200"}, "", options, "json",
                           {.disabled = true}, p);
  std::ofstream(predicted) << p.str();
  auto prediction = json::parse(p.str());
  ASSERT_EQ(prediction["batch"], 32);
  double predicted_s = prediction["totals"]["time_s"].get<double>();
  auto bench = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  auto tf32 = source_path("tests/data/bench/h200/ridge-bench-resnet50-tf32.json");
  std::string printed;
  auto line = [&](const std::string& text) { printed += text + "\n"; };
  report::import_into_store({predicted, bench, tf32}, store, line);
  EXPECT_NE(printed.find("h200-b32.json: 1 result, 1 added"), std::string::npos) << printed;
  printed.clear();
  report::import_into_store({predicted}, store, line);
  EXPECT_NE(printed.find("1 result, 0 added, 1 already in"), std::string::npos) << printed;
  auto list = results_json(store, {.command = "predict"});
  ASSERT_EQ(list["results"].size(), 1u);
  EXPECT_EQ(list["results"][0]["batch"], 32);
  EXPECT_NE(list["results"][0]["result"].get<std::string>().find("predicted"), std::string::npos);
  // `ridge report --store STORE --markdown DIR`.
  report::StudyRequest study{.store_path = store, .store_required = true};
  report::StudyOutput output{.markdown_dir = dir + "/paired"};
  auto written = report::write_study(report::gather_study(study), output, [](const std::string&) {});
  EXPECT_TRUE(written.errors.empty()) << fmt::format("{}", fmt::join(written.errors, "\n"));
  auto md = slurp(dir + "/paired/report.md");
  // The eager and CUDA-graph runs at batch 32 (14.267 and 13.948 ms in the file) pair with the batch-32 prediction;
  // the batch-1 runs have no prediction of their batch.
  auto pairs = md.find("Predicted against measured");
  ASSERT_NE(pairs, std::string::npos) << md;
  auto section = md.substr(pairs, md.find("\n## ", pairs + 1) - pairs);
  EXPECT_NE(section.find("14.267 ms"), std::string::npos) << section;
  EXPECT_NE(section.find("13.948 ms"), std::string::npos) << section;
  EXPECT_EQ(section.find("2.221 ms"), std::string::npos) << section;
  // The TF32 run (7.805 ms, another file) is not what an fp32 prediction without --allow-tf32 describes.
  EXPECT_EQ(section.find("7.805 ms"), std::string::npos) << section;
  EXPECT_NE(section.find(fmt::format("{:.2f} x", 13.948e-3 / predicted_s)), std::string::npos) << section;
}

// An ert document from a revision whose JSON had no typed record (as
// ../shared/data/gpu-h200/bench/ridge-ert-cuda.json): one line, naming what to do.
TEST(ResultsReport, AnUntypedErtDocumentIsOneLine) {
  auto dir = fresh_dir("results-report-ert-old");
  auto old = dir + "/ert-old.json";
  std::ofstream(old) << R"({"gpu": {"name": "NVIDIA H200"}, "fma": [], "tensor": [], "bandwidth_points": []})";
  auto error = error_text([&] { report::import_into_store({old}, dir + "/s.db", [](const std::string&) {}); });
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_NE(error.find("run `ridge ert` again"), std::string::npos) << error;
  EXPECT_NE(error.find(old), std::string::npos) << error;
}

}  // namespace
}  // namespace ridge::test
