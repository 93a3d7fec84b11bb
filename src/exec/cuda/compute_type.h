#pragma once
// The type convolutions, products and recurrent layers compute in under a precision, and its cuBLAS name: fp16 and
// bf16 for those precisions, fp32 for fp32 and tf32 (TF32 is a math mode on fp32 data).
#include <library_types.h>

#include "exec/options.h"
#include "graph/dtype.h"

namespace ridge::exec::cuda {

inline graph::DType compute_type(Precision p) {
  if (p == Precision::kFp16) return graph::DType::kFloat16;
  if (p == Precision::kBf16) return graph::DType::kBFloat16;
  return graph::DType::kFloat32;
}

inline cudaDataType_t cuda_type(graph::DType t) {
  if (t == graph::DType::kFloat16) return CUDA_R_16F;
  if (t == graph::DType::kBFloat16) return CUDA_R_16BF;
  return CUDA_R_32F;
}

}  // namespace ridge::exec::cuda
