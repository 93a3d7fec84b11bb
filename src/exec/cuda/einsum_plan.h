#pragma once
// ONNX's Einsum on the GPU as the steps the matrix-product family already has, worked out on the host from the
// equation and the operands' dims (and tested there against the CPU executor): each operand read through a strided
// view (a label repeated in it, a diagonal, is one dim whose stride is the sum of its dims'; an ellipsis dim of size 1
// broadcasts with stride 0) and copied dense in the order the next step wants, its labels that nothing else reads
// summed out; for two operands a batched product over [batch labels, first's free labels, contracted labels] x [batch,
// contracted, second's free], which cuBLAS computes; the result read into the output's order. One or two operands (an
// equation of three or more is refused by name); fp32.
#include <cstdint>
#include <string>
#include <vector>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// One operand: `copy` reads the stored operand (dense over its own dims) as the dense tensor over `copy.dims`, in the
// order [kept labels, summed labels]; the trailing `summed` elements of each kept element are then added up.
struct EinsumStage {
  Layout copy;
  bool copies = true;  // false where the copy would be the operand itself (dense, in that order): it is read as is
  std::string kept;    // labels after the sum, in order
  int64_t kept_elements = 1, summed = 1;
};

struct EinsumPlan {
  std::vector<EinsumStage> stages;  // one per operand
  // Two operands: C[batch, m, n] = A[batch, m, k] B[batch, k, n] of the stages' results (row-major, dense).
  bool product = false;
  int64_t batch = 1, m = 1, k = 1, n = 1;
  std::string result;    // the labels of what the last step computed, in order
  Layout output;         // that result read in the output's order: the output's dims, the result's strides
  bool reorders = true;  // false where the result is already the output
  int64_t output_elements() const;
};

// Throws ridge::Error (one line) on a malformed equation, sizes that disagree, three or more operands, or an operand or
// output of more than kMaxRank labels.
EinsumPlan einsum_plan(const std::string& equation, const std::vector<std::vector<int64_t>>& dims);

}  // namespace ridge::exec::cuda
