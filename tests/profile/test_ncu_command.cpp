// `ridge ncu command|run`'s library side: the ncu argv of the hierarchical roofline, sweeps and their
// placeholders, and shell lines that paste into bash.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "profile/ncu_command.h"
#include "profile/ncu_metrics.h"
#include "profile/ncu_run.h"
#include "support/paths.h"
#include "util/error.h"
#include "util/program.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using profile::NcuOptions;
using profile::SweepAxis;

// --nvtx always: a program's ranges name its kernels' layers (docs/ncu.md).
const std::vector<std::string> kMetricsArgs{
    "--csv", "--page", "details", "--print-units", "base", "--metrics", profile::ncu_roofline_metric_list(), "--nvtx"};

std::vector<std::string> with_metrics(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), kMetricsArgs.begin(), kMetricsArgs.end());
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

TEST(NcuMetrics, TableIsTheHierarchicalRooflineSet) {
  std::vector<std::string> names;
  for (const auto& m : profile::ncu_roofline_metrics()) {
    names.push_back(m.name);
    EXPECT_GT(std::string(m.meaning).size(), 10u) << m.name;
  }
  std::vector<std::string> expected{"gpu__time_duration.sum", "sm__cycles_elapsed.avg",
                                    "sm__cycles_elapsed.avg.per_second"};
  for (const char* precision : {"d", "f", "h"})
    for (const char* op : {"add", "mul", "fma"})
      expected.push_back(std::string("sm__sass_thread_inst_executed_op_") + precision + op + "_pred_on.sum");
  expected.insert(expected.end(),
                  {"sm__inst_executed_pipe_tensor.sum", "l1tex__t_bytes.sum", "lts__t_bytes.sum", "dram__bytes.sum"});
  EXPECT_EQ(names, expected);
  std::string joined;
  for (const auto& n : expected) joined += (joined.empty() ? "" : ",") + n;
  EXPECT_EQ(profile::ncu_roofline_metric_list(), joined);
  ASSERT_NE(profile::find_ncu_roofline_metric("dram__bytes.sum"), nullptr);
  EXPECT_EQ(profile::find_ncu_roofline_metric("dram__bytes_read.sum"), nullptr);
}

TEST(NcuCommand, ArgvOfThePlainRun) {
  NcuOptions o;
  EXPECT_EQ(profile::ncu_argv(o, {"./app", "-n", "3"}, "out/ncu.csv"),
            with_metrics({"ncu"}, {"--log-file", "out/ncu.csv", "./app", "-n", "3"}));
}

// On a GPU of a known compute capability the command asks for its tensor-core ops counters after the table.
TEST(NcuCommand, AKnownComputeCapabilityAddsItsCounters) {
  NcuOptions o;
  o.cc = "9.0";
  auto argv = profile::ncu_argv(o, {"./app"}, "ncu.csv");
  auto metrics = std::find(argv.begin(), argv.end(), "--metrics");
  ASSERT_NE(metrics, argv.end());
  EXPECT_EQ(
      *(metrics + 1), profile::ncu_roofline_metric_list() + "," + [] {
        std::string rest;
        for (const auto& m : profile::ncu_cc_metrics("9.0")) rest += (rest.empty() ? "" : ",") + std::string(m.name);
        return rest;
      }());
  EXPECT_NE((metrics + 1)->find("sm__ops_path_tensor_src_tf32_dst_fp32.sum"), std::string::npos);
  EXPECT_NE((metrics + 1)->find("sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"), std::string::npos);
  ASSERT_NE(profile::find_ncu_roofline_metric("sm__ops_path_tensor_src_fp16.sum"), nullptr);
}

TEST(NcuCommand, ArgvWithEveryFilter) {
  NcuOptions o;
  o.ncu = "/opt/nsight/ncu";
  o.nvtx_include = {"forward/", "dom@step/"};
  o.kernel_name = "gemm|conv";
  o.launch_skip = 10;
  o.launch_count = 5;
  o.clock_control = "none";
  o.target_processes = "all";
  EXPECT_EQ(profile::ncu_argv(o, {"python3", "x.py"}, "d/ncu.csv"),
            with_metrics({"/opt/nsight/ncu"},
                         {"--nvtx-include", "forward/", "--nvtx-include", "dom@step/", "--kernel-name",
                          "regex:gemm|conv", "--launch-skip", "10", "--launch-count", "5", "--clock-control", "none",
                          "--target-processes", "all", "--log-file", "d/ncu.csv", "python3", "x.py"}));
  o.kernel_name = "regex:^sgemm";  // already a regex: not prefixed twice
  auto argv = profile::ncu_argv(o, {"a"}, "x.csv");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "regex:^sgemm"), argv.end());
}

TEST(NcuCommand, OnePointWithoutSweeps) {
  NcuOptions o;
  o.program = {"./app", "--batch", "4"};
  o.output_dir = "out";
  auto points = profile::ncu_points(o, {});
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].label, "");
  EXPECT_EQ(points[0].csv_path, "out/ncu.csv");
  EXPECT_EQ(points[0].log_path, "out/ncu.log");
  EXPECT_EQ(points[0].argv, profile::ncu_argv(o, o.program, "out/ncu.csv"));
}

