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

// util; sys (the machine: host CPU, timing statistics, the CUDA runtime and module), beside graph; onnx, shape, cost;
// analysis (what cost computes, per model); then exec and hw (neither needs the other); then roofline, calib,
// profile, power, store, sweep; then report; then cli and the doctor's platform checks.
const std::map<std::string, int> kLevel{
    {"util", 0},     {"sys", 1},   {"graph", 1}, {"onnx", 2},     {"shape", 3}, {"cost", 4},
    {"analysis", 5}, {"exec", 6},  {"hw", 6},    {"roofline", 7}, {"calib", 7}, {"profile", 7},
    {"power", 7},    {"store", 7}, {"sweep", 7}, {"report", 8},   {"cli", 9},   {"doctor", 9},
};

// Includes that run against the order, each with why it remains ("file -> included module"). None today: a
// new one fails, and an entry here that no longer runs upward fails too (the list only shrinks).
const std::set<std::string> kKnown{};

std::string module_of(const std::string& relative) {  // "src/hw/ert/x.cpp" -> "hw"
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
      if (!kLevel.count(to) || to == from) continue;
      ++checked;
      // Below, or beside at a level whose modules may use each other (7; 9: cli calls the doctor); exec and hw
      // may not, nor sys and graph.
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
