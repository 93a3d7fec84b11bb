#pragma once
// Matrix products that read their operands and write their output through strides, as BLAS libraries can: a
// Transpose before or after a MatMul, and a multiplication or division by a scalar constant before or after it,
// become attributes of the product (a permutation per operand and of the output, and a factor alpha), so no copy
// and no elementwise pass runs for them. A transformer's attention reads its queries, keys and values as [batch,
// heads, tokens, head size] transposes of the projections' output and writes its result back through another; the
// scores are scaled by 1/sqrt(head size) before or after the product: four copies and a pass over the scores per
// layer that a strided batched product does without.
// Only products of two computed values are rewritten (attention's): a product with a weight reads its activation in
// one large matrix, which a copy keeps faster than many strided ones. libtorch-free and CUDA-free: a backend applies
// it to the graph it runs (the GPU's optimized mode) and plans its calls from `product_layout`.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace ridge::exec {

// The product reads permute(input 0, perm) (numpy's transpose: logical dim j is the stored dim perm[j]).
inline constexpr const char* kPermAAttribute = "ridge.perm_a";
inline constexpr const char* kPermBAttribute = "ridge.perm_b";
// The node's output is permute(product, perm).
inline constexpr const char* kPermYAttribute = "ridge.perm_y";
// The product is multiplied by this factor.
inline constexpr const char* kAlphaAttribute = "ridge.alpha";

// One operand of a batched product as strides over stored (contiguous, row-major) elements.
struct StridedMatrix {
  int64_t rows = 0, cols = 0;
  int64_t row_stride = 0, col_stride = 0;
  std::vector<int64_t> batch_strides;  // one per batch dim of the product (0 where the operand is broadcast)
};

// Y = alpha * A B over the product's batch dims (numpy's broadcasting), each operand read and the result written
// through strides.
struct ProductLayout {
  std::vector<int64_t> batch;  // the product's batch dims
  StridedMatrix a, b, y;       // a: rows x k, b: k x cols, y: rows x cols
  int64_t m() const { return a.rows; }
  int64_t k() const { return a.cols; }
  int64_t n() const { return b.cols; }
};

// The layout of a product whose operands are stored as `a_dims` and `b_dims` (each of rank 2 or more) and read
// through `perm_a` and `perm_b` (empty: as stored), and whose output, stored as `y_dims`, is the product permuted by
// `perm_y` (empty: as computed). Throws ridge::Error when the dims do not make a product (inner dims, batch dims
// that do not broadcast, a permutation of the wrong rank or not one, an output of other dims).
ProductLayout product_layout(const std::vector<int64_t>& a_dims, const std::vector<int64_t>& perm_a,
                             const std::vector<int64_t>& b_dims, const std::vector<int64_t>& perm_b,
                             const std::vector<int64_t>& y_dims, const std::vector<int64_t>& perm_y);

// The dims of the product of `a_dims` read through `perm_a` and `b_dims` through `perm_b`: the broadcast batch dims,
// then rows and columns. Throws ridge::Error as product_layout does.
std::vector<int64_t> product_dims(const std::vector<int64_t>& a_dims, const std::vector<int64_t>& perm_a,
                                  const std::vector<int64_t>& b_dims, const std::vector<int64_t>& perm_b);

struct ProductViews {
  int transposes = 0, scales = 0;  // absorbed into products
  std::string summary() const;     // "" when nothing was absorbed
};

// Whether a backend can run a product of this layout (its library's constraints, the number of calls it needs).
using TakesLayout = std::function<bool(const ProductLayout&)>;

// Rewrites `g` (its shapes inferred and bound) in place: each MatMul of two computed values, of rank 2 or more each,
// absorbs the Transposes and scalar Mul/Div nodes that only it reads (before it) and that read only it (after it, where
// it has no epilogue: no bias input, no activation attribute), where `takes` accepts the resulting layout. A
// Transpose of a Transpose composes. Constants are read through `model_directory` where stored in files of their
// own. The absorbed nodes are gone; every value keeps its id.
ProductViews absorb_product_views(graph::Graph& g, const std::string& model_directory, const TakesLayout& takes);

}  // namespace ridge::exec
