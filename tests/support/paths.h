#pragma once
// Where tests find the repository, the ridge binary and Debian's ONNX test data.
#include <string>

namespace ridge::test {

std::string source_path(const std::string& relative);
std::string ridge_binary();   // the ridge executable of this build tree
std::string onnx_testdata();  // Debian's ONNX test data (libonnx-testdata): <dir>/node/<test>/model.onnx
std::string model_path(const std::string& name);  // models/<name>.onnx
std::string temp_dir();

struct CommandResult {
  int exit_code = 0;
  std::string out, err;
};
// Runs the ridge binary with `args` (shell-quoted by the caller); `environment` ("PATH=/tmp/x
// RIDGE_STORE=...") is set for it alone.
CommandResult run_ridge(const std::string& args, const std::string& environment = "");

}  // namespace ridge::test
