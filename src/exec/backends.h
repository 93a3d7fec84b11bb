#pragma once
// The executors ridge runs models on (`--device NAME`), one row each: what each runs (modes, precisions,
// convolution algorithms), which options mean nothing to it, what is checked before its module is loaded, and how
// its engine is loaded. The option checks (exec/options, exec/exec_request), `bench --list-algorithms`, bench and
// run read these rows, so a new backend is a row here and a module with its kernels and an Engine, not a
// condition in every caller (ONNX Runtime's execution providers are the model).
#include <string>
#include <string_view>
#include <vector>

#include "exec/options.h"

namespace ridge::exec {

class Engine;

struct BackendRow {
  Backend backend = Backend::kCpu;
  std::string_view executor;  // as one-line errors name it: "the CPU executor"
  // Its modes (the first is the default); `--mode both` measures the first two.
  std::vector<Mode> modes;
  std::vector<Precision> precisions;
  // The names --conv-algo takes, and where a parsed one goes in ExecOptions.
  std::vector<std::string> (*conv_algorithms)() = nullptr;
  void (*set_conv_algo)(ExecOptions& options, std::string_view name) = nullptr;
  bool threads = false;        // --threads sets its intra-op threads
  bool picks_gpu = false;      // --gpu N chooses which device
  bool channels_last = false;  // --memory-format channels-last runs
  // Its op coverage and memory are known before its module loads (the CPU's: exec/op_table and host memory), so a
  // model it cannot run is refused first; false: the engine checks once loaded.
  bool checks_before_loading = false;
  // The engine opens a device (driver, handles) that may be absent: bench opens it once before any point runs.
  bool opens_device = false;
  // Loads its module on first use and returns its engine (kept for the process). Throws ridge::Error.
  Engine* (*load)() = nullptr;
};

// Every backend, in `--device`'s order of names.
const std::vector<BackendRow>& backends();
const BackendRow& backend_row(Backend backend);

}  // namespace ridge::exec
