// The results store through the real binary: analyze, predict and bench keep their results with the
// environment, `ridge results` lists, filters, shows and exports them, `ridge store merge` adds each
// result once, and a store that cannot be written never hides the result itself.
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
#include <string>
#include <vector>

#include "store/sqlite.h"
#include "support/one_line_error.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

using json = nlohmann::json;

// A fresh directory of this test process.
std::string fresh_dir(const std::string& stem) {
  static int counter = 0;
  auto dir = std::filesystem::path(temp_dir()) / (stem + "-" + std::to_string(++counter));
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

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

// `ridge results ... -f json` parsed; fails the test unless it exits 0 with JSON.
json results_json(const std::string& args) {
  auto r = run_ridge("results " + args + " -f json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(json::accept(r.out)) << r.out;
  if (!json::accept(r.out)) return json::object();
  return json::parse(r.out);
}

const std::string kBenchArgs = " --max-time 0.2 --warmup 0 --no-per-node --threads 1 --sweep batch=1,2";

// analyze, predict and a two-point bench of alexnet into `store`; returns what the bench printed
// with -f json.
json populate(const std::string& store) {
  auto model = model_path("alexnet");
  auto analyze = run_ridge("analyze " + model + " --summary --store " + store);
  EXPECT_EQ(analyze.exit_code, 0) << analyze.err;
  auto predict = run_ridge("predict " + model + " --device t4 --store " + store);
  EXPECT_EQ(predict.exit_code, 0) << predict.err;
  auto bench = run_ridge("bench " + model + kBenchArgs + " --store " + store + " -f json");
  EXPECT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_TRUE(json::accept(bench.out)) << bench.out;
  return json::accept(bench.out) ? json::parse(bench.out) : json::object();
}

TEST(ResultsCli, EveryCommandIsStoredWithItsEnvironment) {
  auto store = fresh_dir("every") + "/s.db";
  auto bench = populate(store);
  ASSERT_EQ(bench["runs"].size(), 2u);
  auto listing = results_json("--store " + store);
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
  auto one = results_json("--store " + store + " --command bench --batch 2");
  ASSERT_EQ(one["results"].size(), 1u) << one.dump(2);
  EXPECT_EQ(one["results"][0]["id"], 4);
  EXPECT_EQ(one["results"][0]["batch"], 2);
  EXPECT_EQ(results_json("--store " + store + " --command bench")["results"].size(), 2u);
  EXPECT_EQ(results_json("--store " + store + " --model alexnet")["results"].size(), 4u);
  EXPECT_EQ(results_json("--store " + store + " --model resnet50")["results"].size(), 0u);
  auto last = results_json("--store " + store + " --last 2");
  ASSERT_EQ(last["results"].size(), 2u);
  EXPECT_EQ(last["results"][0]["id"], 3);
  EXPECT_EQ(last["results"][1]["id"], 4);
  auto ids = results_json("--store " + store + " --id 1 --id 3");
  ASSERT_EQ(ids["results"].size(), 2u);
  EXPECT_EQ(ids["results"][1]["command"], "bench");

  // --show prints what the bench command printed for that point.
  for (int point : {0, 1}) {
    auto show = run_ridge("results --store " + store + " --id " + std::to_string(3 + point) + " --show -f json");
    ASSERT_EQ(show.exit_code, 0) << show.err;
    ASSERT_TRUE(json::accept(show.out)) << show.out;
    auto shown = json::parse(show.out);
    ASSERT_EQ(shown["runs"].size(), 1u);
    EXPECT_EQ(shown["runs"][0]["latency_ms"]["mean"].get<double>(),
              bench["runs"][point]["latency_ms"]["mean"].get<double>());
    EXPECT_EQ(shown["runs"][0], bench["runs"][point]);
    EXPECT_EQ(shown["environment"], bench["environment"]);
    EXPECT_EQ(shown["model"], bench["model"]);
  }
  // --show in the other formats too (the analyze result as a table).
  auto table = run_ridge("results --store " + store + " --id 1 --show");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("result 1 (analyze, ", 0), 0u) << table.out;
  EXPECT_NE(table.out.find("per op type:"), std::string::npos) << table.out;
  auto csv = run_ridge("results --store " + store + " --id 4 --show -f csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("model,algorithm,input_size,", 0), 0u) << csv.out;
}

TEST(ResultsCli, ExportWritesTheSeedCsvLayouts) {
  auto dir = fresh_dir("export");
  auto store = dir + "/s.db";
  auto bench = populate(store);
  auto out = dir + "/csv";
  auto r = run_ridge("results --store " + store + " --export " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"overall.csv", "layers.csv", "metrics.csv", "benchmark_results.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(out + "/" + file)) << file;
    EXPECT_NE(r.out.find(out + "/" + file), std::string::npos) << r.out;
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
  auto again = run_ridge("results --store " + store + " --batch 2 --export " + out);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto only = lines_of(slurp(out + "/overall.csv"));
  ASSERT_EQ(only.size(), 2u);
  EXPECT_EQ(csv_cell(only, 0, "batch"), "2");
  // No bench result selected: an error, nothing written.
  auto none = run_ridge("results --store " + store + " --command analyze --export " + dir + "/none");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("nothing to export"), std::string::npos) << none.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/none/overall.csv"));
}

int64_t count_in(const std::string& store) {
  return static_cast<int64_t>(results_json("--store " + store)["results"].size());
}

// The export rebuilds from stored documents exactly what bench --csv wrote as it measured (layers.csv
// from each run's overall row and nodes).
TEST(ResultsCli, ExportEqualsWhatBenchWroteByteForByte) {
  auto dir = temp_dir() + "/export-equal";
  auto store = dir + "/store.db";
  auto bench =
      run_ridge("bench " + model_path("alexnet") + " --sweep batch=1,2 --max-time 0.2 --warmup 0 --threads 1 " +
                "--csv " + dir + "/direct --store " + store);
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  auto exported = run_ridge("results --store " + store + " --export " + dir + "/exported");
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  for (const char* file : {"overall.csv", "layers.csv", "metrics.csv", "benchmark_results.csv"}) {
    auto direct = slurp(dir + "/direct/" + file);
    EXPECT_FALSE(direct.empty()) << file;
    EXPECT_EQ(slurp(dir + "/exported/" + file), direct) << file;
  }
}

TEST(ResultsCli, NoStoreLeavesTheStoreUntouched) {
  auto store = fresh_dir("nostore") + "/s.db";
  auto model = model_path("alexnet");
  ASSERT_EQ(run_ridge("analyze " + model + " --summary --store " + store).exit_code, 0);
  auto before = slurp(store);
  ASSERT_FALSE(before.empty());
  run_ridge("--version");  // run_ridge points RIDGE_STORE at the test's own store (unless a test set it)
  const char* saved = std::getenv("RIDGE_STORE");
  std::string previous = saved ? saved : "";
  ::setenv("RIDGE_STORE", store.c_str(), 1);
  auto analyze = run_ridge("analyze " + model + " --summary --no-store");
  auto predict = run_ridge("predict " + model + " --device t4 --no-store");
  ::setenv("RIDGE_STORE", previous.c_str(), 1);
  EXPECT_EQ(analyze.exit_code, 0) << analyze.err;
  EXPECT_EQ(predict.exit_code, 0) << predict.err;
  EXPECT_NE(analyze.out.find("per op type:"), std::string::npos) << analyze.out;
  EXPECT_EQ(slurp(store), before);
  EXPECT_EQ(count_in(store), 1);
  // --store and --no-store together: a usage error.
  auto both = run_ridge("analyze " + model + " --store " + store + " --no-store");
  EXPECT_EQ(both.exit_code, 2) << both.err;
  // --no-store with no store anywhere creates none.
  auto nowhere = fresh_dir("nowhere") + "/s.db";
  ::setenv("RIDGE_STORE", nowhere.c_str(), 1);
  auto r = run_ridge("analyze " + model + " --summary --no-store");
  ::setenv("RIDGE_STORE", previous.c_str(), 1);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(nowhere));
}

TEST(ResultsCli, RidgeStoreEnvironmentIsTheDefault) {
  auto store = fresh_dir("env") + "/from-env.db";
  auto model = model_path("alexnet");
  run_ridge("--version");  // run_ridge points RIDGE_STORE at the test's own store (unless a test set it)
  const char* saved = std::getenv("RIDGE_STORE");
  std::string previous = saved ? saved : "";
  ::setenv("RIDGE_STORE", store.c_str(), 1);
  auto analyze = run_ridge("analyze " + model + " --summary");
  auto predict = run_ridge("predict " + model + " --device t4");
  auto listing = run_ridge("results -f json");
  ::setenv("RIDGE_STORE", previous.c_str(), 1);
  EXPECT_EQ(analyze.exit_code, 0) << analyze.err;
  EXPECT_EQ(predict.exit_code, 0) << predict.err;
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  auto j = json::parse(listing.out);
  EXPECT_EQ(j["store"], store);
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"][0]["command"], "analyze");
  EXPECT_EQ(j["results"][1]["command"], "predict");
  // --store wins over the environment.
  auto other = fresh_dir("env-other") + "/other.db";
  ::setenv("RIDGE_STORE", store.c_str(), 1);
  auto explicit_store = run_ridge("analyze " + model + " --summary --store " + other);
  ::setenv("RIDGE_STORE", previous.c_str(), 1);
  EXPECT_EQ(explicit_store.exit_code, 0) << explicit_store.err;
  EXPECT_EQ(count_in(other), 1);
  EXPECT_EQ(count_in(store), 2);
}

TEST(ResultsCli, MergeAddsTheUnionOnce) {
  auto dir = fresh_dir("merge");
  auto a = dir + "/a.db", b = dir + "/b.db", c = dir + "/c.db";
  auto model = model_path("alexnet");
  ASSERT_EQ(run_ridge("analyze " + model + " --summary --store " + a).exit_code, 0);
  ASSERT_EQ(run_ridge("predict " + model + " --device t4 --store " + a).exit_code, 0);
  // b holds a's two results and one of its own.
  auto seed = run_ridge("store merge " + a + " -o " + b);
  ASSERT_EQ(seed.exit_code, 0) << seed.err;
  ASSERT_EQ(run_ridge("analyze " + model + " --batch 4 --summary --store " + b).exit_code, 0);
  EXPECT_EQ(count_in(b), 3);

  auto first = run_ridge("store merge " + a + " " + b + " -o " + c);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find(a + ": 2 results, 2 added, 0 already in " + c), std::string::npos) << first.out;
  EXPECT_NE(first.out.find(b + ": 3 results, 1 added, 2 already in " + c), std::string::npos) << first.out;
  EXPECT_NE(first.out.find(c + " now holds 3 results (3 added)"), std::string::npos) << first.out;
  auto second = run_ridge("store merge " + a + " " + b + " -o " + c);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find(c + " now holds 3 results (0 added)"), std::string::npos) << second.out;

  auto merged = results_json("--store " + c);
  ASSERT_EQ(merged["results"].size(), 3u);
  std::vector<std::string> uids;
  for (const auto& r : merged["results"]) uids.push_back(r["uid"]);
  std::sort(uids.begin(), uids.end());
  EXPECT_EQ(std::unique(uids.begin(), uids.end()), uids.end());
  EXPECT_EQ(merged["results"][2]["batch"], 4);
  // The results came with their documents.
  auto show = run_ridge("results --store " + c + " --id 3 --show -f json");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("\"op_types\""), std::string::npos) << show.out;
  // A store into itself: refused with one line.
  auto self = run_ridge("store merge " + c + " -o " + c);
  EXPECT_EQ(self.exit_code, 1);
  EXPECT_NE(self.err.find("itself"), std::string::npos) << self.err;
  EXPECT_EQ(count_in(c), 3);
}

