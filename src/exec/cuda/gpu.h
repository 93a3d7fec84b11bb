#pragma once
// One GPU as the executor uses it: the device chosen, its properties, one stream, the cuDNN and
// cuBLAS handles bound to that stream, the allocator and a growing workspace for cuDNN's algorithms.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <memory>
#include <string>

#include "exec/cuda/memory.h"
#include "exec/options.h"

namespace ridge::exec::cuda {

class Gpu {
 public:
  explicit Gpu(int index);
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  int index() const { return index_; }
  const cudaDeviceProp& properties() const { return properties_; }
  cudaStream_t stream() const { return stream_; }
  cudnnHandle_t cudnn() const { return cudnn_; }
  cublasHandle_t cublas() const { return cublas_; }
  Allocator& allocator() { return allocator_; }

  // Workspace of at least `bytes` (grown, never shrunk, within one run); null for 0.
  void* workspace(size_t bytes);
  size_t workspace_bytes() const { return workspace_size_; }
  void release_workspace();

  // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB)"
  std::string description() const;
  // "CUDA runtime 13.0, driver 13.0, cuDNN 9.13.0, cuBLAS 13.0.2"
  std::string libraries() const;

 private:
  int index_ = 0;
  cudaDeviceProp properties_{};
  cudaStream_t stream_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  Allocator allocator_;
  std::shared_ptr<void> workspace_;
  size_t workspace_size_ = 0;
};

}  // namespace ridge::exec::cuda
