// `ridge doctor`: every check is a row in every format, programs are found on the PATH the user has
// (fake ncu / sbatch put there stand for real ones), and --for FEATURE exits 1 naming what is missing.
// Also `ridge bench --list-algorithms`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "exec/options.h"
#include "support/paths.h"
#include "util/program.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<std::string> kCheckNames{"CPU model",
                                           "avx2",
                                           "avx512f",
                                           "amx",
                                           "logical cores",
                                           "max clock",
                                           "executor module",
                                           "libtorch (ATen)",
                                           "oneDNN",
                                           "BLAS",
                                           "CUDA driver",
                                           "CUDA runtime",
                                           "cuDNN",
                                           "cuBLAS",
                                           "NVML",
                                           "GPUs",
                                           "GPU module",
                                           "ncu",
                                           "nsys",
                                           "nvpmodel",
                                           "tegrastats",
                                           "jetson_clocks",
                                           "RAPL",
                                           "sbatch",
                                           "results store",
                                           "device files"};

// A directory holding executable shell scripts NAME -> body, to be the whole PATH of a run.
std::string tool_dir(const std::string& name, const std::map<std::string, std::string>& scripts) {
  auto dir = fs::path(temp_dir()) / name;
  fs::create_directories(dir);
  for (const auto& [tool, body] : scripts) {
    auto path = dir / tool;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  }
  return dir.string();
}

const std::map<std::string, std::string> kFakeTools{{"ncu",
                                                     "echo 'NVIDIA (R) Nsight Compute Command Line Profiler'\n"
                                                     "echo 'Copyright (c) 2018-2025 NVIDIA Corporation'\n"
                                                     "echo 'Version 2025.3.0.0 (build 36273991) (public-release)'\n"},
                                                    {"sbatch", "echo 'slurm 22.05.8'\n"}};

std::map<std::string, json> checks_by_name(const std::string& out) {
  std::map<std::string, json> checks;
  auto doc = json::parse(out);
  for (const auto& c : doc.at("checks")) checks[c.at("check").get<std::string>()] = c;
  return checks;
}

void expect_one_line(const std::string& err) {
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.find('\n'), err.size() - 1) << "more than one line: " << err;
}

TEST(Doctor, EveryCheckIsARowOfTheJson) {
  auto r = run_ridge("doctor -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& c : doc.at("checks")) {
    names.push_back(c.at("check").get<std::string>());
    for (const char* key : {"area", "check", "status", "detail", "fix"}) EXPECT_TRUE(c.at(key).is_string()) << key;
    EXPECT_FALSE(c.at("required").get<bool>());
    auto status = c.at("status").get<std::string>();
    EXPECT_TRUE(status == "ok" || status == "missing" || status == "not applicable") << status;
    EXPECT_EQ(c.at("fix").get<std::string>().empty(), status != "missing") << c.dump();
    EXPECT_FALSE(c.at("detail").get<std::string>().empty()) << c.dump();
  }
  EXPECT_EQ(names, kCheckNames);
  auto checks = checks_by_name(r.out);
  // This machine: the executor loads and the bundled device files are valid.
  EXPECT_EQ(checks["executor module"]["status"], "ok") << checks["executor module"].dump();
  EXPECT_EQ(checks["libtorch (ATen)"]["status"], "ok");
  EXPECT_EQ(checks["device files"]["status"], "ok") << checks["device files"].dump();
  EXPECT_EQ(checks["logical cores"]["status"], "ok");
}

TEST(Doctor, PrintsEveryFormat) {
  for (const char* format : {"table", "csv", "md"}) {
    auto r = run_ridge(std::string("doctor --for bench -f ") + format);
    ASSERT_EQ(r.exit_code, 0) << format << ": " << r.err;
    for (const auto& name : kCheckNames) EXPECT_NE(r.out.find(name), std::string::npos) << format << ": " << name;
  }
  auto csv = run_ridge("doctor -f csv");
  EXPECT_EQ(csv.out.rfind("area,check,status,detail,fix,required\n", 0), 0u) << csv.out;
}

