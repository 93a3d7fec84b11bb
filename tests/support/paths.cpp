#include "support/paths.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ridge::test {

std::string source_path(const std::string& relative) { return std::string(RIDGE_SOURCE_DIR) + "/" + relative; }

std::string model_path(const std::string& name) { return source_path("models/" + name + ".onnx"); }

std::string temp_dir() {
  static const std::string dir = [] {
    auto path = std::filesystem::temp_directory_path() / ("ridge-tests-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    return path.string();
  }();
  return dir;
}

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

CommandResult run_ridge(const std::string& args) {
  static int counter = 0;
  auto base = temp_dir() + "/cmd" + std::to_string(++counter);
  std::string command = std::string(RIDGE_BINARY) + " " + args + " >" + base + ".out 2>" + base + ".err";
  int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(base + ".out");
  result.err = slurp(base + ".err");
  return result;
}

}  // namespace ridge::test
