#pragma once
// Times a model on the executor: warm-up, then runs until the stopping rule is met; then a
// per-node profile pass (one clock read around each node) that also measures the interpreter's
// own overhead per node.
#include "exec/aten/interpreter.h"
#include "exec/measurement.h"
#include "exec/options.h"

namespace ridge::exec::aten {

BenchResult bench_model(const graph::Model& model, const std::vector<at::Tensor>& given_inputs,
                        const BenchOptions& options);

// Sets threads, precision (autocast) and memory format for the duration of a run.
class ExecutionScope {
 public:
  explicit ExecutionScope(const ExecOptions& options);
  ~ExecutionScope();
  ExecutionScope(const ExecutionScope&) = delete;
  ExecutionScope& operator=(const ExecutionScope&) = delete;

 private:
  bool autocast_ = false;
};

// Converts 4-D float inputs and convolution weights to channels-last when asked.
void apply_memory_format(Interpreter& interpreter, std::vector<at::Tensor>& inputs);

}  // namespace ridge::exec::aten
