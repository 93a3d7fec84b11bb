#include "exec/engine.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "sys/cuda_module.h"
#include "util/build_tree.h"
#include "util/error.h"
#include "util/module.h"

namespace ridge::exec {

namespace {

using Factory = Engine* (*)();

}  // namespace

Engine& load_engine(Backend device) {
  if (device == Backend::kCuda) {
    static Engine* cuda = reinterpret_cast<Factory>(sys::cuda_module_symbol("ridge_cuda_engine"))();
    return *cuda;
  }
  // ATen's OpenMP threads pinned to cores: on a shared or virtual machine unpinned threads
  // migrate and stall, which measured as a 2-3x wider latency spread (docs/benchmarks.md).
  // And BLAS calls single-threaded: OpenBLAS's own pthreads otherwise fight the spinning OpenMP
  // workers for the same cores (BERT-base: 310 -> 180 ms at 2 threads); the parallel kernels
  // (oneDNN, ATen's loops) use the OpenMP pool. Read when the module loads; values the user set win.
  ::setenv("OMP_PROC_BIND", "true", 0);
  ::setenv("OPENBLAS_NUM_THREADS", "1", 0);
  static Engine* engine = reinterpret_cast<Factory>(
      module_symbol("libridge_exec.so", "RIDGE_EXEC_MODULE", build_tree::exec_module(), "ridge_exec_engine"))();
  return *engine;
}

namespace {

void count_ops(const graph::Graph& g, const std::set<std::string>& known, std::map<std::string, int>& missing) {
  for (const auto& node : g.nodes) {
    std::string key = node.is_default_domain() ? node.op_type : node.domain + "." + node.op_type;
    if (!node.is_default_domain() || !known.count(node.op_type)) ++missing[key];
    for (const auto* sub : node.subgraphs()) count_ops(*sub, known, missing);
  }
}

}  // namespace

std::vector<std::pair<std::string, int>> missing_ops(const graph::Model& model, const std::vector<std::string>& ops) {
  std::set<std::string> known(ops.begin(), ops.end());
  std::map<std::string, int> missing;
  count_ops(model.graph, known, missing);
  return {missing.begin(), missing.end()};
}

}  // namespace ridge::exec
