// The GPU training step's kernels (see training_kernels.h): grid-stride loops over int64 indices.
#include <cmath>
#include <cstdint>

#include "exec/cuda/generator_cell.h"
#include "exec/cuda/grid.cuh"
#include "exec/cuda/training_kernels.h"

namespace ridge::exec::cuda {

namespace {

__global__ void squared_mean_loss_kernel(const float* y, float* dy, int64_t n, double* loss, const float* scale) {
  __shared__ double partial[kThreads];
  double sum = 0;
  const float two_over_n = 2.f / static_cast<float>(n) * (scale ? *scale : 1.f);
  RIDGE_GRID_LOOP(i, n) {
    float v = y[i];
    sum += static_cast<double>(v) * v;
    dy[i] = two_over_n * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (static_cast<int>(threadIdx.x) < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, partial[0] / static_cast<double>(n));
}

__global__ void relu_backward_kernel(const float* y, const float* dy, float* dx, int64_t n) {
  RIDGE_GRID_LOOP(i, n) dx[i] = y[i] > 0.f ? dy[i] : 0.f;
}

__global__ void clip_backward_kernel(const float* x, const float* dy, float* dx, int64_t n, float low, float high) {
  RIDGE_GRID_LOOP(i, n) dx[i] = x[i] > low && x[i] < high ? dy[i] : 0.f;
}

__global__ void dropout_forward_kernel(const float* x, float* y, bool* keep, int64_t n, float ratio, uint64_t seed,
                                       const uint64_t* run) {
  const float scale = 1.f / (1.f - ratio);
  seed ^= *run << 32;
  RIDGE_GRID_LOOP(i, n) {
    bool k = counter_uniform(seed, i) >= ratio;
    keep[i] = k;
    y[i] = k ? x[i] * scale : 0.f;
  }
}

__global__ void advance_kernel(uint64_t* run) { *run += 1; }

__global__ void dropout_backward_kernel(const bool* keep, const float* dy, float* dx, int64_t n, float scale) {
  RIDGE_GRID_LOOP(i, n) dx[i] = keep[i] ? dy[i] * scale : 0.f;
}

__global__ void running_statistics_kernel(const float* mean, const float* var, const float* batch_mean,
                                          const float* batch_inv_std, float* mean_out, float* var_out, int64_t channels,
                                          float momentum, float epsilon) {
  RIDGE_GRID_LOOP(c, channels) {
    float inv = batch_inv_std[c];
    float batch_var = 1.f / (inv * inv) - epsilon;
    if (mean_out) mean_out[c] = mean[c] * momentum + batch_mean[c] * (1.f - momentum);
    if (var_out) var_out[c] = var[c] * momentum + batch_var * (1.f - momentum);
  }
}

__global__ void scale_kernel(const float* x, float* y, int64_t n, float factor) {
  RIDGE_GRID_LOOP(i, n) y[i] = factor * x[i];
}

__global__ void erf_backward_kernel(const float* x, const float* dy, float* dx, int64_t n) {
  const float two_over_sqrt_pi = 1.1283791670955126f;
  RIDGE_GRID_LOOP(i, n) dx[i] = dy[i] * two_over_sqrt_pi * expf(-x[i] * x[i]);
}

__global__ void tanh_backward_kernel(const float* y, const float* dy, float* dx, int64_t n) {
  RIDGE_GRID_LOOP(i, n) dx[i] = dy[i] * (1.f - y[i] * y[i]);
}

__global__ void sigmoid_backward_kernel(const float* y, const float* dy, float* dx, int64_t n) {
  RIDGE_GRID_LOOP(i, n) dx[i] = dy[i] * y[i] * (1.f - y[i]);
}

// Each output element's gradient added into the input element its tables read (atomically: a nearest-neighbour
// upsampling reads each input element several times).
__global__ void table_scatter_add_kernel(const float* dy, Layout ol, const int64_t* tables, Layout offsets, Layout il,
                                         float* dx, int64_t n) {
  RIDGE_GRID_LOOP(i, n) {
    int64_t rest = i, offset = 0;
    for (int d = ol.rank - 1; d >= 0; --d) {
      offset += tables[offsets.dims[d] + rest % ol.dims[d]] * il.strides[d];
      rest /= ol.dims[d];
    }
    atomicAdd(dx + offset, dy[i]);
  }
}

// One block per row: the row's mean and inverse standard deviation as the forward computes them, then the two
// sums the input's gradient needs.
__global__ void layer_norm_backward_kernel(const float* x, const float* scale, const float* dy, float* dx,
                                           float* dy_xhat, int64_t cols, float epsilon) {
  __shared__ float partial[kThreads];
  const int64_t offset = static_cast<int64_t>(blockIdx.x) * cols;
  const float *row = x + offset, *drow = dy + offset;
  auto block_sum = [&](float v) {
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s /= 2) {
      if (static_cast<int>(threadIdx.x) < s) partial[threadIdx.x] += partial[threadIdx.x + s];
      __syncthreads();
    }
    float total = partial[0];
    __syncthreads();
    return total;
  };
  float sum = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) sum += row[c];
  const float mean = block_sum(sum) / static_cast<float>(cols);
  float squares = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) squares += (row[c] - mean) * (row[c] - mean);
  const float inv = rsqrtf(block_sum(squares) / static_cast<float>(cols) + epsilon);
  float sum_g = 0.f, sum_gx = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    float xhat = (row[c] - mean) * inv, g = drow[c] * scale[c];
    sum_g += g;
    sum_gx += g * xhat;
    dy_xhat[offset + c] = drow[c] * xhat;
  }
  const float mean_g = block_sum(sum_g) / static_cast<float>(cols);
  const float mean_gx = block_sum(sum_gx) / static_cast<float>(cols);
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    float xhat = (row[c] - mean) * inv;
    dx[offset + c] = inv * (drow[c] * scale[c] - mean_g - xhat * mean_gx);
  }
}

