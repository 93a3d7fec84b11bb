#pragma once
// ONNX's Det as the GPU computes it, one matrix at a time: Gaussian elimination with partial pivoting (the LU
// factorization LAPACK's getrf and ATen's det take) in fp64 on a copy, the determinant the product of the pivots with
// the sign of the row swaps. The kernel (det_kernels.cu) runs det_of a thread per matrix (Det takes small matrices:
// a batch of 2x2 to a few dozen); the host-side tests apply it to ONNX's node tests and against the CPU executor
// (tests/cuda/test_det_host.cpp). C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// The determinant of the m x m row-major matrix `a`; `work` holds m x m doubles (overwritten).
RIDGE_HOST_DEVICE inline double det_of(const float* a, int64_t m, double* work) {
  for (int64_t i = 0; i < m * m; ++i) work[i] = a[i];
  double det = 1.0;
  for (int64_t c = 0; c < m; ++c) {
    int64_t pivot = c;
    for (int64_t r = c + 1; r < m; ++r)
      if (fabs(work[r * m + c]) > fabs(work[pivot * m + c])) pivot = r;
    if (work[pivot * m + c] == 0.0) return 0.0;
    if (pivot != c) {
      for (int64_t k = 0; k < m; ++k) {
        const double t = work[c * m + k];
        work[c * m + k] = work[pivot * m + k];
        work[pivot * m + k] = t;
      }
      det = -det;
    }
    const double d = work[c * m + c];
    det *= d;
    for (int64_t r = c + 1; r < m; ++r) {
      const double f = work[r * m + c] / d;
      for (int64_t k = c + 1; k < m; ++k) work[r * m + k] -= f * work[c * m + k];
    }
  }
  return det;
}

}  // namespace ridge::exec::cuda
