#pragma once
// How the executor runs a model and how `ridge bench` measures it.
#include <cstdint>
#include <string>

#include "exec/statistics.h"

namespace ridge::exec {

struct ExecOptions {
  std::string device = "cpu";          // cpu | cuda (refused: Debian's libtorch has no CUDA backend)
  int threads = 0;                     // intra-op threads; 0 keeps the library's default
  std::string precision = "fp32";      // fp32 | bf16 (autocast: matmul/conv in bf16)
  std::string memory_format = "nchw";  // nchw | channels-last
  std::string mode = "eager";          // eager | optimized
  std::string conv_algo = "auto";      // auto | direct | gemm | fft | winograd
  uint64_t seed = 0;                   // random weights and inputs
  bool profile_nodes = false;          // time every node (adds a clock read per node)
};

struct TrainingOptions {
  bool enabled = false;
  std::string optimizer = "sgd";  // sgd | momentum | adam
  double learning_rate = 1e-3;
};

struct BenchOptions {
  ExecOptions exec;
  TrainingOptions training;
  double warmup_seconds = 0.5;  // run at least this long (and at least `min_warmup` runs) first
  int64_t min_warmup = 2;
  int64_t fixed_iterations = 0;  // >0: exactly this many timed runs (no stopping rule)
  StoppingCriterion stopping;
};

}  // namespace ridge::exec
