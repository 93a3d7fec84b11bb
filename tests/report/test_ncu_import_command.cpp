// ncu run on every point and its CSVs imported, printed and kept (report/ncu_import_command), in process, with a fake
// ncu that writes two kernels (gemm_kernel 2000 ns, relu_kernel 500 ns) and fails for the program argument "8", and
// with fakes (support/fake_ncu.h) that check what they are asked for, lack permission to the counters or profile
// nothing; tests/cli/test_ncu_command.cpp runs `ridge ncu run` once through the binary. Also `ridge import ncu` of
// exports on disk (import_ncu_exports): per-kernel summaries by hand, the JSON the plots read, malformed files, the
// store and the report drawing what it keeps (the mapping itself: tests/profile/test_ncu_import.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hw/device_db.h"
#include "hw/roofline.h"
#include "profile/ncu_export.h"
#include "profile/ncu_kernel.h"
#include "report/device_report.h"
#include "report/figure/roofline_request.h"
#include "report/ncu_import_command.h"
#include "report/plot_report.h"
#include "report/results_report.h"
#include "report/study_output.h"
#include "report/study_request.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/fake_ncu.h"
#include "support/files.h"
#include "support/ncu_import_fixtures.h"
#include "support/paths.h"
#include "support/scoped_env.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string fake_ncu(const std::string& dir) {
  const std::string header =
      R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")";
  const std::string row =
      R"row("%s","1","app","h","%s","1","7","(256, 1, 1)","(1024, 1, 1)","0","8.0","Command line profiler metrics","%s","%s","%s"\n)row";
  std::ostringstream body;
  body << "#!/bin/sh\nlog=''; last=''\n"
       << "while [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && log=\"$2\"; last=\"$1\"; shift; done\n"
       << "[ \"$last\" = 8 ] && { echo '==ERROR== The application returned an error code (3).'; exit 3; }\n"
       << "{\n  echo '" << header << "'\n";
  for (auto [id, kernel, ns] : {std::tuple{"0", "gemm_kernel", "2,000"}, std::tuple{"1", "relu_kernel", "500"}})
    body << "  printf '" << row << "' " << id << " " << kernel << " gpu__time_duration.sum ns '" << ns << "'\n";
  body << "} > \"$log\"\n";
  auto path = fs::path(dir) / "ncu";
  std::ofstream(path) << body.str();
  fs::permissions(path, fs::perms::owner_all);
  return path.string();
}

profile::NcuRunRequest request_in(const std::string& dir, const std::string& sweep) {
  profile::NcuRunRequest r;
  r.ncu.ncu = fake_ncu(dir);
  r.ncu.output_dir = dir + "/out";
  r.ncu.program = {"./app", "{batch}"};
  r.sweeps = {sweep};
  return r;
}

TEST(NcuImportCommand, WithoutImportPrintsWhatEachPointWrote) {
  auto dir = fresh_dir("ncu-import-command-written");
  report::NcuImportCommand import{.format = "json", .store = {.disabled = true}};
  std::ostringstream out, err;
  EXPECT_EQ(report::run_ncu_points(request_in(dir, "batch=1,2"), false, import, out, err), 0);
  auto doc = json::parse(out.str());
  ASSERT_EQ(doc.at("points").size(), 2u);
  EXPECT_EQ(doc.at("points").at(1).at("status"), "ok");
  EXPECT_EQ(doc.at("points").at(1).at("csv"), dir + "/out/ncu-batch=2.csv");
  EXPECT_NE(err.str().find("[2/2]"), std::string::npos) << err.str();
}