__global__ void scatter_add_kernel(const float* dy, int64_t outer, int64_t axis_size, int64_t inner,
                                   const int64_t* indices, int64_t index_count, float* dx) {
  const int64_t n = outer * index_count * inner;
  RIDGE_GRID_LOOP(i, n) {
    int64_t k = i % inner, j = (i / inner) % index_count, o = i / (inner * index_count);
    int64_t index = indices[j];
    if (index < 0) index += axis_size;
    if (index < 0 || index >= axis_size) continue;  // the forward refused these on its first run
    atomicAdd(dx + (o * axis_size + index) * inner + k, dy[i]);
  }
}

__global__ void unscale_kernel(float* g, int64_t n, const float* scale, int* found_inf) {
  const float inverse = 1.f / *scale;
  bool bad = false;
  RIDGE_GRID_LOOP(i, n) {
    float v = g[i] * inverse;
    bad = bad || !isfinite(v);
    g[i] = v;
  }
  if (bad) *found_inf = 1;
}

__global__ void update_scale_kernel(float* scale, int* found_inf, int* clean_steps, int interval) {
  if (*found_inf) {
    *scale *= 0.5f;
    *clean_steps = 0;
  } else if (++*clean_steps >= interval) {
    *scale *= 2.f;
    *clean_steps = 0;
  }
  *found_inf = 0;
}

__global__ void sgd_kernel(float* w, const float* g, int64_t n, float lr, const int* skip) {
  if (skip && *skip) return;
  RIDGE_GRID_LOOP(i, n) w[i] -= lr * g[i];
}

__global__ void momentum_kernel(float* w, const float* g, float* buffer, int64_t n, float lr, float momentum,
                                const int* skip) {
  if (skip && *skip) return;
  RIDGE_GRID_LOOP(i, n) {
    float b = momentum * buffer[i] + g[i];
    buffer[i] = b;
    w[i] -= lr * b;
  }
}

__global__ void increment_kernel(int64_t* counter, const int* skip) {
  if (!(skip && *skip)) ++*counter;
}

__global__ void adam_kernel(float* w, const float* g, float* m, float* v, int64_t n, float lr, float beta1, float beta2,
                            float epsilon, const int64_t* step, const int* skip) {
  if (skip && *skip) return;
  // Bias corrections in double, as torch.optim computes them on the host, then used in fp32.
  const float correction1 = static_cast<float>(1.0 - pow(static_cast<double>(beta1), static_cast<double>(*step)));
  const float correction2 = static_cast<float>(1.0 - pow(static_cast<double>(beta2), static_cast<double>(*step)));
  RIDGE_GRID_LOOP(i, n) {
    float gi = g[i];
    float mi = beta1 * m[i] + (1.f - beta1) * gi;
    float vi = beta2 * v[i] + (1.f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    // torch.optim.Adam: step_size = lr / bias_correction1; denom = sqrt(v) / sqrt(bias_correction2) + eps.
    w[i] -= (lr / correction1) * mi / (sqrtf(vi) / sqrtf(correction2) + epsilon);
  }
}

}  // namespace

void squared_mean_loss(const float* y, float* dy, int64_t n, double* loss, const float* scale, cudaStream_t stream) {
  if (n > 0) squared_mean_loss_kernel<<<blocks_for(n), kThreads, 0, stream>>>(y, dy, n, loss, scale);
}

void unscale_gradient(float* g, int64_t n, const float* scale, int* found_inf, cudaStream_t stream) {
  if (n > 0) unscale_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, n, scale, found_inf);
}

