#pragma once
// The executor's interface. Its implementation (ATen, from libtorch) lives in a shared module
// that ridge loads only for `ridge run` and `ridge bench`: linking libtorch into ridge itself
// would cost every other command a second and 150 MB just to load it.
#include <memory>
#include <string>
#include <vector>

#include "exec/host_tensor.h"
#include "exec/measurement.h"
#include "exec/options.h"
#include "graph/graph.h"
#include "util/error.h"

namespace ridge::exec {

struct RunOutput {
  std::vector<HostTensor> outputs;
  bool random_weights = false;
  std::vector<std::string> notes;
};

// One training step, to check against a reference (another framework's gradients): the loss, and per weight
// that received a gradient (named as its value) the gradient and the weight before and after the update.
struct TrainingStepCheck {
  double loss = 0;
  std::vector<HostTensor> gradients, before, after;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Op types (default domain) the executor runs.
  virtual std::vector<std::string> op_types() const = 0;
  virtual Environment environment(const ExecOptions& options) const = 0;
  // The model must have its inputs bound and shapes inferred. `inputs` empty: generated from the
  // input shapes (normal noise for floats, valid ranges for ids). Throws ridge::Error.
  virtual RunOutput run(const graph::Model& model, const std::vector<HostTensor>& inputs,
                        const ExecOptions& options) = 0;
  virtual BenchResult bench(const graph::Model& model, const std::vector<HostTensor>& inputs,
                            const BenchOptions& options) = 0;
  // One training step from the model's own weights (the bench's step: loss, backward, optimizer update), with
  // what it computed. Throws ridge::Error on a backend without training. (Defined here, not in engine.cpp: the
  // backends are modules loaded at run time, and their vtables must not need a symbol of the binary.)
  virtual TrainingStepCheck train_step(const graph::Model&, const std::vector<HostTensor>&, const ExecOptions&,
                                       const TrainingOptions&) {
    throw Error("this executor backend has no training step");
  }
};

// Loads the engine of `device` as its row says (exec/backends.h): the ATen module for the CPU (next to the ridge
// binary, or $RIDGE_EXEC_MODULE), the GPU module for CUDA (sys/cuda_module.h). Throws ridge::Error.
Engine& load_engine(Backend device = Backend::kCpu);

// Op types in `model` (subgraphs included) that `engine` cannot run, with their counts.
std::vector<std::pair<std::string, int>> missing_ops(const graph::Model& model, const std::vector<std::string>& ops);

}  // namespace ridge::exec
