#include "sys/cuda/check.h"

#include <fmt/format.h>

#include "util/error.h"

namespace ridge::sys::cuda {

void check(cudaError_t status, std::string_view what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clears a sticky-free error, so the next call does not report it again
  throw Error(fmt::format("{}: {} ({})", what, cudaGetErrorString(status), cudaGetErrorName(status)));
}

void check(cudnnStatus_t status, std::string_view what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  throw Error(fmt::format("{}: {}", what, cudnnGetErrorString(status)));
}

std::string_view status_name(cublasStatus_t status) {
  const char* text = cublasGetStatusName(status);
  return text ? text : "unknown cuBLAS status";
}

void check(cublasStatus_t status, std::string_view what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw Error(fmt::format("{}: {}", what, status_name(status)));
}

}  // namespace ridge::sys::cuda
