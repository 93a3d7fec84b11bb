#pragma once
// Small file helpers the in-process and the binary-driven tests share: a fresh directory per test and a file's text.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/paths.h"

namespace ridge::test {

// A fresh (emptied) directory `name` under the tests' temporary directory, so a rerun never sees the last run's files.
inline std::string fresh_dir(const std::string& name) {
  auto dir = std::filesystem::path(temp_dir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// The whole text of a file ("" when it cannot be read: the assertions on it then say what was missing).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace ridge::test
