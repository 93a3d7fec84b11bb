// profile/executor_profile: the one ncu run of `ridge profile` is `ridge run MODEL --device cuda` with the options
// given for it.
#include <gtest/gtest.h>

#include "profile/executor_profile.h"
#include "support/error_text.h"

namespace ridge::test {
namespace {

TEST(ExecutorProfile, TheProgramIsRidgeRunOnTheGpu) {
  profile::ExecutorProfileRequest r{.ridge = "/opt/ridge", .model = "m.onnx", .batch = 8};
  auto plain = profile::executor_ncu_request(r);
  EXPECT_EQ(plain.ncu.program,
            (std::vector<std::string>{"/opt/ridge", "run", "m.onnx", "--device", "cuda", "--batch", "8"}));
  EXPECT_EQ(plain.ncu.ncu, "");  // found on PATH or in the CUDA toolkit
  EXPECT_EQ(plain.ncu.clock_control, "base");
  EXPECT_TRUE(plain.sweeps.empty());

  r.gpu = 1;
  r.precision = "tf32";
  r.conv_algo = "benchmark";
  r.output_dir = "out";
  r.cc = "9.0";
  auto full = profile::executor_ncu_request(r);
  EXPECT_EQ(full.ncu.program,
            (std::vector<std::string>{"/opt/ridge", "run", "m.onnx", "--device", "cuda", "--batch", "8", "--gpu", "1",
                                      "--precision", "tf32", "--conv-algo", "benchmark"}));
  EXPECT_EQ(full.ncu.output_dir, "out");
  EXPECT_EQ(full.ncu.cc, "9.0");
  EXPECT_NE(profile::executor_profile_note(r).find("note: ridge run m.onnx at batch 8 on the GPU, eager"),
            std::string::npos);
}

// Without a binary named, the program is the one running now; the CPU's executor has no ncu to run under.
TEST(ExecutorProfile, ThisBinaryOnTheGpuOnly) {
  profile::ExecutorProfileRequest r{.model = "m.onnx"};
  auto program = profile::executor_ncu_request(r).ncu.program;
  ASSERT_FALSE(program.empty());
  EXPECT_NE(program[0].find("ridge_tests"), std::string::npos) << program[0];
  r.device = "cpu";
  EXPECT_EQ(error_text([&] { profile::executor_ncu_request(r); }),
            "ridge profile runs the GPU executor under Nsight Compute: --device cuda (the CPU has no ncu)");
}

}  // namespace
}  // namespace ridge::test
