// The GPU module through the binary on a machine without a GPU: options the device cannot honour refused
// before anything runs, a run refused in one line, and doctor's module check.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/one_line_error.h"
#include "support/paths.h"
#include "sys/cuda_module.h"

namespace ridge::test {
namespace {

TEST(CudaCli, OptionsTheDeviceCannotHonourAreRefusedBeforeAnythingRuns) {
  auto model = model_path("alexnet");
  expect_one_line_error(run_ridge("bench " + model + " --precision tf32"), "--precision tf32");
  expect_one_line_error(run_ridge("bench " + model + " --conv-algo fft-tiling"), "--conv-algo fft-tiling");
  expect_one_line_error(run_ridge("bench " + model + " --mode cuda-graph"), "--mode cuda-graph");
  expect_one_line_error(run_ridge("run " + model + " --gpu 1"), "--gpu");
  expect_one_line_error(run_ridge("bench " + model + " --device cuda --threads 2"), "--threads");
  // The GPU's optimized mode is for inference too.
  expect_one_line_error(run_ridge("bench " + model + " --device cuda --training --mode optimized"), "--mode optimized");
  // A training step runs unrewritten.
  expect_one_line_error(run_ridge("bench " + model + " --training --mode optimized"), "--mode optimized");
  auto list = run_ridge("bench --list-algorithms -f json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (const auto* name : {"implicit-precomp-gemm", "fft-tiling", "winograd-nonfused", "heuristic", "benchmark",
                           "legacy-heuristic", "cuda-graph", "tf32"})
    EXPECT_NE(list.out.find(std::string("\"") + name + "\""), std::string::npos) << name;
}

// This machine may have no GPU: then --device cuda says why in one line, exit 1, nothing measured.
TEST(CudaCli, WithoutAGpuTheRunIsRefusedInOneLine) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) GTEST_SKIP() << "a GPU is present: scripts/gpu-check.sh";
  ASSERT_TRUE(sys::cuda_module_built());
  auto r = run_ridge("bench " + model_path("alexnet") + " --device cuda --iters 2 --no-store");
  expect_one_line_error(r, "--device cuda: ");
  EXPECT_TRUE(r.out.empty()) << r.out;
  auto run = run_ridge("run " + model_path("resnet50") + " --device cuda");
  expect_one_line_error(run, "GPU");
  // The layer sample of a GPU device file runs the GPU executor: refused before the first layer, in one line.
  auto sample = run_ridge("calibrate --device h200 --sample --quick --no-store -o " + temp_dir() + "/gpu-sample.yaml");
  expect_one_line_error(sample, "--device cuda: ");
  EXPECT_EQ(sample.err.find("calibrate: ["), std::string::npos) << sample.err;  // no progress: nothing was timed
}

TEST(CudaCli, DoctorSaysWhetherTheGpuModuleLoads) {
  auto ok = run_ridge("doctor -f json");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  // The module sits beside the binary; doctor names it by its resolved path, which differs from the one
  // the tests were given where the build is reached through a symbolic link (the GPU machine's layout).
  auto dir = ridge_binary().substr(0, ridge_binary().rfind('/'));
  auto resolved = std::filesystem::weakly_canonical(dir).string();
  EXPECT_TRUE(ok.out.find("loads (" + dir + "/libridge_cuda.so)") != std::string::npos ||
              ok.out.find("loads (" + resolved + "/libridge_cuda.so)") != std::string::npos)
      << ok.out;
  auto fake = temp_dir() + "/libridge_cuda.so";
  { std::ofstream(fake) << "not a shared library\n"; }
  auto broken = run_ridge("doctor --for bench-cuda", "RIDGE_CUDA_MODULE=" + fake);
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_NE(broken.err.find("GPU module missing [the module's libraries"), std::string::npos) << broken.err;
  EXPECT_NE(broken.out.find("cannot load module '" + fake + "'"), std::string::npos) << broken.out;
}

}  // namespace
}  // namespace ridge::test
