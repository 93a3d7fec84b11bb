#include "exec/backends.h"

#include <fmt/format.h>
#include <stdlib.h>

#include "exec/engine.h"
#include "sys/cuda_module.h"
#include "util/build_tree.h"
#include "util/error.h"
#include "util/module.h"

namespace ridge::exec {

namespace {

using Factory = Engine* (*)();

Engine* load_aten() {
  // ATen's OpenMP threads pinned to cores: on a shared or virtual machine unpinned threads
  // migrate and stall, which measured as a 2-3x wider latency spread (docs/benchmarks.md).
  // And BLAS calls single-threaded: OpenBLAS's own pthreads otherwise fight the spinning OpenMP
  // workers for the same cores (BERT-base: 310 -> 180 ms at 2 threads); the parallel kernels
  // (oneDNN, ATen's loops) use the OpenMP pool. Read when the module loads; values the user set win.
  ::setenv("OMP_PROC_BIND", "true", 0);
  ::setenv("OPENBLAS_NUM_THREADS", "1", 0);
  static Engine* engine = reinterpret_cast<Factory>(
      module_symbol("libridge_exec.so", "RIDGE_EXEC_MODULE", build_tree::exec_module(), "ridge_exec_engine"))();
  return engine;
}

Engine* load_cuda() {
  // sys::cuda_module_symbol checks the driver and the CUDA libraries before loading the GPU module.
  static Engine* engine = reinterpret_cast<Factory>(sys::cuda_module_symbol("ridge_cuda_engine"))();
  return engine;
}

}  // namespace

const std::vector<BackendRow>& backends() {
  static const std::vector<BackendRow> rows = {
      {.backend = Backend::kCpu,
       .executor = "the CPU executor",
       .modes = {Mode::kEager, Mode::kOptimized},
       .precisions = {Precision::kFp32, Precision::kBf16},
       .conv_algorithms = [] { return conv_algo_names(); },
       .set_conv_algo = [](ExecOptions& o, std::string_view algorithm) { o.conv_algo = parse_conv_algo(algorithm); },
       .threads = true,
       .channels_last = true,
       .checks_before_loading = true,
       .load = load_aten},
      {.backend = Backend::kCuda,
       .executor = "the GPU executor",
       .modes = {Mode::kEager, Mode::kCudaGraph, Mode::kOptimized},
       .precisions = {Precision::kFp32, Precision::kBf16, Precision::kTf32, Precision::kFp16},
       .conv_algorithms = [] { return cudnn_conv_algo_names(); },
       .set_conv_algo = [](ExecOptions& o,
                           std::string_view algorithm) { o.cudnn_conv_algo = parse_cudnn_conv_algo(algorithm); },
       .picks_gpu = true,
       .channels_last = true,
       .opens_device = true,
       .load = load_cuda},
  };
  return rows;
}

const BackendRow& backend_row(Backend backend) {
  for (const auto& row : backends())
    if (row.backend == backend) return row;
  throw Error(fmt::format("internal: no backend row for --device {}", name(backend)));
}

}  // namespace ridge::exec
