#include "support/paths.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ridge_test_paths.h"

namespace ridge::test {

std::string source_path(const std::string& relative) { return std::string(generated::kSourceDir) + "/" + relative; }

std::string ridge_binary() { return generated::kRidgeBinary; }

std::string onnx_testdata() { return generated::kOnnxTestdata; }

std::string model_path(const std::string& name) { return source_path("models/" + name + ".onnx"); }

namespace {
// A fresh directory per test process, removed when the process ends: directories named by PID alone
// outlived their process, and a later process given the same PID appended to the old files.
class ProcessTempDir {
 public:
  ProcessTempDir() {
    auto pattern = (std::filesystem::temp_directory_path() / "ridge-tests-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    path_ = pattern;
  }
  ~ProcessTempDir() {
    // RIDGE_KEEP_TEST_FILES keeps them for a look after a failure.
    if (std::getenv("RIDGE_KEEP_TEST_FILES") != nullptr) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ProcessTempDir(const ProcessTempDir&) = delete;
  ProcessTempDir& operator=(const ProcessTempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};
}  // namespace

std::string temp_dir() {
  static const ProcessTempDir dir;
  // One subdirectory per test, so tests that run in one process (a --gtest_filter run) never see
  // each other's files; ctest runs each test in its own process anyway.
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  if (test == nullptr) return dir.path();
  std::string name = std::string(test->test_suite_name()) + "." + test->name();
  for (auto& c : name)
    if (c == '/') c = '_';  // parameterized tests: "Suite/Test.Name/param"
  auto path = dir.path() + "/" + name;
  std::filesystem::create_directories(path);
  return path;
}

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

CommandResult run_ridge(const std::string& args, const std::string& environment) {
  // Results go to the test's own store (never one in the working directory or the user's), unless
  // the test pointed RIDGE_STORE elsewhere itself.
  static std::string ours;
  const char* current = std::getenv("RIDGE_STORE");
  if (current == nullptr || ours == current) {
    ours = temp_dir() + "/ridge-results.db";
    ::setenv("RIDGE_STORE", ours.c_str(), 1);
  }
  static int counter = 0;
  auto base = temp_dir() + "/cmd" + std::to_string(++counter);
  // In sanitizer builds, ridge processes that load libtorch (bench, run, sweep, calibrate, compare, ert)
  // skip LeakSanitizer's exit-time scan: the scan itself crashes now and then under load there
  // ("Tracer caught signal 11 ... LeakSanitizer has encountered a fatal error"), which is not a leak
  // report. AddressSanitizer and UBSan still check them; every other command, and the test process
  // (which runs the executor in process), keep the leak check. Ignored by builds without ASan.
  static const char* const kTorchCommands[] = {"bench ", "run ", "sweep ", "calibrate ", "compare ", "ert "};
  std::string no_leak_scan;
  for (const char* command : kTorchCommands)
    if (args.rfind(command, 0) == 0) no_leak_scan = "ASAN_OPTIONS=\"${ASAN_OPTIONS}:detect_leaks=0\" ";
  std::string command = no_leak_scan + (environment.empty() ? "" : environment + " ") + ridge_binary() + " " + args +
                        " >" + base + ".out 2>" + base + ".err";
  int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(base + ".out");
  result.err = slurp(base + ".err");
  return result;
}

}  // namespace ridge::test
