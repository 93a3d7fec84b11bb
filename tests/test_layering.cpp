// The module order DESIGN.md documents, checked on every #include in src/: a module includes only modules below
// it. Known exceptions are listed with why they remain; a new upward include fails, and so does a listed one
// that is gone (the list only shrinks).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "support/paths.h"

namespace ridge::test {
namespace {

// util, graph, onnx, shape, cost; analysis (what cost computes, per model); then exec and hw (neither needs
// the other); then roofline, calib, profile, power, store, sweep; then report; then cli and the doctor's
// platform checks (src/hw/platform/).
const std::map<std::string, int> kLevel{
    {"util", 0},  {"graph", 1}, {"onnx", 2},     {"shape", 3}, {"cost", 4},    {"analysis", 5},
    {"exec", 6},  {"hw", 6},    {"roofline", 7}, {"calib", 7}, {"profile", 7}, {"power", 7},
    {"store", 7}, {"sweep", 7}, {"report", 8},   {"cli", 9},   {"doctor", 9},
};

// Includes that still run against the order. exec and hw: timing statistics, the CUDA runtime plumbing and host
// detection are to move below both (issue 31, section 2). report renders the doctor's check records, which are
// to move below report when the doctor leaves hw/. "file -> included module".
const std::set<std::string> kKnown{
    "src/exec/aten/entry.cpp -> hw",    "src/exec/cuda/entry.cpp -> hw",
    "src/hw/cuda/ert_device.h -> exec", "src/hw/cuda/ert_module.cpp -> exec",
    "src/hw/ert/ert.h -> exec",         "src/hw/ert/gpu_ert.cpp -> exec",
    "src/hw/ert/gpu_ert.h -> exec",     "src/report/doctor_report.h -> doctor",
};

std::string module_of(const std::string& relative) {  // "src/hw/platform/x.cpp" -> "doctor"
  if (relative.rfind("src/hw/platform/", 0) == 0) return "doctor";
  auto rest = relative.substr(4);
  return rest.substr(0, rest.find('/'));
}

TEST(Layering, NoIncludeRunsUpward) {
  const std::filesystem::path root = source_path("");
  const std::regex include_line(R"(^\s*#\s*include\s+"([a-z_]+)/([^"]+)\")");
  std::set<std::string> found, upward;
  int checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "src")) {
    auto ext = entry.path().extension().string();
    if (ext != ".cpp" && ext != ".h" && ext != ".cu") continue;
    auto relative = std::filesystem::relative(entry.path(), root).generic_string();
    auto from = module_of(relative);
    ASSERT_TRUE(kLevel.count(from)) << relative << ": module '" << from << "' is not in the documented order";
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, include_line)) continue;
      std::string to = m[1];
      if (to == "hw" && m[2].str().rfind("platform/", 0) == 0) to = "doctor";
      if (!kLevel.count(to) || to == from) continue;
      ++checked;
      // Below, or beside at a level whose modules may use each other (7; 9: cli calls the doctor); exec and hw
      // may not.
      const int level = kLevel.at(to);
      bool allowed = level < kLevel.at(from) || (level == kLevel.at(from) && (level == 7 || level == 9));
      if (allowed) continue;
      auto key = relative + " -> " + to;
      if (kKnown.count(key))
        found.insert(key);
      else
        upward.insert(key + " (" + line + ")");
    }
  }
  EXPECT_GT(checked, 500);  // the scan saw the code base
  for (const auto& u : upward) ADD_FAILURE() << "include runs upward: " << u;
  for (const auto& k : kKnown) EXPECT_TRUE(found.count(k)) << "no longer runs upward, take it off the list: " << k;
}

}  // namespace
}  // namespace ridge::test
