// `ridge profile MODEL --device cuda`: ridge's own GPU executor under Nsight Compute, imported with the model. A fake
// ncu checks the command line it is given (this ridge, `run MODEL --device cuda --batch N`, the roofline metrics)
// and writes the real H100 export of exactly that run (tests/data/ncu/h100), so the mapping is the real one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/one_line_error.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

// A fake ncu: every argument must be as `ridge profile` builds it; then ridge run's "output" and the export.
std::string fake_ncu(const std::string& dir, const std::string& export_file) {
  auto path = fs::path(dir) / "ncu";
  std::ofstream(path) << "#!/bin/sh\n"
                      << "log=''; all=\" $* \"\n"
                      << "while [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && log=\"$2\"; shift; done\n"
                      << "case \"$all\" in *' run " << model_path("resnet50") << " --device cuda --batch 1 '*) ;; "
                      << "*) echo \"==ERROR== unexpected program: $all\"; exit 9;; esac\n"
                      << "case \"$all\" in *' --nvtx '*) ;; *) echo '==ERROR== no --nvtx'; exit 9;; esac\n"
                      << "case \"$all\" in *'/ridge run '*) ;; *) echo '==ERROR== not ridge run'; exit 9;; esac\n"
                      << "echo 'output of ridge run'\n"
                      << "cp '" << export_file << "' \"$log\"\n";
  fs::permissions(path, fs::perms::owner_all);
  return path.string();
}

TEST(Profile, RunsTheGpuExecutorUnderNcuAndMapsEveryKernelToItsLayer) {
  auto dir = temp_dir() + "/profile";
  fs::create_directories(dir);
  auto ncu = fake_ncu(dir, source_path("tests/data/ncu/h100/details-ridge-cuda-executor-resnet50-b1-fp32-nvtx.csv"));
  auto r = run_ridge("profile " + model_path("resnet50") + " --device cuda --ncu " + ncu + " --output-dir " + dir +
                     "/out --cc 9.0 --ceilings h100-sxm --no-store -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.err.find("eager (a CUDA graph's replay has no NVTX ranges"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir + "/out/ncu.csv"));
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_TRUE(doc.contains("kernels")) << r.out.substr(0, 2000);
  EXPECT_EQ(doc["kernels"].size(), 175u);
  // Every kernel is in a layer (the executor's NVTX ranges); none is left unmapped.
  EXPECT_TRUE(!doc.contains("unmapped") || doc["unmapped"].empty()) << doc["unmapped"].dump().substr(0, 500);
  ASSERT_TRUE(doc.contains("layers"));
  EXPECT_GE(doc["layers"].size(), 121u);
  bool conv1 = false;
  for (const auto& layer : doc["layers"]) conv1 = conv1 || layer.dump().find("/conv1/Conv") != std::string::npos;
  EXPECT_TRUE(conv1);

  auto cpu = run_ridge("profile " + model_path("resnet50") + " --device cpu --no-store");
  expect_one_line_error(cpu, "ridge profile runs the GPU executor under Nsight Compute: --device cuda");
  auto missing = run_ridge("profile " + model_path("resnet50") + " --ncu " + dir + "/nowhere --no-store");
  expect_one_line_error(missing, "ncu not found at");
}

}  // namespace
}  // namespace ridge::test
