#pragma once
// The execution options of `ridge run` and `ridge bench` as named on the command line, and their one conversion
// to exec::ExecOptions, which refuses what the device cannot honour.
#include <cstdint>
#include <string>

#include "exec/options.h"

namespace ridge::exec {

struct ExecRequest {
  std::string device = "cpu";
  int threads = 0;
  int gpu = 0;
  // bench also takes kBothModes and kAllConvAlgos here (several runs); exec_options takes one of each.
  std::string precision = "fp32", memory_format = "nchw", mode = "eager", conv_algo = "auto";
  uint64_t seed = 0;
  std::string inputs_dir;  // input_N.pb files to run on; empty: generated from the bound shapes
};

// Throws ridge::Error for a value the device cannot honour (tf32 on the CPU, a cuDNN algorithm on it,
// threads or channels-last on the GPU).
ExecOptions exec_options(const ExecRequest& request);

}  // namespace ridge::exec