TEST(Doctor, ToolsOnPathReportTheirVersions) {
  auto path = tool_dir("fake-tools", kFakeTools);
  auto r = run_ridge("doctor -f json", "PATH=" + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto checks = checks_by_name(r.out);
  EXPECT_EQ(checks["ncu"]["status"], "ok") << checks["ncu"].dump();
  EXPECT_NE(checks["ncu"]["detail"].get<std::string>().find("2025.3.0.0"), std::string::npos) << checks["ncu"].dump();
  EXPECT_NE(checks["ncu"]["detail"].get<std::string>().find(path + "/ncu"), std::string::npos);
  EXPECT_EQ(checks["sbatch"]["status"], "ok") << checks["sbatch"].dump();
  EXPECT_NE(checks["sbatch"]["detail"].get<std::string>().find("22.05.8"), std::string::npos)
      << checks["sbatch"].dump();
  EXPECT_EQ(checks["nsys"]["status"], "missing");
  // Looking for programs never disturbs loading the executor.
  EXPECT_EQ(checks["executor module"]["status"], "ok");
}

TEST(Doctor, ToolsNotOnPathAreMissingWithAFix) {
  auto r = run_ridge("doctor -f json", "PATH=" + tool_dir("no-tools", {}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto checks = checks_by_name(r.out);
  for (const char* tool : {"ncu", "nsys", "sbatch"}) {
    EXPECT_EQ(checks[tool]["status"], "missing") << checks[tool].dump();
    EXPECT_EQ(checks[tool]["detail"], "not on PATH") << checks[tool].dump();
    EXPECT_FALSE(checks[tool]["fix"].get<std::string>().empty());
  }
  EXPECT_NE(checks["sbatch"]["fix"].get<std::string>().find("slurm"), std::string::npos);
}

TEST(Doctor, AToolThatFailsIsMissingWithItsMessage) {
  auto path = tool_dir("broken-tools", {{"sbatch",
                                         "echo 'sbatch: fatal: Could not establish a configuration source' >&2\n"
                                         "exit 1\n"}});
  auto checks = checks_by_name(run_ridge("doctor -f json", "PATH=" + path).out);
  EXPECT_EQ(checks["sbatch"]["status"], "missing");
  EXPECT_NE(checks["sbatch"]["detail"].get<std::string>().find("configuration source"), std::string::npos)
      << checks["sbatch"].dump();
}

TEST(Doctor, ForSlurmNeedsSbatch) {
  auto without = run_ridge("doctor --for slurm", "PATH=" + tool_dir("no-tools", {}));
  EXPECT_EQ(without.exit_code, 1) << without.err;
  expect_one_line(without.err);
  EXPECT_NE(without.err.find("not ready for slurm"), std::string::npos) << without.err;
  EXPECT_NE(without.err.find("sbatch missing"), std::string::npos) << without.err;
  EXPECT_NE(without.err.find("apt install slurm-client"), std::string::npos) << without.err;
  auto with = run_ridge("doctor --for slurm -f json", "PATH=" + tool_dir("fake-tools", kFakeTools));
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_TRUE(with.err.empty()) << with.err;
  auto doc = json::parse(with.out);
  EXPECT_EQ(doc["for"], "slurm");
  EXPECT_EQ(doc["ready"], true);
  for (const auto& c : doc["checks"]) EXPECT_EQ(c["required"].get<bool>(), c["check"] == "sbatch") << c.dump();
}

TEST(Doctor, ForBenchNeedsTheExecutorWhichLoadsHere) {
  auto r = run_ridge("doctor --for bench -f json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto checks = checks_by_name(r.out);
  EXPECT_TRUE(checks["executor module"]["required"].get<bool>());
  EXPECT_FALSE(checks["CUDA driver"]["required"].get<bool>());
  auto table = run_ridge("doctor --for bench");
  EXPECT_NE(table.out.find("ready: yes"), std::string::npos) << table.out;
}

TEST(Doctor, ForBenchCudaNamesWhatIsMissing) {
  auto checks = checks_by_name(run_ridge("doctor -f json").out);
  auto r = run_ridge("doctor --for bench-cuda -f json");
  bool ready = true;
  for (const char* name : {"CUDA driver", "CUDA runtime", "cuDNN", "cuBLAS", "GPUs", "GPU module"}) {
    EXPECT_TRUE(json::parse(r.out)["checks"].is_array());
    if (checks[name]["status"] == "ok") continue;
    ready = false;
    EXPECT_NE(r.err.find(std::string(name) + " "), std::string::npos) << name << ": " << r.err;
  }
  EXPECT_EQ(r.exit_code, ready ? 0 : 1) << r.err;
  // No NVIDIA driver (this machine, CI): not ready, and the message names the driver and its fix.
  if (checks["CUDA driver"]["status"] != "ok") {
    EXPECT_EQ(r.exit_code, 1);
    expect_one_line(r.err);
    EXPECT_NE(r.err.find("CUDA driver missing [install the NVIDIA driver"), std::string::npos) << r.err;
    EXPECT_EQ(checks["GPUs"]["status"], "missing");
  }
}

TEST(Doctor, AnExecutorThatDoesNotLoadIsMissingWithTheLoadersMessage) {
  auto fake = fs::path(temp_dir()) / "libridge_exec.so";
  std::ofstream(fake) << "not a shared library\n";
  auto r = run_ridge("doctor --for bench -f json", "RIDGE_EXEC_MODULE=" + fake.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  expect_one_line(r.err);
  EXPECT_NE(r.err.find("executor module missing"), std::string::npos) << r.err;
  auto module = checks_by_name(r.out)["executor module"];
  EXPECT_EQ(module["status"], "missing");
  EXPECT_NE(module["detail"].get<std::string>().find(fake.string()), std::string::npos) << module.dump();
  EXPECT_NE(module["fix"].get<std::string>().find("libtorch"), std::string::npos) << module.dump();
}

// The CUDA toolkit's stub libcuda, found first by the loader (a common mistake), is a driver that
// does not work: named, with how to get rid of it.
TEST(Doctor, TheToolkitsStubDriverIsNotADriver) {
  fs::path stub;
  for (const char* candidate : {"/usr/local/cuda/lib64/stubs/libcuda.so", "/usr/local/cuda/lib/stubs/libcuda.so"})
    if (fs::exists(candidate)) stub = candidate;
  if (stub.empty()) GTEST_SKIP() << "no CUDA toolkit stubs here";
  auto dir = fs::path(temp_dir()) / "stub-driver";
  fs::create_directories(dir);
  fs::create_symlink(stub, dir / "libcuda.so.1");
  auto r = run_ridge("doctor -f json", "LD_LIBRARY_PATH=" + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto checks = checks_by_name(r.out);
  EXPECT_EQ(checks["CUDA driver"]["status"], "missing") << checks["CUDA driver"].dump();
  EXPECT_NE(checks["CUDA driver"]["detail"].get<std::string>().find("CUDA_ERROR_STUB_LIBRARY"), std::string::npos)
      << checks["CUDA driver"].dump();
  EXPECT_NE(checks["CUDA driver"]["fix"].get<std::string>().find("stub"), std::string::npos);
  EXPECT_EQ(checks["GPUs"]["status"], "missing");
}

TEST(Doctor, ForPowerIsAnyOneOfItsSources) {
  auto r = run_ridge("doctor --for power -f json");
  auto checks = checks_by_name(r.out);
  bool any = false;
  for (const char* name : {"NVML", "RAPL", "tegrastats"}) {
    EXPECT_TRUE(checks[name]["required"].get<bool>()) << name;
    any = any || checks[name]["status"] == "ok";
  }
  EXPECT_EQ(r.exit_code, any ? 0 : 1) << r.err;
  if (!any) {
    EXPECT_NE(r.err.find("one of NVML, RAPL, tegrastats is needed"), std::string::npos) << r.err;
  }
}

TEST(Doctor, UnknownFeatureIsAUsageError) {
  auto r = run_ridge("doctor --for gpu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  expect_one_line(r.err);
  EXPECT_NE(r.err.find("bench-cuda"), std::string::npos) << r.err;
}

TEST(Doctor, StoreIsCheckedWhereItWouldBeWritten) {
  auto dir = fs::path(temp_dir()) / "store";
  fs::create_directories(dir);
  auto check = [](const std::string& args, const std::string& env = "") {
    return checks_by_name(run_ridge("doctor -f json " + args, env).out)["results store"];
  };
  auto fresh = check("--store " + (dir / "results.db").string());
  EXPECT_EQ(fresh["status"], "ok") << fresh.dump();
  EXPECT_NE(fresh["detail"].get<std::string>().find("--store"), std::string::npos) << fresh.dump();
  auto from_env = check("", "RIDGE_STORE=" + (dir / "env.db").string());
  EXPECT_EQ(from_env["status"], "ok") << from_env.dump();
  EXPECT_NE(from_env["detail"].get<std::string>().find("RIDGE_STORE"), std::string::npos) << from_env.dump();
  auto nowhere = check("--store " + (dir / "no" / "such" / "results.db").string());
  EXPECT_EQ(nowhere["status"], "missing") << nowhere.dump();
  EXPECT_NE(nowhere["fix"].get<std::string>().find("mkdir -p"), std::string::npos) << nowhere.dump();
  auto directory = check("--store " + dir.string());
  EXPECT_EQ(directory["status"], "missing") << directory.dump();
}

TEST(Doctor, AnInvalidDeviceFileIsNamed) {
  auto dir = fs::path(temp_dir()) / "bad-devices";
  fs::create_directories(dir);
  std::ofstream(dir / "broken-gpu.yaml") << "id: broken-gpu\nname: [unclosed\n";
  auto r = run_ridge("doctor -f json", "RIDGE_DEVICE_PATH=" + dir.string());
  auto devices = checks_by_name(r.out)["device files"];
  EXPECT_EQ(devices["status"], "missing") << devices.dump();
  EXPECT_NE(devices["detail"].get<std::string>().find("broken-gpu.yaml"), std::string::npos) << devices.dump();
}

TEST(BenchListAlgorithms, ListsEveryValueWithoutAModel) {
  auto r = run_ridge("bench --list-algorithms");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The CPU's, then cuDNN's (--device cuda), then "all".
  auto algorithms = exec::conv_algo_names();
  for (const auto& name : exec::cudnn_conv_algo_names()) algorithms.push_back(name);
  algorithms.emplace_back(exec::kAllConvAlgos);
  std::vector<std::string> listed;
  std::istringstream lines(r.out);
  for (std::string line, option, value; std::getline(lines, line);)
    if (std::istringstream(line) >> option >> value && option == "--conv-algo") listed.push_back(value);
  EXPECT_EQ(listed, algorithms) << r.out;
  for (const char* format : {"csv", "md"}) {
    auto other = run_ridge(std::string("bench --list-algorithms -f ") + format);
    EXPECT_EQ(other.exit_code, 0) << format << ": " << other.err;
    EXPECT_NE(other.out.find("winograd"), std::string::npos) << format;
  }
}

TEST(BenchListAlgorithms, JsonHasEveryOptionValue) {
  auto r = run_ridge("bench --list-algorithms -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::vector<std::string>> values;
  auto doc = json::parse(r.out);
  for (const auto& o : doc.at("options")) {
    EXPECT_FALSE(o.at("description").get<std::string>().empty()) << o.dump();
    EXPECT_FALSE(o.at("applies_to").get<std::string>().empty()) << o.dump();
    values[o.at("option").get<std::string>()].push_back(o.at("name").get<std::string>());
  }
  // The CPU's, then cuDNN's (--device cuda), then "all".
  auto algorithms = exec::conv_algo_names();
  for (const auto& name : exec::cudnn_conv_algo_names()) algorithms.push_back(name);
  algorithms.emplace_back(exec::kAllConvAlgos);
  EXPECT_EQ(values["--conv-algo"], algorithms);
  auto modes = exec::mode_names();
  modes.emplace_back(exec::kBothModes);
  EXPECT_EQ(values["--mode"], modes);
  EXPECT_EQ(values["--precision"], exec::precision_names());
  EXPECT_EQ(values["--memory-format"], exec::memory_format_names());
}

TEST(BenchListAlgorithms, ModelIsStillRequiredOtherwise) {
  for (const std::string& args : {std::string("bench"), std::string("bench --threads 2")}) {
    auto r = run_ridge(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    expect_one_line(r.err);
    EXPECT_NE(r.err.find("model is required"), std::string::npos) << r.err;
  }
  // --list-algorithms takes no model and no run options: refused, never dropped.
  for (const std::string& args :
       {"bench --list-algorithms " + model_path("alexnet"), std::string("bench --list-algorithms --threads 2")}) {
    auto r = run_ridge(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(r.out.empty()) << r.out;
    expect_one_line(r.err);
    EXPECT_NE(r.err.find("--list-algorithms excludes"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace ridge::test
