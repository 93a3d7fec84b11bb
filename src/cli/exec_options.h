#pragma once
// Options shared by `ridge run` and `ridge bench`: how the executor runs the model.
#include <CLI/CLI.hpp>
#include <string>

#include "exec/options.h"

namespace ridge::cli {

struct ExecCliOptions {
  std::string device = "cpu";
  int threads = 0;
  int gpu = 0;
  std::string precision = "fp32", memory_format = "nchw", mode = "eager", conv_algo = "auto";
  uint64_t seed = 0;
  std::string inputs_dir;
};

// `modes` and `algorithms` are the values --mode and --conv-algo accept (bench adds "both"/"all"); each
// device takes its own algorithms (exec::conv_algo_names(device)), checked by to_exec_options.
void add_exec_options(CLI::App& command, ExecCliOptions& options, const std::vector<std::string>& modes,
                      const std::vector<std::string>& algorithms);
// Throws ridge::Error for a value the device cannot honour (tf32 on the CPU, a cuDNN algorithm on it,
// threads or channels-last on the GPU).
exec::ExecOptions to_exec_options(const ExecCliOptions& options);

}  // namespace ridge::cli
