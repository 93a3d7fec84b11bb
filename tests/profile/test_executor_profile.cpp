// profile/executor_profile: the one ncu run of `ridge profile` is `ridge run MODEL --device cuda` with the options
// given for it.
#include <gtest/gtest.h>

#include "profile/executor_profile.h"

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

}  // namespace
}  // namespace ridge::test
