// `ridge bench` as one call (report/bench_request): each point appended to the CSV files, kept and reported as it
// completes, a power source that cannot be metered refused before anything runs, and the lines that report failures.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "analysis/request_builder.h"
#include "exec/bench_codec.h"
#include "report/bench_request.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

report::BenchCommand quick_command(const std::string& model) {
  report::BenchCommand c;
  c.bench.model.model_path = model;
  c.bench.exec.threads = 1;
  c.bench.max_time_s = 0.05;
  c.bench.warmup_s = 0;
  c.bench.per_node = false;
  return c;
}

int line_count(const std::string& path) {
  std::ifstream in(path);
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

TEST(BenchRequest, EachPointIsWrittenKeptAndReportedAsItCompletes) {
  auto c = quick_command(model_path("mobilenet_v2"));
  c.bench.batches = {1, 2};
  c.csv_dir = temp_dir() + "/bench-request-csv";
  fs::remove_all(c.csv_dir);
  std::vector<std::string> lines;
  std::vector<std::pair<std::string, int64_t>> kept;  // the document's command, the parameters' batch
  auto outcome = report::measure_bench(
      c, [&](const std::string& line) { lines.push_back(line); },
      [&](const report::Document& doc, const store::Params& params, const report::TypedResult& value) {
        EXPECT_EQ(value.kind, "bench");
        ASSERT_EQ(value.runs.size(), 1u);
        EXPECT_EQ(value.runs[0].batch, params.batch.value_or(-1));
        // Each point's CSV rows are on disk before it is kept.
        EXPECT_EQ(line_count(c.csv_dir + "/overall.csv"), static_cast<int>(kept.size()) + 2);
        kept.emplace_back(doc.command, params.batch.value_or(-1));
      });
  EXPECT_TRUE(outcome.failures.empty());
  ASSERT_EQ(outcome.runs.size(), 2u);
  EXPECT_EQ(outcome.points, 2u);
  EXPECT_EQ(kept, (std::vector<std::pair<std::string, int64_t>>{{"bench", 1}, {"bench", 2}}));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(std::regex_match(lines[0], std::regex(R"(\[1/2\] batch 1, eager auto: [0-9]+\.[0-9]{3} ms)")))
      << lines[0];
  EXPECT_TRUE(std::regex_match(lines[1], std::regex(R"(\[2/2\] batch 2, eager auto: [0-9]+\.[0-9]{3} ms)")))
      << lines[1];
  EXPECT_EQ(line_count(c.csv_dir + "/overall.csv"), 3);  // a header and a row per point
  // Without a progress function or a keeper, the points are measured all the same.
  auto silent = report::measure_bench(quick_command(fusable_model()), {}, {});
  EXPECT_EQ(silent.runs.size(), 1u);
}

TEST(BenchRequest, APowerSourceThatIsAFileIsRefusedBeforeAnythingRuns) {
  auto c = quick_command(fusable_model());
  c.power = "tegrastats:run.log";
  bool kept = false;
  auto error = error_text([&] {
    report::measure_bench(
        c, {}, [&](const report::Document&, const store::Params&, const report::TypedResult&) { kept = true; });
  });
  EXPECT_EQ(error,
            "--power tegrastats:run.log: a file is no live source; integrate a recorded trace with `ridge power "
            "integrate --source tegrastats:run.log`");
  EXPECT_FALSE(kept);
}

// A model whose first input has a fixed batch: a batch sweep would measure it under other labels, so it is refused
// before anything runs.
TEST(BenchRequest, ABatchSweepOverAFixedBatchIsRefused) {
  auto c = quick_command(source_path("tests/data/training/resnet/model.onnx"));  // input 2x3x64x64
  c.bench.batches = {1, 2};
  bool kept = false;
  auto error = error_text([&] {
    report::measure_bench(
        c, {}, [&](const report::Document&, const store::Params&, const report::TypedResult&) { kept = true; });
  });
  EXPECT_NE(error.find("the model's batch is fixed at 2"), std::string::npos) << error;
  EXPECT_FALSE(kept);
}

TEST(BenchRequest, FailureLinesNameEachPointThenWhereTheOthersAre) {
  exec::BenchOutcome outcome;
  outcome.runs.resize(2);
  outcome.failures = {"batch 4, eager auto: out of memory", "batch 8, eager auto: out of memory"};
  outcome.points = 4;
  EXPECT_EQ(report::bench_failure_lines(outcome, "results/"),
            (std::vector<std::string>{"error: batch 4, eager auto: out of memory",
                                      "error: batch 8, eager auto: out of memory",
                                      "2 of 4 points failed; the 2 measured are above and in results/"}));
  EXPECT_EQ(report::bench_failure_lines(outcome, "").back(), "2 of 4 points failed; the 2 measured are above");
  outcome.runs.clear();  // nothing measured: only the errors
  EXPECT_EQ(report::bench_failure_lines(outcome, "results/"),
            (std::vector<std::string>{"error: batch 4, eager auto: out of memory",
                                      "error: batch 8, eager auto: out of memory"}));
  EXPECT_TRUE(report::bench_failure_lines({.runs = {{}}, .points = 1}, "").empty());
}

TEST(BenchRequest, ListAlgorithmsTakesNoModelAndNoOptionButFormat) {
  EXPECT_EQ(report::list_algorithms_excludes({"--list-algorithms"}), "");
  EXPECT_EQ(report::list_algorithms_excludes({"--list-algorithms", "--format", "--help"}), "");
  EXPECT_EQ(report::list_algorithms_excludes({"model", "--list-algorithms"}), "model");
  EXPECT_EQ(report::list_algorithms_excludes({"--format", "--batch", "--threads", "--list-algorithms"}), "--batch");
}

// Printed as the bench codec once every point ran, each point kept as it completed, progress on `err` with the
// command's prefix, and none of it printed in a sweep's cell (quiet).
TEST(BenchRequest, BenchAndKeepPrintsTheRunsAndKeepsEachPoint) {
  auto dir = temp_dir() + "/bench-and-keep";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto c = quick_command(model_path("mobilenet_v2"));
  c.bench.batches = {1, 2};
  std::ostringstream out, err;
  auto saved = report::invocation();
  report::invocation().quiet = false;
  EXPECT_EQ(report::bench_and_keep(c, "json", {.path = dir + "/ridge.db"}, out, err), 0);
  auto runs = exec::decode_bench(nlohmann::json::parse(out.str()), "out").runs;
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].batch, 2);
  EXPECT_TRUE(std::regex_search(err.str(), std::regex(R"(^bench: \[1/2\] batch 1, .*\nbench: \[2/2\] batch 2, )")))
      << err.str();
  auto records = store::Store(dir + "/ridge.db", true).query({});
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].command, "bench");
  std::ostringstream quiet_out, quiet_err;
  report::invocation().quiet = true;
  EXPECT_EQ(report::bench_and_keep(c, "json", {.disabled = true}, quiet_out, quiet_err), 0);
  report::invocation() = saved;
  EXPECT_EQ(quiet_out.str(), "");
  EXPECT_EQ(quiet_err.str(), "");
}

