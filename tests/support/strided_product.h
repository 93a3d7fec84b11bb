#pragma once
// A product read and written through strides (exec/product_views.h), computed by its definition: every batch index,
// every output element, the sum over k in order. The reference the rewrite and the GPU's call plan are checked with.
#include <cstdint>
#include <vector>

#include "exec/product_views.h"

namespace ridge::test {

inline void strided_product(const exec::ProductLayout& p, const float* a, const float* b, float* y, float alpha) {
  std::vector<int64_t> index(p.batch.size(), 0);
  int64_t items = 1;
  for (auto d : p.batch) items *= d;
  for (int64_t item = 0; item < items; ++item) {
    int64_t oa = 0, ob = 0, oy = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      oa += index[i] * p.a.batch_strides[i];
      ob += index[i] * p.b.batch_strides[i];
      oy += index[i] * p.y.batch_strides[i];
    }
    for (int64_t r = 0; r < p.m(); ++r)
      for (int64_t c = 0; c < p.n(); ++c) {
        double sum = 0;
        for (int64_t l = 0; l < p.k(); ++l)
          sum += static_cast<double>(a[oa + r * p.a.row_stride + l * p.a.col_stride]) *
                 b[ob + l * p.b.row_stride + c * p.b.col_stride];
        y[oy + r * p.y.row_stride + c * p.y.col_stride] = static_cast<float>(alpha * sum);
      }
    for (size_t i = index.size(); i-- > 0;) {
      if (++index[i] < p.batch[i]) break;
      index[i] = 0;
    }
  }
}

}  // namespace ridge::test
