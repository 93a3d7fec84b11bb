#include "exec/cuda/layout.h"

#include <cstdlib>

namespace ridge::exec::cuda {

void simplify(Layout& out, Layout* operands, int count) {
  // Walk from the innermost dim outwards, keeping a dim (rank r) or merging it into the last kept one.
  Layout o;
  Layout ops[3];
  Layout* ins = operands;
  int rank = 0;  // kept dims, innermost first (reversed at the end)
  for (int d = out.rank - 1; d >= 0; --d) {
    if (out.dims[d] == 1) continue;  // one index: no offset
    bool merge = rank > 0;
    for (int k = 0; merge && k < count; ++k) merge = ins[k].strides[d] == ops[k].strides[rank - 1] * o.dims[rank - 1];
    if (merge) {
      o.dims[rank - 1] *= out.dims[d];
      continue;
    }
    o.dims[rank] = out.dims[d];
    for (int k = 0; k < count; ++k) ops[k].strides[rank] = ins[k].strides[d];
    ++rank;
  }
  Layout result;
  result.rank = rank;
  for (int k = 0; k < count; ++k) ops[k].rank = rank;
  for (int r = 0; r < rank; ++r) {
    result.dims[r] = o.dims[rank - 1 - r];
    for (int k = 0; k < count; ++k) {
      operands[k].dims[r] = result.dims[r];
      operands[k].strides[r] = ops[k].strides[rank - 1 - r];
    }
  }
  int64_t stride = 1;
  for (int r = rank - 1; r >= 0; --r) {
    result.strides[r] = stride;
    stride *= result.dims[r];
  }
  for (int k = 0; k < count; ++k) {
    operands[k].rank = rank;
    for (int r = rank; r < kMaxRank; ++r) operands[k].dims[r] = operands[k].strides[r] = 0;
  }
  out = result;
}

Rows rows_of(const Layout& out, const Layout* operands, int count, int64_t min_inner) {
  Rows r;
  if (out.rank < 2 || out.dims[out.rank - 1] < min_inner) return r;
  const int last = out.rank - 1;
  for (int k = 0; k < count; ++k) {
    const int64_t stride = operands[k].strides[last];
    if (stride != 0 && stride != 1) return r;
    r.step[k] = static_cast<int>(stride);
  }
  r.inner = out.dims[last];
  r.outer.rank = last;
  r.rows = 1;
  for (int d = last - 1; d >= 0; --d) {
    r.outer.dims[d] = out.dims[d];
    r.outer.strides[d] = r.rows;
    r.rows *= out.dims[d];
  }
  for (int k = 0; k < count; ++k) {
    r.operands[k].rank = last;
    for (int d = 0; d < last; ++d) {
      r.operands[k].dims[d] = out.dims[d];
      r.operands[k].strides[d] = operands[k].strides[d];
    }
  }
  r.ok = true;
  return r;
}

Access access(const Layout& operand) {
  bool scalar = true;
  for (int d = 0; d < operand.rank; ++d) scalar = scalar && operand.strides[d] == 0;
  if (scalar) return Access::kScalar;
  if (operand.rank == 1 && operand.strides[0] == 1) return Access::kFlat;
  return Access::kStrided;
}

Transpose transpose_of(const Layout& out, const Layout& in, int64_t min_side) {
  Transpose t;
  const int r = out.rank;
  if (r < 2 || r > 3 || in.rank != r) return t;
  if (in.strides[r - 2] != 1 || in.strides[r - 1] != out.dims[r - 2]) return t;
  t.rows = out.dims[r - 2];
  t.cols = out.dims[r - 1];
  if (r == 3) {
    t.batches = out.dims[0];
    t.batch_stride = in.strides[0];
  }
  t.ok = t.rows >= min_side && t.cols >= min_side && t.batch_stride >= 0;
  return t;
}

bool fits_32bit(const Layout& out, const Layout* operands, int count, int64_t base) {
  constexpr int64_t kLimit = int64_t{1} << 31;
  int64_t n = 1;
  for (int d = 0; d < out.rank; ++d) n *= out.dims[d];
  if (n >= kLimit) return false;
  for (int k = 0; k < count; ++k) {
    int64_t reach = std::llabs(base);
    for (int d = 0; d < operands[k].rank; ++d) reach += (operands[k].dims[d] - 1) * std::llabs(operands[k].strides[d]);
    if (reach >= kLimit) return false;
  }
  return true;
}

Divider::Divider(uint32_t d) : divisor(d) {
  while ((uint64_t{1} << shift) < d) ++shift;
  multiplier = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
}

}  // namespace ridge::exec::cuda