void update_loss_scale(float* scale, int* found_inf, int* clean_steps, int interval, cudaStream_t stream) {
  update_scale_kernel<<<1, 1, 0, stream>>>(scale, found_inf, clean_steps, interval);
}

void relu_backward(const float* y, const float* dy, float* dx, int64_t n, cudaStream_t stream) {
  if (n > 0) relu_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(y, dy, dx, n);
}

void clip_backward(const float* x, const float* dy, float* dx, int64_t n, float low, float high, cudaStream_t stream) {
  if (n > 0) clip_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, dy, dx, n, low, high);
}

void dropout_forward(const float* x, float* y, bool* keep, int64_t n, float ratio, uint64_t seed, uint64_t* run,
                     cudaStream_t stream) {
  if (n == 0) return;
  dropout_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, keep, n, ratio, seed, run);
  advance_kernel<<<1, 1, 0, stream>>>(run);  // after every thread has read it: the launches are ordered on the stream
}

void dropout_backward(const bool* keep, const float* dy, float* dx, int64_t n, float scale, cudaStream_t stream) {
  if (n > 0) dropout_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(keep, dy, dx, n, scale);
}

void running_statistics(const float* mean, const float* var, const float* batch_mean, const float* batch_inv_std,
                        float* mean_out, float* var_out, int64_t channels, float momentum, float epsilon,
                        cudaStream_t stream) {
  if (channels > 0)
    running_statistics_kernel<<<blocks_for(channels), kThreads, 0, stream>>>(
        mean, var, batch_mean, batch_inv_std, mean_out, var_out, channels, momentum, epsilon);
}

void scale(const float* x, float* y, int64_t n, float factor, cudaStream_t stream) {
  if (n > 0) scale_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n, factor);
}

void erf_backward(const float* x, const float* dy, float* dx, int64_t n, cudaStream_t stream) {
  if (n > 0) erf_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, dy, dx, n);
}

void tanh_backward(const float* y, const float* dy, float* dx, int64_t n, cudaStream_t stream) {
  if (n > 0) tanh_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(y, dy, dx, n);
}

void sigmoid_backward(const float* y, const float* dy, float* dx, int64_t n, cudaStream_t stream) {
  if (n > 0) sigmoid_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(y, dy, dx, n);
}

void table_scatter_add(const float* dy, const Layout& out_dense, const int64_t* tables, const int64_t* offsets,
                       float* dx, const Layout& in_dense, cudaStream_t stream) {
  int64_t n = 1;
  for (int d = 0; d < out_dense.rank; ++d) n *= out_dense.dims[d];
  if (n == 0) return;
  Layout o;
  o.rank = out_dense.rank;
  for (int d = 0; d < out_dense.rank; ++d) o.dims[d] = offsets[d];
  table_scatter_add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dy, out_dense, tables, o, in_dense, dx, n);
}

void layer_norm_backward(const float* x, const float* scale, const float* dy, float* dx, float* dy_xhat, int64_t rows,
                         int64_t cols, float epsilon, cudaStream_t stream) {
  if (rows > 0 && cols > 0)
    layer_norm_backward_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, scale, dy, dx, dy_xhat, cols,
                                                                                     epsilon);
}

void scatter_add(const float* dy, int64_t outer, int64_t axis_size, int64_t inner, const int64_t* indices,
                 int64_t index_count, float* dx, cudaStream_t stream) {
  int64_t n = outer * index_count * inner;
  if (n > 0)
    scatter_add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dy, outer, axis_size, inner, indices, index_count, dx);
}

void sgd_update(float* w, const float* g, int64_t n, float lr, const int* skip, cudaStream_t stream) {
  if (n > 0) sgd_kernel<<<blocks_for(n), kThreads, 0, stream>>>(w, g, n, lr, skip);
}

void momentum_update(float* w, const float* g, float* buffer, int64_t n, float lr, float momentum, const int* skip,
                     cudaStream_t stream) {
  if (n > 0) momentum_kernel<<<blocks_for(n), kThreads, 0, stream>>>(w, g, buffer, n, lr, momentum, skip);
}

void adam_update(float* w, const float* g, float* m, float* v, int64_t n, float lr, float beta1, float beta2,
                 float epsilon, const int64_t* step, const int* skip, cudaStream_t stream) {
  if (n > 0) adam_kernel<<<blocks_for(n), kThreads, 0, stream>>>(w, g, m, v, n, lr, beta1, beta2, epsilon, step, skip);
}

void increment(int64_t* counter, const int* skip, cudaStream_t stream) {
  increment_kernel<<<1, 1, 0, stream>>>(counter, skip);
}

}  // namespace ridge::exec::cuda
