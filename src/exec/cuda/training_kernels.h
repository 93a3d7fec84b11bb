#pragma once
// The GPU training step's own kernels (training_kernels.cu): what cuDNN and cuBLAS do not do for a
// backward pass and an optimizer step. fp32 throughout; each launches on `stream` and returns at once.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// The loss ridge trains with (the CPU step's): the mean of the squared outputs. Adds sum(y^2) / n to
// *loss (a device double: the sum of many blocks' partial sums keeps fp32's precision of each) and writes
// dy = 2 y / n, times *scale where `scale` (a device float: fp16's loss scale) is given.
void squared_mean_loss(const float* y, float* dy, int64_t n, double* loss, const float* scale, cudaStream_t stream);
// Loss scaling (fp16 mixed precision, as torch.amp.GradScaler): g /= *scale in place; *found_inf = 1 where a
// gradient is not finite.
void unscale_gradient(float* g, int64_t n, const float* scale, int* found_inf, cudaStream_t stream);
// After the step: a step with a non-finite gradient halves the scale, `interval` clean steps in a row double it;
// *found_inf is cleared for the next step.
void update_loss_scale(float* scale, int* found_inf, int* clean_steps, int interval, cudaStream_t stream);
// dx = dy where y > 0, else 0 (ReLU's backward from its output, as PyTorch's threshold_backward).
void relu_backward(const float* y, const float* dy, float* dx, int64_t n, cudaStream_t stream);
// dx = dy where low < x < high, else 0 (Clip's backward, as PyTorch's hardtanh_backward).
void clip_backward(const float* x, const float* dy, float* dx, int64_t n, float low, float high, cudaStream_t stream);
// Dropout in training: keep[i] = a uniform draw from (seed ^ (*run << 32), i) >= ratio; y = keep ? x / (1 - ratio) : 0;
// then *run += 1. The run count lives on the device, so each replay of a captured CUDA graph draws a new mask (a seed
// fixed on the host would be baked into the graph and repeat it).
void dropout_forward(const float* x, float* y, bool* keep, int64_t n, float ratio, uint64_t seed, uint64_t* run,
                     cudaStream_t stream);
// dx = keep ? dy * scale : 0.
void dropout_backward(const bool* keep, const float* dy, float* dx, int64_t n, float scale, cudaStream_t stream);
// BatchNormalization's running statistics from the batch's (training_mode): mean' = mean * momentum +
// batch_mean * (1 - momentum); var' likewise with the biased batch variance 1 / inv_std^2 - epsilon (ONNX's rule).
void running_statistics(const float* mean, const float* var, const float* batch_mean, const float* batch_inv_std,
                        float* mean_out, float* var_out, int64_t channels, float momentum, float epsilon,
                        cudaStream_t stream);
// y = scale * x.
void scale(const float* x, float* y, int64_t n, float factor, cudaStream_t stream);
// dx = dy * 2 / sqrt(pi) * exp(-x^2) (Erf's derivative).
void erf_backward(const float* x, const float* dy, float* dx, int64_t n, cudaStream_t stream);
// dx = dy * (1 - y^2) (Tanh's, from its output).
void tanh_backward(const float* y, const float* dy, float* dx, int64_t n, cudaStream_t stream);
// dx = dy * y * (1 - y) (Sigmoid's, from its output).
void sigmoid_backward(const float* y, const float* dy, float* dx, int64_t n, cudaStream_t stream);
// dx (zeroed by the caller, dense over in_dense.dims) += dy (dense over out_dense.dims) at the input element
// table_gather (kernels.h) read for each output element: nearest-neighbour Resize's backward.
void table_scatter_add(const float* dy, const Layout& out_dense, const int64_t* tables, const int64_t* offsets,
                       float* dx, const Layout& in_dense, cudaStream_t stream);
// LayerNormalization over the last `cols` of each of `rows` rows, backward: with x^ = (x - mean) / sqrt(var + eps)
// (recomputed per row) and g = dy * scale, dx = (g - mean(g) - x^ mean(g x^)) / sqrt(var + eps); writes dy * x^ to
// `dy_xhat` (rows x cols) for the scale's gradient, a sum over rows.
void layer_norm_backward(const float* x, const float* scale, const float* dy, float* dx, float* dy_xhat, int64_t rows,
                         int64_t cols, float epsilon, cudaStream_t stream);
// Gather's backward: dx[outer, indices[j] (negative: + axis_size), inner] += dy[outer, j, inner], dx zeroed first by
// the caller; repeated indices add (atomically).
void scatter_add(const float* dy, int64_t outer, int64_t axis_size, int64_t inner, const int64_t* indices,
                 int64_t index_count, float* dx, cudaStream_t stream);

// Optimizer updates, in place, as torch.optim computes them (no weight decay, no dampening, no Nesterov). Each does
// nothing where `skip` (a device int, may be null) is set: a step whose scaled gradients overflowed.
// SGD: w -= lr * g.
void sgd_update(float* w, const float* g, int64_t n, float lr, const int* skip, cudaStream_t stream);
// SGD with momentum: buffer = momentum * buffer + g; w -= lr * buffer. The buffer starts at zeros, so the first step's
// is g, as PyTorch's: nothing a CUDA graph would capture differs between the first step and the rest.
void momentum_update(float* w, const float* g, float* buffer, int64_t n, float lr, float momentum, const int* skip,
                     cudaStream_t stream);
// Adam at step t = *step (from 1, in device memory: a CUDA-graph replay reads the current one): m = b1 m + (1 - b1)
// g; v = b2 v + (1 - b2) g^2; w -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps).
void adam_update(float* w, const float* g, float* m, float* v, int64_t n, float lr, float beta1, float beta2,
                 float epsilon, const int64_t* step, const int* skip, cudaStream_t stream);
// *counter += 1 (the optimizer's step count, on the device), unless *skip.
void increment(int64_t* counter, const int* skip, cudaStream_t stream);

}  // namespace ridge::exec::cuda
