// The CSV side of bench results (exec/bench_csv): what `ridge bench --csv` appends reads back into the runs
// that were written, field by field as far as the CSV holds them; a real H200 bench JSON loads through the same
// entry point as its codec decodes it; malformed directories get one line naming the file and line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "exec/bench_codec.h"
#include "exec/bench_csv.h"
#include "report/bench_report.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

exec::BenchResult run(const std::string& mode, int threads, double mean_ms, bool power) {
  exec::BenchResult r;
  r.model = "models/resnet50.onnx";
  r.batch = 8;
  r.input_size = "8x3x224x224";
  r.mode = mode;
  r.precision = "tf32";
  r.memory_format = "nhwc";
  r.conv_algo = "heuristic";
  r.latency_ms = {25, mean_ms, 0.25, mean_ms - 1, mean_ms + 0.5, 0, mean_ms + 2, mean_ms + 3, 0};
  r.throughput = 8e3 / mean_ms;
  if (power) r.power = {"nvml", true, false, 412.5, 0, 0.0625, -1, 0, 0};
  r.nodes = {{"/conv1/Conv", "Conv", 1.5, 0, 3, 64, "7x7", "", -1, -1}, {"/relu/Relu", "Relu", 0.25, 0, 0, 0, "", ""}};
  r.nodes[0].median_ms = 1.25;  // the relu's is not kept (-1)
  // The GPU run stands for a training step's profile: its nodes' forward and backward parts.
  if (threads == 0) {
    r.nodes[0].forward_ms = 0.5;
    r.nodes[0].backward_ms = 1.0;
    r.nodes[1].forward_ms = 0.25;
    r.nodes[1].backward_ms = 0;
  }
  r.environment.threads = threads;
  r.environment.ridge_revision = "abc1234";
  r.timestamp = "2026-11-25T10:00:0" + std::to_string(threads) + "Z";
  return r;
}

fs::path fresh(const std::string& name) {
  auto dir = fs::path(temp_dir()) / name;
  fs::remove_all(dir);
  return dir;
}

TEST(BenchCsv, WhatBenchAppendsReadsBackAsTheRunsWritten) {
  auto dir = fresh("bench-csv-roundtrip");
  // A CPU run with power, then a GPU run (0 threads) without, appended by two calls like two bench invocations.
  std::vector<exec::BenchResult> written = {run("eager", 2, 10.5, true), run("cuda-graph", 0, 7.25, false)};
  report::append_bench_csv(dir.string(), {written[0]});
  report::append_bench_csv(dir.string(), {written[1]});
  auto read = exec::read_bench_csv(dir, "given");
  ASSERT_EQ(read.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const auto& w = written[i];
    const auto& r = read[i].run;
    EXPECT_EQ(read[i].path, "given");
    EXPECT_EQ(read[i].where, (dir / "overall.csv").string() + " line " + std::to_string(i + 2));
    EXPECT_EQ(r.model, w.model);
    EXPECT_EQ(r.batch, w.batch);
    EXPECT_EQ(r.input_size, w.input_size);
    EXPECT_EQ(r.mode, w.mode);
    EXPECT_EQ(r.precision, w.precision);
    EXPECT_EQ(r.memory_format, w.memory_format);
    EXPECT_EQ(r.conv_algo, w.conv_algo);
    EXPECT_EQ(r.environment.threads, w.environment.threads);
    EXPECT_EQ(r.environment.ridge_revision, "abc1234");
    EXPECT_EQ(r.timestamp, w.timestamp);
    EXPECT_DOUBLE_EQ(r.latency_ms.mean, w.latency_ms.mean);
    EXPECT_DOUBLE_EQ(r.latency_ms.stddev, w.latency_ms.stddev);
    EXPECT_DOUBLE_EQ(r.latency_ms.min, w.latency_ms.min);
    EXPECT_DOUBLE_EQ(r.latency_ms.median, w.latency_ms.median);
    EXPECT_DOUBLE_EQ(r.latency_ms.p99, w.latency_ms.p99);
    EXPECT_DOUBLE_EQ(r.latency_ms.max, w.latency_ms.max);
    EXPECT_EQ(r.latency_ms.samples, 25);
    EXPECT_NEAR(r.throughput, w.throughput, 1e-6 * w.throughput);
    EXPECT_EQ(r.power.measured, w.power.measured);
    EXPECT_DOUBLE_EQ(r.power.energy_per_inference_j, w.power.energy_per_inference_j);
    EXPECT_DOUBLE_EQ(r.power.mean_w, w.power.mean_w);
    ASSERT_EQ(r.nodes.size(), 2u);
    EXPECT_EQ(r.nodes[0].name, "/conv1/Conv");
    EXPECT_EQ(r.nodes[0].op_type, "Conv");
    EXPECT_DOUBLE_EQ(r.nodes[0].mean_ms, 1.5);
    EXPECT_DOUBLE_EQ(r.nodes[1].mean_ms, 0.25);
    EXPECT_DOUBLE_EQ(r.nodes[0].median_ms, 1.25);
    EXPECT_DOUBLE_EQ(r.nodes[1].median_ms, -1);                      // not kept: an empty cell, read back as -1
    EXPECT_DOUBLE_EQ(r.nodes[0].forward_ms, w.nodes[0].forward_ms);  // -1 (inference) reads back as -1
    EXPECT_DOUBLE_EQ(r.nodes[0].backward_ms, w.nodes[0].backward_ms);
    EXPECT_DOUBLE_EQ(r.nodes[1].backward_ms, w.nodes[1].backward_ms);
    EXPECT_DOUBLE_EQ(r.node_sum_ms, 1.75);
  }
  // A CSV names no device: a CPU run's threads say "cpu", a GPU run's 0 threads leave it unknown, never "cpu".
  EXPECT_EQ(read[0].run.environment.device, "cpu");
  EXPECT_EQ(read[1].run.environment.device, "");
  // Any file of the directory stands for it.
  EXPECT_EQ(exec::read_bench_runs((dir / "nodes.csv").string(), "").size(), 2u);
  EXPECT_EQ(exec::read_bench_runs(dir.string(), "").size(), 2u);
}

