// Options that cannot be honoured are refused with one line before any work, and -f reaches the printer (every format
// of every command's document is checked in process: tests/report/test_command_output.cpp).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "support/paths.h"

namespace ridge::test {
namespace {

void expect_usage_or_input_error(const CommandResult& r, int code, const std::string& expected) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
}

// -f reaches the printer through the binary; every command's document in every format is checked in process
// (tests/report/test_command_output.cpp, test_bench_request.cpp, test_run_report.cpp).
TEST(CliOutput, TheFormatOptionReachesThePrinter) {
  auto json = run_ridge("devices -f json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out;
  auto md = run_ridge("devices -f md");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("# ridge ", 0), 0u) << md.out;
}

TEST(CliOutput, UnknownFormatIsAUsageErrorEverywhere) {
  for (const std::string& command : {"analyze " + model_path("alexnet"), std::string("devices"), std::string("ert"),
                                     "bench " + model_path("alexnet"), "predict " + model_path("alexnet") + " -d t4"}) {
    auto r = run_ridge(command + " -f xml");
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find("xml"), std::string::npos) << r.err;
  }
}

TEST(CliOutput, OptionsThatWouldBeDroppedAreRefused) {
  expect_usage_or_input_error(run_ridge("analyze " + model_path("resnet50") + " --sweep batch=1,2 --batch 4"), 1,
                              "--sweep batch=... and --batch 4 both set the batch");
  expect_usage_or_input_error(run_ridge("analyze " + model_path("bert_base") + " --sweep seq=8,16 --dim seq=32"), 1,
                              "both set 'seq'");
  expect_usage_or_input_error(run_ridge("predict " + model_path("resnet50") + " -d t4 --sweep batch=1,2 --batch 4"), 1,
                              "both set the batch");
  auto data = source_path("tests/data/executor/bert");
  expect_usage_or_input_error(run_ridge("run " + data + "/model.onnx --inputs " + data + "/test_data_set_0 --batch 4"),
                              1, "--inputs fixes the input shapes");
  expect_usage_or_input_error(
      run_ridge("bench " + data + "/model.onnx --inputs " + data + "/test_data_set_0 --batch 4"), 1,
      "--inputs fixes the input shapes");
}

TEST(CliOutput, NumbersAreCheckedWithOneClearLine) {
  expect_usage_or_input_error(run_ridge("analyze " + model_path("bert_base") + " --dim seq=0"), 1,
                              "--dim seq: '0' is not a positive integer");
  expect_usage_or_input_error(run_ridge("analyze " + model_path("resnet50") + " --batch abc"), 2,
                              "'abc' is not a whole number");
  expect_usage_or_input_error(run_ridge("analyze " + model_path("resnet50") + " --batch 0"), 2, "must be at least 1");
  auto threads = run_ridge("ert --threads 0");
  expect_usage_or_input_error(threads, 2, "0 is not between 1 and 4096");
  EXPECT_LT(threads.err.size(), 120u) << threads.err;
}

TEST(CliOutput, ATypoSuggestsTheCommand) {
  expect_usage_or_input_error(run_ridge("analyse " + model_path("resnet50")), 2, "did you mean 'analyze'?");
  expect_usage_or_input_error(run_ridge("frobnicate"), 2, "unknown command 'frobnicate'");
}

TEST(CliOutput, HostWithoutAProfileSaysHowToMeasureIt) {
  expect_usage_or_input_error(run_ridge("predict " + model_path("resnet50") + " --device host"), 1,
                              "ridge ert --profile");
}

TEST(CliOutput, BenchChecksEveryPointBeforeMeasuringAny) {
  // The second point cannot fit in memory: refused before the first is measured (and before
  // libtorch is loaded), with the point named.
  auto r = run_ridge("bench " + model_path("vgg16") + " --sweep batch=1,1000000 --max-time 0.1");
  expect_usage_or_input_error(r, 1, "batch 1000000: ");
  EXPECT_NE(r.err.find("needs about"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ridge::test

namespace ridge::test {
namespace {

// The command's wiring: with no directory it lists the bundled models (report/models_report's tests check the rows).
TEST(ModelsCli, ListsTheBundledModelsAndRefusesAnEmptyDirectory) {
  auto r = run_ridge("models -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> rows;
  for (const auto& m : doc["models"]) rows[m["model"].get<std::string>()] = m;
  ASSERT_TRUE(rows.count("resnet50.onnx"));
  EXPECT_EQ(rows["resnet50.onnx"]["macs"].get<int64_t>(), 4089184256);
  auto empty = run_ridge("models " + temp_dir());
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.err.find("no .onnx files"), std::string::npos) << empty.err;
}

}  // namespace
}  // namespace ridge::test
