#pragma once
// What the in-process tests (tests/sweep/test_sweep.cpp) and the binary-driven tests (tests/cli/test_sweep.cpp) share.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/paths.h"
#include "sweep/matrix.h"
#include "sweep/progress.h"
#include "util/error.h"

namespace ridge::test::sweep_fixtures {

namespace fs = std::filesystem;

inline std::string write_sweep(const std::string& name, const std::string& text) {
  auto path = temp_dir() + "/" + name + ".yaml";
  std::ofstream(path) << text;
  return path;
}

}  // namespace ridge::test::sweep_fixtures