void expect_one_line(const std::string& text) {
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "not one line: " << text;
}

TEST(ResultsCli, MissingStoreIsAnErrorAndIsNotCreated) {
  auto missing = fresh_dir("missing") + "/absent.db";
  auto r = run_ridge("results --store " + missing);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  expect_one_line(r.err);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(missing));
  for (const std::string& args : {std::string(" --show"), " --export " + missing + ".csv", std::string(" -f json")}) {
    auto again = run_ridge("results --store " + missing + args);
    EXPECT_EQ(again.exit_code, 1) << args;
    EXPECT_FALSE(std::filesystem::exists(missing)) << args;
  }
}

TEST(ResultsCli, UnwritableStoreStillPrintsTheResult) {
  auto dir = fresh_dir("unwritable");
  auto file = dir + "/a-file";
  std::ofstream(file) << "x\n";
  std::vector<std::string> stores{dir + "/no/such/dir/s.db", file + "/s.db"};
  if (::geteuid() != 0) {  // root writes anywhere
    auto read_only = dir + "/read-only";
    std::filesystem::create_directories(read_only);
    ::chmod(read_only.c_str(), 0555);
    stores.push_back(read_only + "/s.db");
  }
  auto model = model_path("alexnet");
  for (const auto& store : stores) {
    SCOPED_TRACE(store);
    auto r = run_ridge("analyze " + model + " --summary -f json --store " + store);
    EXPECT_EQ(r.exit_code, 1);
    ASSERT_TRUE(json::accept(r.out)) << r.out;
    auto analysis = json::parse(r.out);
    EXPECT_TRUE(analysis.contains("totals")) << r.out;
    expect_one_line(r.err);
    EXPECT_NE(r.err.find("not saved"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--no-store"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(store), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(store));
  }
  // predict, the same.
  auto p = run_ridge("predict " + model + " --device t4 --store " + stores[0]);
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_FALSE(p.out.empty());
  expect_one_line(p.err);
  EXPECT_NE(p.err.find("not saved"), std::string::npos) << p.err;
}

TEST(ResultsCli, DamagedStoredDocumentIsOneLine) {
  auto store = fresh_dir("damaged") + "/s.db";
  auto model = model_path("alexnet");
  for (int i = 0; i < 3; ++i) ASSERT_EQ(run_ridge("analyze " + model + " --summary --store " + store).exit_code, 0);
  {
    store::Connection db(store, false);
    db.execute(
        "UPDATE results SET document = '{\"fields\": [], \"tables\": [{\"key\": \"t\", "
        "\"columns\": [{\"key\": \"x\", \"style\": 3, \"decimals\": -1}], \"rows\": [[1.5]]}]}' WHERE id = 2");
    db.execute("UPDATE results SET document = '{not json' WHERE id = 3");
  }
  auto good = run_ridge("results --store " + store + " --id 1 --show");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  for (const auto& [id, expected] : {std::pair{"2", "stored document"}, std::pair{"3", "not JSON"}}) {
    SCOPED_TRACE(id);
    auto r = run_ridge(std::string("results --store ") + store + " --id " + id + " --show");
    EXPECT_EQ(r.exit_code, 1);
    expect_one_line(r.err);
    EXPECT_EQ(r.err.find("internal"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  }
  // Listing reads no documents: every result is still listed.
  EXPECT_EQ(count_in(store), 3);
}

TEST(ResultsCli, NoMatchIsAnEmptyListNotAnError) {
  auto store = fresh_dir("nomatch") + "/s.db";
  ASSERT_EQ(run_ridge("analyze " + model_path("alexnet") + " --summary --store " + store).exit_code, 0);
  auto failed = results_json("--store " + store + " --status failed");
  ASSERT_TRUE(failed.contains("results")) << failed.dump();
  EXPECT_TRUE(failed["results"].is_array());
  EXPECT_EQ(failed["results"].size(), 0u);
  auto table = run_ridge("results --store " + store + " --status failed");
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("no stored result matches"), std::string::npos) << table.out;
  auto csv = run_ridge("results --store " + store + " --status failed -f csv");
  EXPECT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(lines_of(csv.out).size(), 1u) << csv.out;  // the header alone
  EXPECT_EQ(results_json("--store " + store + " --status ok")["results"].size(), 1u);
}

// `ridge results import`: the real H200 bench file (tests/data/bench/h200, four runs) enters the store with the
// environment it records, not this machine's; importing it again, or after a merge, adds nothing.
TEST(ResultsCli, ImportedGpuRunsKeepTheirEnvironmentAndAreAddedOnce) {
  auto dir = temp_dir();
  auto store = dir + "/imported.db";
  auto file = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  auto first = run_ridge("results import " + file + " --store " + store);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("4 results, 4 added, 0 already in"), std::string::npos) << first.out;
  auto again = run_ridge("results import " + file + " --store " + store);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("4 results, 0 added, 4 already in"), std::string::npos) << again.out;
  auto list = json::parse(run_ridge("results --store " + store + " -f json").out);
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
  auto shown = json::parse(run_ridge("results --store " + store + " --id 2 --show -f json").out);
  auto original = json::parse(std::ifstream(file));
  EXPECT_EQ(shown["runs"][0]["latency_ms"], original["runs"][1]["latency_ms"]);
  // A store that merged this one holds the same results: an import adds nothing there either.
  auto merged = dir + "/merged.db";
  ASSERT_EQ(run_ridge("store merge " + store + " -o " + merged).exit_code, 0);
  auto into_merged = run_ridge("results import " + file + " --store " + merged);
  EXPECT_NE(into_merged.out.find("0 added"), std::string::npos) << into_merged.out;
  // A file that is no bench output: one line, and the store is not created.
  auto bad = run_ridge("results import " + source_path("tests/data/ncu/README.md") + " --store " + dir + "/bad.db");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/bad.db"));
}

// A prediction written elsewhere (`ridge predict -f json`) enters the store through the prediction codec, once; the
// report then pairs it with the imported H200 runs by the GPU each run records, batch by batch, and every number in
// the pair is the typed value (the run's mean, the prediction's latency).
TEST(ResultsCli, ImportedPredictionsPairWithImportedGpuRuns) {
  auto dir = temp_dir();
  auto store = dir + "/paired.db";
  auto predicted = dir + "/h200-b32.json";
  auto p = run_ridge("predict " + model_path("resnet50") + " --device h200 --batch 32 --no-store -f json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  std::ofstream(predicted) << p.out;
  auto prediction = json::parse(p.out);
  ASSERT_EQ(prediction["batch"], 32);
  double predicted_s = prediction["totals"]["time_s"].get<double>();
  auto bench = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  auto tf32 = source_path("tests/data/bench/h200/ridge-bench-resnet50-tf32.json");
  auto first = run_ridge("results import " + predicted + " " + bench + " " + tf32 + " --store " + store);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("h200-b32.json: 1 result, 1 added"), std::string::npos) << first.out;
  auto again = run_ridge("results import " + predicted + " --store " + store);
  EXPECT_NE(again.out.find("1 result, 0 added, 1 already in"), std::string::npos) << again.out;
  auto list = json::parse(run_ridge("results --store " + store + " --command predict -f json").out);
  ASSERT_EQ(list["results"].size(), 1u);
  EXPECT_EQ(list["results"][0]["batch"], 32);
  EXPECT_NE(list["results"][0]["result"].get<std::string>().find("predicted"), std::string::npos);
  auto report = run_ridge("report --store " + store + " --markdown " + dir + "/paired");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  std::ifstream in(dir + "/paired/report.md");
  std::stringstream text;
  text << in.rdbuf();
  // The eager and CUDA-graph runs at batch 32 (14.267 and 13.948 ms in the file) pair with the batch-32 prediction;
  // the batch-1 runs have no prediction of their batch.
  auto md = text.str();
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

}  // namespace
}  // namespace ridge::test

