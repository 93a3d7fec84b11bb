// `ridge ert` as one call (hw/ert/ert_request): the options of the other device refused before anything is measured,
// and either measurement as its device file.
#include <gtest/gtest.h>

#include "hw/ert/ert_request.h"
#include "support/error_text.h"

namespace ridge::test {
namespace {

using namespace ridge::hw::ert;  // NOLINT(google-build-using-namespace)

TEST(ErtRequest, OptionsOfTheOtherDeviceAreRefusedBeforeMeasuring) {
  std::vector<std::string> progress;
  auto hear = [&](const std::string& line) { progress.push_back(line); };
  EXPECT_EQ(error_text([&] { measure({.device = "cuda", .threads = 2}, hear); }),
            "--threads sets the CPU's thread counts: it has no meaning with --device cuda");
  EXPECT_EQ(error_text([&] { measure({.gpu = 1}, hear); }), "--gpu picks a GPU: it needs --device cuda");
  // GPU 0 named is refused all the same: only its absence is the default.
  EXPECT_EQ(error_text([&] { measure({.device = "cpu", .gpu = 0}, hear); }),
            "--gpu picks a GPU: it needs --device cuda");
  EXPECT_TRUE(progress.empty());
}

TEST(ErtRequest, EitherMeasurementIsItsDeviceFile) {
  ErtResult cpu;
  cpu.cpu.model = "Test CPU";
  cpu.threads = 1;
  PeakPoint p;
  p.threads = 1;
  p.fp32 = sys::summarize({1e11});
  p.fp64 = sys::summarize({5e10});
  cpu.peaks.push_back(p);
  cpu.level_bandwidth = {{"dram", 5e10}};
  EXPECT_EQ(device_yaml(cpu), ert_device_yaml(cpu));
  GpuErtResult gpu;
  gpu.gpu.name = "NVIDIA Test GPU";
  // A GPU measurement goes to the GPU's writer: without an FMA peak it refuses the file as that one does.
  EXPECT_EQ(error_text([&] { device_yaml(gpu); }), "ert: cannot write the profile: no FMA peak was measured");
  EXPECT_EQ(error_text([&] { gpu_ert_device_yaml(gpu); }), error_text([&] { device_yaml(gpu); }));
}

}  // namespace
}  // namespace ridge::test
