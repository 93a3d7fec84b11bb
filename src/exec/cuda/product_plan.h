#pragma once
// The cuBLAS calls of a product read and written through strides (exec/product_views.h): cuBLAS is column-major, so
// each matrix must have a unit stride along its rows (taken as is) or its columns (taken transposed, or, for the
// output, computed as B^T A^T); one batch dim is cuBLAS's strided batch and the others are a loop of calls. A
// transformer's batch-first attention ([batch, heads, tokens, head size] read from [batch, tokens, heads, head size])
// has two batch dims that do not merge: the loop runs over the smaller. Host code: the kernel and the tests plan
// with it.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "exec/product_views.h"

namespace ridge::exec::cuda {

// One cublasGemmStridedBatchedEx in cuBLAS's terms: C (m x n, column-major, ldc) = alpha op(X) op(Y) for each of
// `batch` items, X (m x k after op), Y (k x n after op).
struct GemmCall {
  bool x_is_a = true;  // X is the product's A (and Y its B); false: X is B^T's source, Y is A^T's (C is Y^T)
  bool trans_x = false, trans_y = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t ldx = 0, ldy = 0, ldc = 0;
  int64_t stride_x = 0, stride_y = 0, stride_c = 0;  // elements between batch items (0: the same matrix)
  int64_t batch = 1;
};

// The call computing row-major C [m, n] = op(A) [m, k] op(B) [k, n] for `batch` items (strides in elements, 0: the
// same matrix), A and B dense with op() a transpose where asked: C^T = op(B)^T op(A)^T in cuBLAS's column-major terms.
GemmCall row_major_call(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, int64_t batch = 1,
                        int64_t stride_a = 0, int64_t stride_b = 0, int64_t stride_c = 0);

struct ProductCalls {
  GemmCall call;
  // Per call, the element offsets of A, B and Y (in that order, whichever of them is X).
  std::vector<std::array<int64_t, 3>> offsets;
};

// The calls of `layout`, at most `max_calls`; nullopt where cuBLAS cannot read a matrix through its strides (no unit
// stride, a leading dim below its extent, a dim above int's range) or more calls would be needed.
std::optional<ProductCalls> plan_product_calls(const ProductLayout& layout, int64_t max_calls);

// The most calls a product of strided views may take: a loop over a batch dim beyond this costs more launches than
// the copies it saves.
inline constexpr int64_t kMaxProductCalls = 64;

}  // namespace ridge::exec::cuda