TEST(BenchCsv, ARealH200BenchJsonLoadsAsItsCodecDecodesIt) {
  auto path = source_path("tests/data/bench/h200/ridge-bench-resnet50-tf32.json");
  auto runs = exec::read_bench_runs(path, "");
  auto file = exec::read_bench_file(path);
  ASSERT_EQ(runs.size(), file.runs.size());
  ASSERT_FALSE(runs.empty());
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(exec::encode_bench({runs[i].run}), exec::encode_bench({file.runs[i]}));
    EXPECT_EQ(runs[i].where, path + ": runs[" + std::to_string(i) + "]");
    EXPECT_TRUE(exec::on_gpu(runs[i].run.environment));
  }
}

TEST(BenchCsv, MalformedDirectoriesAreRefusedInOneLine) {
  auto dir = fresh("bench-csv-bad");
  EXPECT_NE(error_text([&] { exec::read_bench_runs(dir.string(), ""); }).find("no such file or directory"),
            std::string::npos);
  fs::create_directories(dir);
  EXPECT_NE(error_text([&] { exec::read_bench_csv(dir, "d"); }).find("'d' has no overall.csv"), std::string::npos);
  report::append_bench_csv(dir.string(), {run("eager", 2, 10.5, true)});
  auto overall = (dir / "overall.csv").string();
  std::ifstream in(overall);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  in.close();
  auto rewrite = [&](const std::string& h, const std::string& r) { std::ofstream(overall) << h << "\n" << r << "\n"; };
  // Threads below zero, a batch of zero, a mean that is no number, a row cut short, a missing column.
  auto replaced = [&](std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  rewrite(header, replaced(row, ",nhwc,2,", ",nhwc,-2,"));
  EXPECT_EQ(error_text([&] { exec::read_bench_csv(dir, "d"); }),
            overall + " line 2: threads '-2' is not a non-negative integer");
  rewrite(header, replaced(row, ",8,", ",0,"));
  EXPECT_EQ(error_text([&] { exec::read_bench_csv(dir, "d"); }),
            overall + " line 2: batch '0' is not a positive integer");
  rewrite(header, replaced(row, ",10.5,", ",slow,"));
  EXPECT_EQ(error_text([&] { exec::read_bench_csv(dir, "d"); }), overall + " line 2: mean_ms 'slow' is not a number");
  rewrite(header, row.substr(0, row.rfind(',')));
  EXPECT_NE(error_text([&] { exec::read_bench_csv(dir, "d"); }).find(overall + " line 2: 21 fields, the header has 22"),
            std::string::npos);
  rewrite(replaced(header, ",mean_ms,", ",time,"), row);
  EXPECT_EQ(error_text([&] { exec::read_bench_csv(dir, "d"); }),
            "'" + overall + "' is not a `ridge bench --csv` file: no 'mean_ms' column");
}

}  // namespace
}  // namespace ridge::test
