#include "exec/cuda/gpu.h"

#include <fmt/format.h>

#include "sys/cuda/check.h"
#include "sys/cuda/gpus.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

Gpu::Gpu(int index) : index_(index) {
  int count = sys::cuda::require_gpus();
  if (index < 0 || index >= count)
    throw Error(fmt::format("--gpu {}: this machine has {} GPU(s), numbered 0 to {}", index, count, count - 1));
  check(cudaSetDevice(index), "cudaSetDevice");
  check(cudaGetDeviceProperties(&properties_, index), "cudaGetDeviceProperties");
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudnnCreate(&cudnn_), "cudnnCreate");
  check(cudnnSetStream(cudnn_, stream_), "cudnnSetStream");
  check(cublasCreate(&cublas_), "cublasCreate");
  check(cublasSetStream(cublas_, stream_), "cublasSetStream");
}

Gpu::~Gpu() {
  if (stream_) cudaStreamSynchronize(stream_);
  workspace_.reset();
  allocator_.release_cached();
  if (cublas_) cublasDestroy(cublas_);
  if (cudnn_) cudnnDestroy(cudnn_);
  if (stream_) cudaStreamDestroy(stream_);
}

void* Gpu::workspace(size_t bytes) {
  if (bytes == 0) return nullptr;
  if (bytes > workspace_size_) {
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");  // the old one may still be read
    workspace_.reset();
    workspace_ = allocator_.allocate(bytes);
    workspace_size_ = Allocator::rounded(bytes);
  }
  return workspace_.get();
}

void Gpu::release_workspace() {
  cudaStreamSynchronize(stream_);
  workspace_.reset();
  workspace_size_ = 0;
}

std::string Gpu::description() const {
  return fmt::format("{} (sm_{}{}, {} SMs, {:.1f} GiB)", properties_.name, properties_.major, properties_.minor,
                     properties_.multiProcessorCount,
                     static_cast<double>(properties_.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
}

std::string Gpu::libraries() const {
  int runtime = 0, driver = 0, cublas_version = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  cublasGetVersion(cublas_, &cublas_version);
  auto cuda = [](int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); };
  auto cudnn = cudnnGetVersion();
  return fmt::format("CUDA runtime {}, driver {}, cuDNN {}.{}.{}, cuBLAS {}.{}.{}", cuda(runtime), cuda(driver),
                     cudnn / 10000, cudnn % 10000 / 100, cudnn % 100, cublas_version / 10000,
                     cublas_version % 10000 / 100, cublas_version % 100);
}

}  // namespace ridge::exec::cuda