TEST(NcuImportCommand, AFailedPointIsNamedAfterTheOthersAreImportedAndKept) {
  auto dir = fresh_dir("ncu-import-command-failed");
  report::NcuImportCommand import{.format = "json", .store = {.path = dir + "/ridge.db"}};
  std::ostringstream out, err;
  auto error = error_text([&] { report::run_ncu_points(request_in(dir, "batch=1,8"), true, import, out, err); });
  EXPECT_EQ(error, "1 of 2 ncu runs failed: batch=8 (the CSVs of the others are in " + dir + "/out and were imported)");
  auto doc = json::parse(out.str());
  std::map<std::string, double> times;
  for (const auto& k : doc.at("kernels")) times[k.at("name").get<std::string>()] = k.at("time_s").get<double>();
  ASSERT_EQ(times.size(), 2u) << out.str();
  EXPECT_NEAR(times.at("gemm_kernel"), 2e-6, 1e-12);
  EXPECT_NEAR(times.at("relu_kernel"), 5e-7, 1e-12);
  auto records = store::Store(dir + "/ridge.db", true).query({});
  ASSERT_EQ(records.size(), 1u);  // the one run that was written
  EXPECT_EQ(records[0].command, "import ncu");
  EXPECT_EQ(records[0].params.batch, 1);
}

// --- `ridge ncu run` with fake ncu programs that check what they are asked for (support/fake_ncu.h) ---

// `ridge ncu run [--no-import] --ncu NCU --output-dir DIR [--sweep SWEEP] -f json --no-store -- PROGRAM`.
profile::NcuRunRequest checked_request(const std::string& ncu, const std::string& out_dir,
                                       std::vector<std::string> program, const std::string& sweep = "") {
  profile::NcuRunRequest r;
  r.ncu.ncu = ncu;
  r.ncu.output_dir = out_dir;
  r.ncu.program = std::move(program);
  if (!sweep.empty()) r.sweeps = {sweep};
  return r;
}

TEST(NcuRunPoints, WritesTheCsvAndTheProgramsLog) {
  auto dir = fresh_dir("ncu-run-ok");
  auto out_dir = dir + "/out";
  auto request = checked_request(ncu_fakes::checking_ncu(dir), out_dir, {"./app", "--batch", "4"});
  report::NcuImportCommand import{.format = "json", .store = {.disabled = true}};
  std::ostringstream out, err;
  ASSERT_EQ(report::run_ncu_points(request, false, import, out, err), 0) << err.str();
  auto csv = slurp(out_dir + "/ncu.csv");
  EXPECT_NE(csv.find(ncu_fakes::kHeader), std::string::npos) << csv;
  EXPECT_NE(csv.find("gemm_kernel"), std::string::npos);
  EXPECT_NE(slurp(out_dir + "/ncu.log").find("hello from the program, argument 4"), std::string::npos);
  EXPECT_NE(err.str().find("[1/1] ncu: "), std::string::npos) << err.str();
  auto doc = json::parse(out.str());
  ASSERT_EQ(doc.at("points").size(), 1u);
  EXPECT_EQ(doc.at("points").at(0).at("status"), "ok");
  EXPECT_EQ(doc.at("points").at(0).at("csv"), out_dir + "/ncu.csv");
}

