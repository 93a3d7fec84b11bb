// `ridge import ncu` through the binary: per-kernel summaries by hand, the JSON the plots read, malformed
// files, the store, and calibration from mapped kernel times (the mapping itself: tests/profile/test_ncu_import.cpp).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/run.h"
#include "profile/layer_map.h"
#include "profile/metric_value.h"
#include "profile/ncu_export.h"
#include "profile/ncu_kernel.h"
#include "profile/ncu_metrics.h"
#include "support/model_builder.h"
#include "support/ncu_import_fixtures.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace ncu_import_fixtures;  // NOLINT(google-build-using-namespace)

using nlohmann::json;
using profile::kernel_figures;
using profile::parse_metric_value;
using profile::read_ncu_export;

TEST(NcuImport, LaunchFailureIsNamedNotZero) {
  auto exported = read_ncu_export(sample("rashwanth_RooflineAnalysis_output8_launchfailed.csv"));
  ASSERT_EQ(exported.launches.size(), 1u);
  EXPECT_TRUE(exported.launches[0].failed());
  ASSERT_FALSE(exported.messages.empty());
  EXPECT_EQ(exported.messages[0], "==ERROR== LaunchFailed");
  auto k = kernel_figures(exported.launches[0], exported.path);
  EXPECT_TRUE(k.failed);
  EXPECT_FALSE(k.time_s);
  EXPECT_FALSE(k.flops());
  auto r = run_ridge("import ncu --no-store " + sample("rashwanth_RooflineAnalysis_output8_launchfailed.csv"));
  // The export imports (it is one, and says what happened), with the failure named, not as a result.
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("LaunchFailed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nothing was measured"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 launch could not be profiled"), std::string::npos) << r.out;
}

// --print-summary per-kernel: averages over the invocations; the run's totals count every launch.
TEST(NcuImport, PerKernelSummaryByHand) {
  auto exported = read_ncu_export(data("summary_per_kernel.csv"));
  EXPECT_EQ(exported.layout, profile::NcuLayout::kSummary);
  ASSERT_EQ(exported.launches.size(), 2u);
  auto k = kernel_figures(exported.launches[0], exported.path);
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

  auto r = run_ridge("import ncu --no-store -f json " + data("summary_per_kernel.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  const auto& run = doc["runs"][0];
  EXPECT_EQ(run["layout"], "summary");
  EXPECT_DOUBLE_EQ(run["time_s"].get<double>(), 4 * 2.5e-6 + 2 * 0.02e-3);
  EXPECT_DOUBLE_EQ(run["dram_bytes"].get<double>(), 4 * 1.05e6 + 2 * 512e3);
  EXPECT_FALSE(run.contains("flops"));  // the GEMM has no instruction counters: no total, not a partial one
  EXPECT_EQ(doc["kernels"][1]["invocations"], 2);
}

TEST(NcuImport, JsonKeepsTheKernelLayoutThePlotsRead) {
  auto r = run_ridge("import ncu --no-store -f json -d v100-sxm2 " + data("raw_page.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
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
  // The V100's fp32 peak and DRAM bandwidth, from its device file.
  auto device = json::parse(run_ridge("devices show v100-sxm2 -f json").out);
  double fp32 = device["peak_flops"]["fp32"].get<double>(), dram = device["bandwidth"]["dram"].get<double>();
  ASSERT_GT(fp32, 0) << device.dump();
  EXPECT_EQ(k["peak_key"], "fp32");
  EXPECT_NEAR(k["of_peak_pct"].get<double>(), 100 * 3145728 / 12.5e-6 / fp32, 1e-9);
  EXPECT_NEAR(k["of_dram_bw_pct"].get<double>(), 100 * 8.39e6 / 12.5e-6 / dram, 1e-9);
  EXPECT_EQ(doc["kernels"][1]["peak_key"], "fp16_tensor");

  // The hierarchical roofline draws it: one point per level per kernel.
  auto dir = temp_dir();
  std::ofstream(dir + "/k.json") << r.out;
  auto plot =
      run_ridge("plot roofline --from " + dir + "/k.json --hierarchical -d v100-sxm2 -f json -o " + dir + "/k.vg.json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_EQ(json::parse(plot.out)["points"], 9) << plot.out;
}

TEST(NcuImport, MalformedFilesGetOneLine) {
  auto dir = temp_dir();
  auto check = [&](const std::string& name, const std::string& text, const std::string& expected) {
    std::ofstream(dir + "/" + name) << text;
    auto r = run_ridge("import ncu --no-store " + dir + "/" + name);
    EXPECT_EQ(r.exit_code, 1) << name;
    EXPECT_NE(r.err.find(expected), std::string::npos) << name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
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
  auto r = run_ridge("import ncu --no-store " + dir + "/odd.csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 quoted line between the rows did not have the header's columns"), std::string::npos) << r.out;
}

TEST(NcuImport, ImportedKernelsAreStored) {
  auto dir = temp_dir();
  auto store = dir + "/ncu-import.db";
  auto r = run_ridge("import ncu --store " + store + " --batch 8 " + data("raw_page.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto list = run_ridge("results --store " + store + " -f json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  auto results = json::parse(list.out)["results"];
  ASSERT_EQ(results.size(), 1u) << list.out;
  EXPECT_EQ(results[0]["command"], "import ncu");
  EXPECT_EQ(results[0]["batch"], 8);
  auto id = results[0]["id"].get<int64_t>();
  auto plot = run_ridge("plot roofline --store " + store + " --result " + std::to_string(id) +
                        " --hierarchical -d v100-sxm2 -f json -o " + dir + "/stored.vg.json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_EQ(json::parse(plot.out)["points"], 9) << plot.out;
}

// `ridge calibrate MODEL --measured EXPORT`: the export's kernels, mapped to layers, are the node
// times, per pass of the model the export holds (--repetitions, where the export does not show it).
TEST(NcuImport, CalibrateFitsTheMappedKernelTimes) {
  auto model = two_conv_model();
  auto metrics = [](const std::string& time_us) {
    return std::vector<std::array<std::string, 3>>{{"gpu__time_duration.sum", "usecond", time_us}};
  };
  std::vector<Launch> launches{{"implicit_convolve_sgemm", "conv1", metrics("30")},
                               {"elementwise_kernel", "relu1", metrics("8")},
                               {"implicit_convolve_sgemm", "conv2", metrics("50")},
                               {"memcpy_kernel", "", metrics("5")}};
  auto dir = temp_dir();
  std::ofstream(dir + "/cal.csv") << details_csv(launches, true);
  auto once = run_ridge("calibrate " + model + " --device t4 --measured " + dir + "/cal.csv -o " + dir +
                        "/t4a.yaml --no-store -f json");
  ASSERT_EQ(once.exit_code, 0) << once.err;
  auto a = json::parse(once.out);
  EXPECT_EQ(a["nodes"], 3);
  EXPECT_EQ(a["unmatched"], 0);
  bool said = false;
  for (const auto& note : a["notes"]) said |= note.get<std::string>().find("1 of 4 kernels") != std::string::npos;
  EXPECT_TRUE(said) << a["notes"].dump();
  // The same launches twice: the export holds two passes (every layer's range twice), and the fit is per pass.
  auto doubled = launches;
  doubled.insert(doubled.end(), launches.begin(), launches.end());
  std::ofstream(dir + "/cal2.csv") << details_csv(doubled, true);
  auto twice = run_ridge("calibrate " + model + " --device t4 --measured " + dir + "/cal2.csv -o " + dir +
                         "/t4b.yaml --no-store -f json");
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  auto b = json::parse(twice.out);
  EXPECT_NEAR(b["overhead_s"].get<double>(), a["overhead_s"].get<double>(), 1e-12);
  auto halved = run_ridge("calibrate " + model + " --device t4 --measured " + dir + "/cal2.csv --repetitions 2 -o " +
                          dir + "/t4c.yaml --no-store -f json");
  ASSERT_EQ(halved.exit_code, 0) << halved.err;
  EXPECT_NEAR(json::parse(halved.out)["overhead_s"].get<double>(), a["overhead_s"].get<double>(), 1e-12);
  // A count the export contradicts is refused in one line.
  auto contradicted = run_ridge("calibrate " + model + " --device t4 --measured " + dir +
                                "/cal.csv --repetitions 2 -o " + dir + "/t4d.yaml --no-store");
  EXPECT_NE(contradicted.exit_code, 0);
  EXPECT_NE(contradicted.err.find("--repetitions 2 contradicts the export, which holds 1 pass"), std::string::npos)
      << contradicted.err;
  auto refused = run_ridge("calibrate " + model + " --device t4 --measured " + source_path("tests/data/ncu/README.md") +
                           " --repetitions 2 --no-store");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--repetitions applies to an Nsight Compute export"), std::string::npos) << refused.err;
}

// `ridge report` on a store holding an import: the kernels' hierarchical roofline, with the ceilings
// of the device the import named, in the roofline section.
TEST(NcuImport, TheReportDrawsStoredKernels) {
  auto dir = temp_dir() + "/ncu-report";
  std::filesystem::create_directories(dir);
  auto store = dir + "/s.db";
  ASSERT_EQ(run_ridge("import ncu --store " + store + " -d v100-sxm2 " + data("raw_page.csv")).exit_code, 0);
  auto r = run_ridge("report --store " + store + " --markdown " + dir + "/md");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir + "/md/report.md");
  std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto title = md.find("Hierarchical roofline: result 1 (import ncu on v100-sxm2)");
  ASSERT_NE(title, std::string::npos) << md;
  EXPECT_GT(title, md.find("## 4. Roofline"));
  EXPECT_LT(title, md.find("## 5. Analysis"));
}

// A file name that is not UTF-8 reaches the JSON output and the store (as U+FFFD), never an internal error.
TEST(NcuImport, AFileNameThatIsNotUtf8IsPrintedAndStored) {
  auto dir = temp_dir();
  auto name = dir + "/caf\xe9.csv";
  std::filesystem::copy_file(source_path("tests/data/ncu/h200/details-gemm-4096-fp16-bf16-tf32-tensor-counters.csv"),
                             name);
  auto r = run_ridge("import ncu --store " + dir + "/r.db -f json '" + name + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_NE(doc["files"][0].get<std::string>().find("caf\xEF\xBF\xBD.csv"), std::string::npos);
  auto stored = run_ridge("results --store " + dir + "/r.db -f json");
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
}

}  // namespace
}  // namespace ridge::test
