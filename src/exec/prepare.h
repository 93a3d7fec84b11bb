#pragma once
// Everything checked before the executor runs a model: inputs read and bound, shapes inferred,
// every op runnable, and the memory the run needs available.
#include <string>
#include <vector>

#include "analysis/run.h"
#include "exec/engine.h"
#include "exec/host_tensor.h"

namespace ridge::exec {

// Reads `inputs_dir` (input_N.pb, may be empty) and binds each model input the user did not bind
// to its tensor's shape; then analyses the model. Throws ridge::Error (wrong input count, dtype).
struct Prepared {
  analysis::Result analysis;
  std::vector<HostTensor> inputs;  // empty: the executor generates them
};
Prepared prepare(analysis::Request request, const std::string& inputs_dir);
// Re-binds an already loaded model (sweeps), keeping the given inputs.
Prepared prepare_again(const graph::Model& pristine, const analysis::Request& request, std::vector<HostTensor> inputs);

// Refuses, naming it, a model input or output that is a sequence: the executors take and give tensors (sequences run
// inside a model).
void check_tensor_io(const graph::Model& model);
// Names every op the executor cannot run (with counts), before anything runs; check_tensor_io first.
void check_runnable(const graph::Model& model, const Engine& engine);
// The same from ridge's own table of executable ops, before the executor module is loaded.
void check_runnable(const graph::Model& model);

// The memory a run needs, from the analytical model: weights + peak activations (+ gradients,
// optimizer state and saved activations for training), against MemAvailable. Throws ridge::Error
// with the estimate when it does not fit. `available_bytes` < 0 reads /proc/meminfo.
void check_memory(const cost::ModelCost& cost, bool training, int64_t available_bytes = -1);

}  // namespace ridge::exec