namespace ridge::test {
namespace {

// Files a user may point at by mistake: a directory, and an ert document from a revision whose JSON had no typed
// record (as ../shared/data/gpu-h200/bench/ridge-ert-cuda.json): one line each, naming the file and what to do.
TEST(ResultsCli, ADirectoryOrAnUntypedErtDocumentIsOneLine) {
  auto dir = temp_dir();
  auto import_dir = run_ridge("results import " + dir + " --store " + dir + "/s.db");  // CLI11 refuses it: usage, 2
  EXPECT_EQ(import_dir.exit_code, 2);
  EXPECT_EQ(import_dir.err.find('\n'), import_dir.err.size() - 1) << import_dir.err;
  EXPECT_NE(import_dir.err.find("directory"), std::string::npos) << import_dir.err;
  expect_one_line_error(run_ridge("plot roofline " + model_path("alexnet") + " --device h100-sxm --measured " + dir +
                                  " -o " + dir + "/r.svg"),
                        "is a directory");
  auto old = dir + "/ert-old.json";
  std::ofstream(old) << R"({"gpu": {"name": "NVIDIA H200"}, "fma": [], "tensor": [], "bandwidth_points": []})";
  expect_one_line_error(run_ridge("results import " + old + " --store " + dir + "/s.db"), "run `ridge ert` again");
}

}  // namespace
}  // namespace ridge::test
