// The doctor's probes of real tools: version lines and programs that hang.
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

TEST(Doctor, VersionLinesOfRealTools) {
  using ridge::version_line;
  using ridge::version_number;
  std::string ncu =
      "NVIDIA (R) Nsight Compute Command Line Profiler\nCopyright (c) 2018-2025 NVIDIA Corporation\n"
      "Version 2025.3.0.0 (build 36273991) (public-release)\n";
  EXPECT_EQ(version_line(ncu), "Version 2025.3.0.0 (build 36273991) (public-release)");
  EXPECT_EQ(version_number(version_line(ncu)), "2025.3.0.0");
  EXPECT_EQ(version_number(version_line("slurm 22.05.8\n")), "22.05.8");
  EXPECT_EQ(version_number(version_line("NVIDIA Nsight Systems version 2025.1.1.131-251135540730v0\n")),
            "2025.1.1.131");
  EXPECT_EQ(version_number("no version here"), "");
}

TEST(Doctor, ProgramsThatHangAreKilled) {
  auto slow = ridge::run_program("/bin/sh", {"-c", "echo started; sleep 30"}, 0.3);
  EXPECT_TRUE(slow.started);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_EQ(slow.output, "started\n");
  auto absent = ridge::run_program("/no/such/program", {"--version"});
  EXPECT_FALSE(absent.started && absent.exit_code == 0);
  auto quick = ridge::run_program("/bin/sh", {"-c", "echo out; echo err >&2; exit 3"});
  EXPECT_FALSE(quick.timed_out);
  EXPECT_EQ(quick.exit_code, 3);
  EXPECT_EQ(quick.output, "out\nerr\n");
}

}  // namespace
}  // namespace ridge::test
