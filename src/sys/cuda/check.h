#pragma once
// CUDA, cuDNN and cuBLAS status codes as ridge errors: one line naming the call that failed and the
// library's own name for the status, so a user can look it up.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string_view>

namespace ridge::sys::cuda {

void check(cudaError_t status, std::string_view what);
void check(cudnnStatus_t status, std::string_view what);
void check(cublasStatus_t status, std::string_view what);

// The library's name of a cuBLAS status (cublasGetStatusName exists only from CUDA 11.4 on, and
// prints nothing for values it does not know).
std::string_view status_name(cublasStatus_t status);

}  // namespace ridge::sys::cuda
