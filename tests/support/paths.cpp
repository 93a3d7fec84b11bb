#include "support/paths.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ridge::test {

std::string source_path(const std::string& relative) { return std::string(RIDGE_SOURCE_DIR) + "/" + relative; }

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
  return dir.path();
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
  // Results go to this process's own store, never to one in the working directory or the user's.
  static const bool isolated = ::setenv("RIDGE_STORE", (temp_dir() + "/ridge-results.db").c_str(), 1) == 0;
  (void)isolated;
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
  std::string command = no_leak_scan + (environment.empty() ? "" : environment + " ") + std::string(RIDGE_BINARY) +
                        " " + args + " >" + base + ".out 2>" + base + ".err";
  int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(base + ".out");
  result.err = slurp(base + ".err");
  return result;
}

}  // namespace ridge::test