// `ridge bench DATA/model.onnx --iters 2 --warmup 0 --threads 1 --no-store -f FORMAT` (ONNX's BERT test model) in every
// format.
TEST(BenchRequest, PrintsEveryFormat) {
  auto saved = report::invocation();
  report::invocation().quiet = false;
  auto data = source_path("tests/data/executor/bert");
  report::BenchCommand c;
  c.bench.model = analysis::make_request({.model = data + "/model.onnx"});
  c.bench.iters = 2;
  c.bench.warmup_s = 0;
  c.bench.exec.threads = 1;
  for (const std::string format : {"table", "csv", "json", "md"}) {
    std::ostringstream out, err;
    EXPECT_EQ(report::bench_and_keep(c, format, {.disabled = true}, out, err), 0) << format << ": " << err.str();
    EXPECT_FALSE(out.str().empty()) << format;
    if (format == "md") {
      EXPECT_EQ(out.str().rfind("# ridge bench", 0), 0u) << out.str();
      EXPECT_NE(out.str().find("| run | mean ms |"), std::string::npos) << out.str();
    }
    if (format == "csv") {
      EXPECT_EQ(out.str().rfind("model,algorithm,input_size,batch,", 0), 0u) << out.str();
    }
  }
  report::invocation() = saved;
}

}  // namespace
}  // namespace ridge::test
