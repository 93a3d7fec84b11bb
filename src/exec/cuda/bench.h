#pragma once
// Times a model on the GPU: warm-up, then runs timed with CUDA events on the executor's stream
// until the stopping rule is met (eager, or one CUDA graph replayed per run); then a per-node profile
// pass with an event pair around each node; memory from the allocator.
#include "exec/cuda/gpu.h"
#include "exec/host_tensor.h"
#include "exec/measurement.h"
#include "exec/options.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

BenchResult bench_model(Gpu& gpu, const graph::Model& model, const std::vector<HostTensor>& inputs,
                        const BenchOptions& options);

// Refuses what the GPU executor cannot honour (training, optimized mode) in one line.
void check_options(const ExecOptions& options, bool training);

}  // namespace ridge::exec::cuda
