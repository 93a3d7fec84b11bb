// One step of RNN, GRU and LSTM and of their backward (recurrent_kernels.h): a thread per batch row and hidden unit
// (recurrent_cell.h).
#include "exec/cuda/grid.cuh"
#include "exec/cuda/recurrent_cell.h"
#include "exec/cuda/recurrent_kernels.h"

namespace ridge::exec::cuda {

namespace {

__global__ void step_kernel(RecurrentStep s) {
  RIDGE_GRID_LOOP(i, s.batch * s.hidden) { recurrent_element(s, i); }
}

__global__ void backward_step_kernel(RecurrentBackStep s) {
  RIDGE_GRID_LOOP(i, s.batch * s.hidden) { recurrent_backward_element(s, i); }
}

}  // namespace

void recurrent_step(const RecurrentStep& step, cudaStream_t stream) {
  if (step.batch * step.hidden == 0) return;
  step_kernel<<<blocks_for(step.batch * step.hidden), kThreads, 0, stream>>>(step);
}

void recurrent_backward_step(const RecurrentBackStep& step, cudaStream_t stream) {
  if (step.batch * step.hidden == 0) return;
  backward_step_kernel<<<blocks_for(step.batch * step.hidden), kThreads, 0, stream>>>(step);
}

}  // namespace ridge::exec::cuda