TEST(NcuCommand, SweepsAreTheCartesianProduct) {
  NcuOptions o;
  o.program = {"./app", "--batch={batch}", "--seq", "{seq}", "tag-{batch}x{seq}"};
  o.output_dir = "runs";
  auto points = profile::ncu_points(o, {profile::parse_sweep("batch=1,8"), profile::parse_sweep("seq=16,32")});
  ASSERT_EQ(points.size(), 4u);
  std::vector<std::string> labels;
  for (const auto& p : points) labels.push_back(p.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"batch=1,seq=16", "batch=1,seq=32", "batch=8,seq=16", "batch=8,seq=32"}));
  const auto& p = points[2];
  EXPECT_EQ(p.csv_path, "runs/ncu-batch=8,seq=16.csv");
  EXPECT_EQ(p.log_path, "runs/ncu-batch=8,seq=16.log");
  EXPECT_EQ(p.value("batch"), "8");
  EXPECT_EQ(p.value("seq"), "16");
  EXPECT_EQ(p.value("other"), "");
  std::vector<std::string> tail(p.argv.end() - 5, p.argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"./app", "--batch=8", "--seq", "16", "tag-8x16"}));
  EXPECT_EQ(*(p.argv.end() - 6), "runs/ncu-batch=8,seq=16.csv");
}

TEST(NcuCommand, ShellBracesAreNoPlaceholders) {
  NcuOptions o;
  o.program = {"sh", "-c", "echo ${HOME} {batch} '{\"a\": 1}' {1,2}"};
  auto points = profile::ncu_points(o, {profile::parse_sweep("batch=2")});
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].argv.back(), "echo ${HOME} 2 '{\"a\": 1}' {1,2}");
}

TEST(NcuCommand, FileNamesAreSafeAndDistinct) {
  EXPECT_EQ(profile::file_safe("model=a/b c.onnx"), "model=a_b_c.onnx");
  EXPECT_EQ(profile::file_safe("../x"), "_._x");
  NcuOptions o;
  o.program = {"./app", "{m}"};
  auto points = profile::ncu_points(o, {profile::parse_sweep("m=a/b,a_b")});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].csv_path, "./ncu-m=a_b.csv");
  EXPECT_EQ(points[1].csv_path, "./ncu-m=a_b-2.csv");
}

TEST(NcuCommand, Refusals) {
  NcuOptions o;
  EXPECT_THROW(profile::ncu_points(o, {}), Error);  // no program
  o.program = {"./app", "--batch", "{batch}"};
  EXPECT_THROW(profile::ncu_points(o, {}), Error);  // {batch} without a sweep
  EXPECT_THROW(profile::ncu_points(o, {profile::parse_sweep("batch=1"), profile::parse_sweep("seq=2")}), Error);
  EXPECT_THROW(profile::ncu_points(o, {profile::parse_sweep("batch=1"), profile::parse_sweep("batch=2")}), Error);
  for (const char* bad : {"batch", "=1,2", "batch=", "batch=1,,2", "1x=3", "a-b=1"})
    EXPECT_THROW(profile::parse_sweep(bad), Error) << bad;
  try {
    profile::ncu_points(o, {profile::parse_sweep("batch=1"), profile::parse_sweep("seq=2")});
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no {seq}"), std::string::npos) << e.what();
  }
  auto axis = profile::parse_sweep("batch=1,8,32");
  EXPECT_EQ(axis.name, "batch");
  EXPECT_EQ(axis.values, (std::vector<std::string>{"1", "8", "32"}));
}

TEST(NcuCommand, ShellLinesRunTheSameArgvInBash) {
  std::vector<std::string> words{"plain",   "a b",        "it's",        "$HOME",  "*",         "",          "x=1",
                                 "{batch}", "semi;colon", "back\\slash", "\"dq\"", "new\nline", "tab\there", "é",
                                 "!bang",   "~"};
  std::vector<std::string> argv{"printf", "[%s]\\n"};
  argv.insert(argv.end(), words.begin(), words.end());
  auto line = profile::shell_line(argv);
  auto out = run_program("/bin/bash", {"-c", line});
  ASSERT_TRUE(out.started) << out.error;
  EXPECT_EQ(out.exit_code, 0) << line;
  std::string expected;
  for (const auto& w : words) expected += "[" + w + "]\n";
  EXPECT_EQ(out.output, expected) << line;
  // A first word bash would take for an assignment is quoted.
  EXPECT_EQ(profile::shell_line({"X=1", "a"}), "'X=1' a");
}

TEST(NcuCommand, DiagnosesNcuMessages) {
  using profile::NcuFailure;
  auto perm = profile::diagnose_ncu(
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on "
      "the target device 0.\n",
      1, false, "x.log");
  EXPECT_EQ(perm.failure, NcuFailure::kNoPermission);
  EXPECT_TRUE(perm.stops_all());
  EXPECT_NE(perm.message.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  auto unsupported = profile::diagnose_ncu("==ERROR== Profiling is not supported on this device\n", 1, false, "x.log");
  EXPECT_EQ(unsupported.failure, NcuFailure::kUnsupportedDevice);
  EXPECT_NE(unsupported.message.find("vGPU"), std::string::npos);
  auto none = profile::diagnose_ncu("==WARNING== No kernels were profiled.\n", 0, false, "x.log");
  EXPECT_EQ(none.failure, NcuFailure::kNoKernels);
  EXPECT_NE(none.message.find("--target-processes all"), std::string::npos);
  auto failed = profile::diagnose_ncu(
      "==ERROR== The application returned an error code (3).\n==WARNING== No kernels were profiled.\n", 3, false,
      "x.log");
  EXPECT_EQ(failed.failure, NcuFailure::kProgramFailed);
  EXPECT_NE(failed.message.find("exit code 3"), std::string::npos);
  EXPECT_FALSE(failed.stops_all());
  EXPECT_EQ(profile::diagnose_ncu("==PROF== Disconnected from process 1\n", 0, true, "x.log").failure,
            NcuFailure::kNone);
}

// --- `ridge ncu command` ---

// --- `ridge ncu run` with fake ncu programs ---

}  // namespace
}  // namespace ridge::test