// Every later point would fail the same way: the run stops at once with the fix in its one line.
TEST(NcuRunPoints, NoPermissionToTheCountersIsOneLineWithTheFix) {
  auto dir = fresh_dir("ncu-run-perm");
  auto ncu =
      ncu_fakes::script(dir, "ncu",
                        "echo '==PROF== Connected to process 1 (app)'\n"
                        "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA "
                        "GPU Performance Counters on the target device 0. For instructions on enabling "
                        "permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM'\n"
                        "exit 1\n");
  report::NcuImportCommand import{.format = "table", .store = {.disabled = true}};
  std::ostringstream out, err;
  auto error = error_text([&] {
    report::run_ncu_points(checked_request(ncu, dir + "/out", {"./app", "{batch}"}, "batch=1,8"), false, import, out,
                           err);
  });
  EXPECT_EQ(error.find('\n'), std::string::npos) << "more than one line: " << error;
  EXPECT_NE(error.find("ERR_NVGPUCTRPERM"), std::string::npos) << error;
  EXPECT_NE(error.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << error;
  EXPECT_NE(error.find("sudo"), std::string::npos) << error;
  EXPECT_EQ(err.str().find("[2/2]"), std::string::npos) << "the second point ran: " << err.str();
}

// ncu neither where --ncu says nor on PATH (PATH is read when the run looks for it, so it is set for the call).
TEST(NcuRunPoints, MissingNcuIsOneLine) {
  report::NcuImportCommand import{.format = "table", .store = {.disabled = true}};
  std::ostringstream out, err;
  auto error = error_text([&] {
    report::run_ncu_points(checked_request("/nonexistent/ncu", fresh_dir("ncu-missing"), {"./app"}), false, import, out,
                           err);
  });
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_NE(error.find("ncu not found"), std::string::npos) << error;
  if (fs::exists("/usr/local/cuda/bin/ncu")) GTEST_SKIP() << "/usr/local/cuda/bin/ncu exists here";
  ScopedEnvironment path("PATH", "/nonexistent");
  auto on_path = error_text([&] {
    report::run_ncu_points(checked_request("", fresh_dir("ncu-missing-path"), {"./app"}), false, import, out, err);
  });
  EXPECT_EQ(on_path.find('\n'), std::string::npos) << on_path;
  EXPECT_NE(on_path.find("ncu not found: install Nsight Compute"), std::string::npos) << on_path;
  EXPECT_NE(on_path.find("--ncu PATH"), std::string::npos) << on_path;
}

TEST(NcuRunPoints, NoKernelsProfiledSaysWhichFiltersToCheck) {
  auto dir = fresh_dir("ncu-run-none");
  auto ncu = ncu_fakes::script(
      dir, "ncu", "echo '==PROF== Connected to process 1 (app)'\necho '==WARNING== No kernels were profiled.'\n");
  auto request = checked_request(ncu, dir + "/out", {"./app"});
  request.ncu.kernel_name = "nothing";
  report::NcuImportCommand import{.format = "table", .store = {.disabled = true}};
  std::ostringstream out, err;
  auto error = error_text([&] { report::run_ncu_points(request, false, import, out, err); });
  // What the binary printed on stderr: the progress lines, then the error's line.
  auto said = err.str() + error;
  EXPECT_NE(error, "accepted");
  EXPECT_NE(said.find("no kernels"), std::string::npos) << said;
  EXPECT_NE(said.find("--target-processes all"), std::string::npos) << said;
}

TEST(NcuRunPoints, AFailingPointKeepsTheOthers) {
  auto dir = fresh_dir("ncu-run-sweep");
  auto out_dir = dir + "/out";
  auto request =
      checked_request(ncu_fakes::checking_ncu(dir, "8"), out_dir, {"./app", "--batch", "{batch}"}, "batch=1,8");
  report::NcuImportCommand import{.format = "table", .store = {.disabled = true}};
  std::ostringstream out, err;
  auto error = error_text([&] { report::run_ncu_points(request, false, import, out, err); });
  EXPECT_TRUE(fs::exists(out_dir + "/ncu-batch=1.csv"));
  EXPECT_NE(slurp(out_dir + "/ncu-batch=1.csv").find("relu_kernel"), std::string::npos);
  EXPECT_NE(err.str().find("[2/2] batch=8: failed"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("exit code 3"), std::string::npos) << err.str();
  EXPECT_NE(error.find("1 of 2 ncu runs failed: batch=8"), std::string::npos) << error;
  EXPECT_NE(error.find(out_dir), std::string::npos) << error;
}

// End to end with the importer: the kernels the fake wrote, imported and printed.
TEST(NcuRunPoints, ImportsWhatItWrote) {
  auto dir = fresh_dir("ncu-run-import");
  auto request = checked_request(ncu_fakes::checking_ncu(dir), dir + "/out", {"./app", "{batch}"}, "batch=2");
  report::NcuImportCommand import{.format = "json", .store = {.disabled = true}};
  std::ostringstream out, err;
  ASSERT_EQ(report::run_ncu_points(request, true, import, out, err), 0) << err.str();
  auto doc = json::parse(out.str());
  std::map<std::string, double> times;
  for (const auto& k : doc.at("kernels")) times[k.at("name").get<std::string>()] = k.at("time_s").get<double>();
  ASSERT_EQ(times.size(), 2u) << out.str();
  EXPECT_NEAR(times.at("gemm_kernel"), 2e-6, 1e-12);
  EXPECT_NEAR(times.at("relu_kernel"), 5e-7, 1e-12);
}

using namespace ncu_import_fixtures;  // NOLINT(google-build-using-namespace)

// What `ridge import ncu [-d DEVICE] [--batch B] FILES` prints in `format` (kept in `store`); fails the test unless it
// returns 0.
std::string imported(const std::vector<std::string>& files, const std::string& format,
                     const report::StoreOptions& store = {.disabled = true}, const std::string& device = "",
                     int64_t batch = 0) {
  report::NcuImportCommand command{.format = format, .store = store};
  command.request.files = files;
  command.request.device = device;
  command.request.batch = batch;
  std::ostringstream out;
  EXPECT_EQ(report::import_ncu_exports(command, out), 0);
  return out.str();
}

// The points `ridge plot roofline --hierarchical -d v100-sxm2 -f json` says it drew from `request`'s kernels.
int hierarchical_points(report::figure::RooflinePlotRequest request, const std::string& spec) {
  request.hierarchical = true;
  request.devices = {"v100-sxm2"};
  auto plot = report::figure::roofline_plot(request);
  std::ostringstream out;
  report::write_plot(plot.figure, spec, 0, "json", plot.series, plot.source, out);
  return json::parse(out.str())["points"].get<int>();
}

TEST(NcuImportCommand, LaunchFailureIsNamedNotZero) {
  auto exported = profile::read_ncu_export(sample("rashwanth_RooflineAnalysis_output8_launchfailed.csv"));
  ASSERT_EQ(exported.launches.size(), 1u);
  EXPECT_TRUE(exported.launches[0].failed());
  ASSERT_FALSE(exported.messages.empty());
  EXPECT_EQ(exported.messages[0], "==ERROR== LaunchFailed");
  auto k = profile::kernel_figures(exported.launches[0], exported.path);
  EXPECT_TRUE(k.failed);
  EXPECT_FALSE(k.time_s);
  EXPECT_FALSE(k.flops());
  auto out = imported({sample("rashwanth_RooflineAnalysis_output8_launchfailed.csv")}, "table");
  // The export imports (it is one, and says what happened), with the failure named, not as a result.
  EXPECT_NE(out.find("LaunchFailed"), std::string::npos) << out;
  EXPECT_NE(out.find("nothing was measured"), std::string::npos) << out;
  EXPECT_NE(out.find("1 launch could not be profiled"), std::string::npos) << out;
}

// --print-summary per-kernel: averages over the invocations; the run's totals count every launch.
TEST(NcuImportCommand, PerKernelSummaryByHand) {
  auto exported = profile::read_ncu_export(data("summary_per_kernel.csv"));
  EXPECT_EQ(exported.layout, profile::NcuLayout::kSummary);
  ASSERT_EQ(exported.launches.size(), 2u);
  auto k = profile::kernel_figures(exported.launches[0], exported.path);
  EXPECT_EQ(k.invocations, 4);
  EXPECT_DOUBLE_EQ(*k.time_s, 2.5e-6);
  EXPECT_DOUBLE_EQ(*k.dram_bytes, 1.05e6);
  EXPECT_DOUBLE_EQ(at(k, "fp32"), 131072);
  // 16 tensor instructions on CC 8.0: their FLOPs are not fixed by the count, so not counted.
  EXPECT_EQ(k.flops_by_precision.count("tensor"), 0u);
  bool tensor_named = false;
  for (const auto& line : k.not_counted)
    tensor_named |= line.find("tensor: tensor-pipe instructions without ops counters") != std::string::npos;
  EXPECT_TRUE(tensor_named);

  auto doc = json::parse(imported({data("summary_per_kernel.csv")}, "json"));
  const auto& run = doc["runs"][0];
  EXPECT_EQ(run["layout"], "summary");
  EXPECT_DOUBLE_EQ(run["time_s"].get<double>(), 4 * 2.5e-6 + 2 * 0.02e-3);
  EXPECT_DOUBLE_EQ(run["dram_bytes"].get<double>(), 4 * 1.05e6 + 2 * 512e3);
  EXPECT_FALSE(run.contains("flops"));  // the GEMM has no instruction counters: no total, not a partial one
  EXPECT_EQ(doc["kernels"][1]["invocations"], 2);
}

TEST(NcuImportCommand, JsonKeepsTheKernelLayoutThePlotsRead) {
  auto printed = imported({data("raw_page.csv")}, "json", {.disabled = true}, "v100-sxm2");
  auto doc = json::parse(printed);
  ASSERT_EQ(doc["kernels"].size(), 3u);
  const auto& k = doc["kernels"][0];
  EXPECT_EQ(k["name"], "void scale_kernel<float>(float *, int)");
  EXPECT_DOUBLE_EQ(k["time_s"].get<double>(), 12.5e-6);
  EXPECT_DOUBLE_EQ(k["flops"].get<double>(), 3145728);
  EXPECT_DOUBLE_EQ(k["flops_by_precision"]["fp32"].get<double>(), 3145728);
  EXPECT_DOUBLE_EQ(k["bytes"]["l1"].get<double>(), 4194300);
  EXPECT_DOUBLE_EQ(k["bytes"]["l2"].get<double>(), 8388610);
  EXPECT_DOUBLE_EQ(k["bytes"]["dram"].get<double>(), 8.39e6);
  EXPECT_DOUBLE_EQ(k["intensity"]["dram"].get<double>(), 3145728 / 8.39e6);
  EXPECT_DOUBLE_EQ(k["flops_per_s"].get<double>(), 3145728 / 12.5e-6);
  EXPECT_DOUBLE_EQ(k["bandwidth"]["dram"].get<double>(), 8.39e6 / 12.5e-6);
  // The V100's fp32 peak and DRAM bandwidth, from its device file (as `ridge devices show v100-sxm2 -f json`).
  auto v100 = hw::find_device("v100-sxm2");
  std::ostringstream shown;
  report::emit(report::roofline_document(v100, hw::roofline_for(v100, hw::resolve_mode(v100, ""))), "json", shown);
  auto device = json::parse(shown.str());
  double fp32 = device["peak_flops"]["fp32"].get<double>(), dram = device["bandwidth"]["dram"].get<double>();
  ASSERT_GT(fp32, 0) << device.dump();
  EXPECT_EQ(k["peak_key"], "fp32");
  EXPECT_NEAR(k["of_peak_pct"].get<double>(), 100 * 3145728 / 12.5e-6 / fp32, 1e-9);
  EXPECT_NEAR(k["of_dram_bw_pct"].get<double>(), 100 * 8.39e6 / 12.5e-6 / dram, 1e-9);
  EXPECT_EQ(doc["kernels"][1]["peak_key"], "fp16_tensor");

  // The hierarchical roofline draws it: one point per level per kernel.
  auto dir = fresh_dir("ncu-import-plot");
  std::ofstream(dir + "/k.json") << printed;
  EXPECT_EQ(hierarchical_points({.from = {dir + "/k.json"}}, dir + "/k.vg.json"), 9);
}

TEST(NcuImportCommand, MalformedFilesGetOneLine) {
  auto dir = fresh_dir("ncu-import-malformed");
  auto check = [&](const std::string& name, const std::string& text, const std::string& expected) {
    std::ofstream(dir + "/" + name) << text;
    auto error = error_text([&] { imported({dir + "/" + name}, "table"); });
    EXPECT_NE(error, "accepted") << name;
    EXPECT_NE(error.find(expected), std::string::npos) << name << ": " << error;
    EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 0) << error;
  };
  check("empty.csv", "", "not an Nsight Compute CSV export");
  check("other.csv", "node,time_ms\nconv1,1.5\n", "not an Nsight Compute CSV export");
  check("perm.csv",
        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters\n",
        "ncu wrote no results: ==ERROR== ERR_NVGPUCTRPERM");
  check("header-only.csv", details_csv({}, false), "a header but no profiled kernels");
  auto raw = details_csv({{"k", "", conv_metrics("1", "2")}}, false);
  std::ifstream in(data("raw_page.csv"));
  std::string raw_page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  check("mixed.csv", raw + raw_page, "one export holds one layout");

  // A quoted line of the wrong width between the rows is skipped and said.
  std::ofstream(dir + "/odd.csv") << raw << "\"program says\", \"hello\"\n";
  auto out = imported({dir + "/odd.csv"}, "table");
  EXPECT_NE(out.find("1 quoted line between the rows did not have the header's columns"), std::string::npos) << out;
}

TEST(NcuImportCommand, ImportedKernelsAreStored) {
  auto dir = fresh_dir("ncu-import-stored");
  auto store = dir + "/ncu-import.db";
  imported({data("raw_page.csv")}, "table", {.path = store}, "", 8);
  std::ostringstream list;
  report::print_results({.store_path = store, .format = "json"}, list);
  auto results = json::parse(list.str())["results"];
  ASSERT_EQ(results.size(), 1u) << list.str();
  EXPECT_EQ(results[0]["command"], "import ncu");
  EXPECT_EQ(results[0]["batch"], 8);
  auto id = results[0]["id"].get<int64_t>();
  EXPECT_EQ(hierarchical_points({.store_path = store, .results = {id}}, dir + "/stored.vg.json"), 9);
}

// `ridge report` on a store holding an import: the kernels' hierarchical roofline, with the ceilings
// of the device the import named, in the roofline section.
TEST(NcuImportCommand, TheReportDrawsStoredKernels) {
  auto dir = fresh_dir("ncu-report");
  auto store = dir + "/s.db";
  imported({data("raw_page.csv")}, "table", {.path = store}, "v100-sxm2");
  // `ridge report --store STORE --markdown DIR/md`
  report::StudyRequest study{.store_path = store, .store_required = true};
  auto written =
      report::write_study(report::gather_study(study), {.markdown_dir = dir + "/md"}, [](const std::string&) {});
  EXPECT_TRUE(written.errors.empty());
  std::ifstream in(dir + "/md/report.md");
  std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto title = md.find("Hierarchical roofline: result 1 (import ncu on v100-sxm2)");
  ASSERT_NE(title, std::string::npos) << md;
  EXPECT_GT(title, md.find("## 4. Roofline"));
  EXPECT_LT(title, md.find("## 5. Analysis"));
}

// A file name that is not UTF-8 reaches the JSON output and the store (as U+FFFD), never an internal error.
TEST(NcuImportCommand, AFileNameThatIsNotUtf8IsPrintedAndStored) {
  auto dir = fresh_dir("ncu-import-utf8");
  auto name = dir + "/caf\xe9.csv";
  fs::copy_file(source_path("tests/data/ncu/h200/details-gemm-4096-fp16-bf16-tf32-tensor-counters.csv"), name);
  // error_text hears a ridge::Error only: anything else (what the binary calls an internal error) fails here.
  std::string printed;
  EXPECT_EQ(error_text([&] { printed = imported({name}, "json", {.path = dir + "/r.db"}); }), "accepted");
  auto doc = json::parse(printed);
  EXPECT_NE(doc["files"][0].get<std::string>().find("caf\xEF\xBF\xBD.csv"), std::string::npos);
  std::ostringstream stored;
  EXPECT_EQ(error_text([&] { report::print_results({.store_path = dir + "/r.db", .format = "json"}, stored); }),
            "accepted");
  EXPECT_TRUE(json::accept(stored.str())) << stored.str();
}

}  // namespace
}  // namespace ridge::test
