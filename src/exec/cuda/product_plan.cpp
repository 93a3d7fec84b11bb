#include "exec/cuda/product_plan.h"

#include <algorithm>
#include <limits>

namespace ridge::exec::cuda {

namespace {

// A dim of size 1 is never stepped along, so its stride is free: pick the one that makes the matrix a plain
// column- or row-major one.
StridedMatrix normalized(StridedMatrix m) {
  if (m.rows == 1) m.row_stride = m.col_stride == 1 ? std::max<int64_t>(m.cols, 1) : 1;
  if (m.cols == 1) m.col_stride = m.row_stride == 1 ? std::max<int64_t>(m.rows, 1) : 1;
  return m;
}

// A matrix as cuBLAS reads it: `rows x cols` of the product (after op), stored column-major either as is (no
// transpose: unit row stride) or transposed (unit column stride). The leading dim must cover the stored rows.
struct Operand {
  bool trans = false;
  int64_t ld = 0;
};

std::optional<Operand> operand(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  if (row_stride == 1 && col_stride >= std::max<int64_t>(rows, 1)) return Operand{false, col_stride};
  if (col_stride == 1 && row_stride >= std::max<int64_t>(cols, 1)) return Operand{true, row_stride};
  return std::nullopt;
}

bool fits_int(int64_t v) { return v >= 0 && v <= std::numeric_limits<int>::max(); }

struct BatchDim {
  int64_t size;
  std::array<int64_t, 3> strides;  // A, B, Y
};

}  // namespace

GemmCall row_major_call(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, int64_t batch, int64_t stride_a,
                        int64_t stride_b, int64_t stride_c) {
  GemmCall c;
  c.x_is_a = false;
  c.trans_x = trans_b;
  c.trans_y = trans_a;
  c.m = n;
  c.n = m;
  c.k = k;
  c.ldx = trans_b ? k : n;
  c.ldy = trans_a ? m : k;
  c.ldc = n;
  c.stride_x = stride_b;
  c.stride_y = stride_a;
  c.stride_c = stride_c;
  c.batch = batch;
  return c;
}

std::optional<ProductCalls> plan_product_calls(const ProductLayout& layout, int64_t max_calls) {
  auto a = normalized(layout.a), b = normalized(layout.b), y = normalized(layout.y);
  int64_t m = layout.m(), n = layout.n(), k = layout.k();
  ProductCalls plan;
  auto& c = plan.call;
  std::optional<Operand> x, w;
  if (y.col_stride == 1 && y.row_stride >= std::max<int64_t>(n, 1)) {
    // Y row-major: cuBLAS writes Y^T (n x m, ldc = Y's row stride) = B^T A^T.
    c.x_is_a = false;
    c.m = n;
    c.n = m;
    c.ldc = y.row_stride;
    x = operand(n, k, b.col_stride, b.row_stride);  // B^T: n x k
    w = operand(k, m, a.col_stride, a.row_stride);  // A^T: k x m
  } else if (y.row_stride == 1 && y.col_stride >= std::max<int64_t>(m, 1)) {
    c.x_is_a = true;
    c.m = m;
    c.n = n;
    c.ldc = y.col_stride;
    x = operand(m, k, a.row_stride, a.col_stride);
    w = operand(k, n, b.row_stride, b.col_stride);
  } else {
    return std::nullopt;
  }
  if (!x || !w) return std::nullopt;
  c.k = k;
  c.trans_x = x->trans;
  c.ldx = x->ld;
  c.trans_y = w->trans;
  c.ldy = w->ld;
  for (auto v : {c.m, c.n, c.k, c.ldx, c.ldy, c.ldc})
    if (!fits_int(v)) return std::nullopt;

  // Batch dims stepped along (size > 1), adjacent ones merged where every operand steps through them as one.
  std::vector<BatchDim> dims;
  for (size_t i = 0; i < layout.batch.size(); ++i) {
    if (layout.batch[i] == 1) continue;
    BatchDim d{layout.batch[i], {a.batch_strides.at(i), b.batch_strides.at(i), y.batch_strides.at(i)}};
    if (!dims.empty()) {
      auto& last = dims.back();
      bool merges = true;
      for (size_t o = 0; o < 3; ++o) merges = merges && last.strides[o] == d.strides[o] * d.size;
      if (merges) {
        last.size *= d.size;
        last.strides = d.strides;
        continue;
      }
    }
    dims.push_back(d);
  }
  // The largest dim is cuBLAS's batch; the others are a loop of calls.
  size_t inner = dims.size();
  int64_t calls = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (inner == dims.size() || dims[i].size > dims[inner].size) inner = i;
    calls *= dims[i].size;
  }
  if (inner < dims.size()) {
    const auto& d = dims[inner];
    calls /= d.size;
    c.batch = d.size;
    if (!fits_int(c.batch)) return std::nullopt;
    auto [sa, sb, sy] = d.strides;
    c.stride_x = c.x_is_a ? sa : sb;
    c.stride_y = c.x_is_a ? sb : sa;
    c.stride_c = sy;
  }
  if (calls > max_calls) return std::nullopt;
  // Every combination of the looped dims, the last fastest.
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t call = 0; call < calls; ++call) {
    std::array<int64_t, 3> offset{0, 0, 0};
    for (size_t i = 0; i < dims.size(); ++i)
      for (size_t o = 0; o < 3; ++o) offset[o] += index[i] * dims[i].strides[o];
    plan.offsets.push_back(offset);
    for (size_t i = dims.size(); i-- > 0;) {
      if (i == inner) continue;
      if (++index[i] < dims[i].size) break;
      index[i] = 0;
    }
  }
  return plan;
}

}  // namespace ridge::exec::cuda
