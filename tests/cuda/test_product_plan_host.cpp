// The cuBLAS calls of a product read and written through strides (exec/cuda/product_plan.h), run here by a host
// emulation of cublasGemmStridedBatchedEx's column-major arithmetic: over every permutation of operands and output of
// rank 2 to 4, they compute what the product's definition does (support/strided_product.h); attention at the
// bundled models' sizes takes the calls counted by hand; the GPU's optimized graph of the bundled transformers
// absorbs every head transpose.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "exec/cuda/attention_plan.h"
#include "exec/cuda/interpreter.h"
#include "exec/cuda/product_plan.h"
#include "exec/prepare.h"
#include "support/executor_models.h"
#include "support/paths.h"
#include "support/strided_product.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;
using Dims = std::vector<int64_t>;

// cuBLAS's strided batched GEMM, column-major, one call: C = alpha op(X) op(Y).
void emulate(const cuda::GemmCall& c, const float* x, const float* y, float* out, float alpha) {
  for (int64_t item = 0; item < c.batch; ++item)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < c.k; ++l) {
          float xv = c.trans_x ? x[item * c.stride_x + l + i * c.ldx] : x[item * c.stride_x + i + l * c.ldx];
          float yv = c.trans_y ? y[item * c.stride_y + j + l * c.ldy] : y[item * c.stride_y + l + j * c.ldy];
          sum += static_cast<double>(xv) * yv;
        }
        out[item * c.stride_c + i + j * c.ldc] = static_cast<float>(alpha * sum);
      }
}

void run_plan(const cuda::ProductCalls& plan, const float* a, const float* b, float* y, float alpha) {
  const auto& c = plan.call;
  for (const auto& [oa, ob, oy] : plan.offsets)
    emulate(c, c.x_is_a ? a + oa : b + ob, c.x_is_a ? b + ob : a + oa, y + oy, alpha);
}

int64_t numel(const Dims& d) { return std::accumulate(d.begin(), d.end(), int64_t{1}, std::multiplies<>()); }

std::vector<Dims> permutations(size_t rank) {
  Dims p(rank);
  std::iota(p.begin(), p.end(), 0);
  std::vector<Dims> all;
  do all.push_back(p);
  while (std::next_permutation(p.begin(), p.end()));
  return all;
}

Dims permute(const Dims& dims, const Dims& perm) {
  Dims out;
  for (auto p : perm) out.push_back(dims[static_cast<size_t>(p)]);
  return out;
}

// Stored dims whose permutation is `logical`.
Dims stored_for(const Dims& logical, const Dims& perm) {
  Dims stored(logical.size());
  for (size_t j = 0; j < perm.size(); ++j) stored[static_cast<size_t>(perm[j])] = logical[j];
  return stored;
}

// Every permutation of A, B and the output, over batch dims that include 1s and a broadcast operand: where the plan
// exists, its calls write every element of Y as the definition does; a plan is found wherever each matrix has a unit
// stride (its stored innermost dim among its two matrix dims).
TEST(CudaProductPlan, EveryPermutationComputesTheProductsDefinition) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  struct Case {
    Dims batch_a, batch_b;
    int64_t m, k, n;
  };
  const std::vector<Case> cases{
      {{}, {}, 3, 4, 5},         {{2}, {2}, 3, 4, 5}, {{2, 3}, {2, 3}, 2, 3, 4}, {{3}, {}, 2, 5, 3},
      {{2, 1}, {2, 3}, 3, 2, 4}, {{1}, {3}, 1, 4, 3}, {{2, 3}, {2, 3}, 4, 1, 2},
  };
  int planned = 0, refused = 0;
  for (const auto& tc : cases) {
    Dims la = tc.batch_a, lb = tc.batch_b;
    la.insert(la.end(), {tc.m, tc.k});
    lb.insert(lb.end(), {tc.k, tc.n});
    size_t rank = std::max(tc.batch_a.size(), tc.batch_b.size());
    Dims ly(rank, 1);
    for (size_t i = 0; i < rank; ++i) {
      auto at = [&](const Dims& batch) { return i + batch.size() >= rank ? batch[i + batch.size() - rank] : 1; };
      ly[i] = std::max(at(tc.batch_a), at(tc.batch_b));
    }
    ly.insert(ly.end(), {tc.m, tc.n});
    for (const auto& pa : permutations(la.size()))
      for (const auto& pb : permutations(lb.size()))
        for (const auto& py : permutations(ly.size())) {
          auto sa = stored_for(la, pa), sb = stored_for(lb, pb), sy = permute(ly, py);
          auto layout = exec::product_layout(sa, pa, sb, pb, sy, py);
          auto plan = cuda::plan_product_calls(layout, 1000);
          auto unit = [](const exec::StridedMatrix& mat) {
            return mat.row_stride == 1 || mat.col_stride == 1 || mat.rows == 1 || mat.cols == 1;
          };
          if (!plan) {
            ++refused;
            EXPECT_FALSE(unit(layout.a) && unit(layout.b) && unit(layout.y))
                << "refused with unit strides: A perm " << pa.size() << " case m=" << tc.m;
            continue;
          }
          ++planned;
          std::vector<float> a(static_cast<size_t>(numel(sa))), b(static_cast<size_t>(numel(sb)));
          for (auto& v : a) v = value(rng);
          for (auto& v : b) v = value(rng);
          std::vector<float> want(static_cast<size_t>(numel(sy)), NAN), got(want.size(), NAN);
          strided_product(layout, a.data(), b.data(), want.data(), 0.75f);
          run_plan(*plan, a.data(), b.data(), got.data(), 0.75f);
          for (size_t i = 0; i < want.size(); ++i)
            ASSERT_NEAR(got[i], want[i], 1e-5) << "element " << i << " of m=" << tc.m << " k=" << tc.k << " n=" << tc.n
                                               << " (" << plan->offsets.size() << " calls)";
        }
  }
  EXPECT_GT(planned, 1000);
  EXPECT_GT(refused, 100);  // a matrix read across its dims (the innermost stored dim in the batch) is not cuBLAS's
}

// The plain products' call (Gemm, MatMul, the backward's): row-major C = op(A) op(B), batched, for every transpose, as
// the definition computes it.
TEST(CudaProductPlan, TheRowMajorCallComputesEveryTranspose) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  const int64_t m = 3, n = 5, k = 4, batch = 2;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      // A stored [batch, k, m] when transposed, else [batch, m, k]; B likewise; C [batch, m, n].
      std::vector<float> a(batch * m * k), b(batch * k * n), want(batch * m * n), got(want.size(), NAN);
      for (auto& v : a) v = value(rng);
      for (auto& v : b) v = value(rng);
      for (int64_t item = 0; item < batch; ++item)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double sum = 0;
            for (int64_t l = 0; l < k; ++l)
              sum += static_cast<double>(a[item * m * k + (ta ? l * m + i : i * k + l)]) *
                     b[item * k * n + (tb ? j * k + l : l * n + j)];
            want[item * m * n + i * n + j] = static_cast<float>(2 * sum);
          }
      auto call = cuda::row_major_call(ta, tb, m, n, k, batch, m * k, k * n, m * n);
      EXPECT_FALSE(call.x_is_a);
      emulate(call, b.data(), a.data(), got.data(), 2.f);
      for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5) << ta << tb << " element " << i;
    }
}

// Attention at the bundled models' sizes, the calls counted by hand.
TEST(CudaProductPlan, AttentionAtTheBundledModelsSizesTakesFewCalls) {
  // ViT-B/16, batch 32: heads merged with the batch ([197, 32 x 12, 64], sequence first): one call of 384 products.
  int64_t tokens = 197, heads = 12, size = 64, items = 32 * heads;
  auto vit = exec::product_layout({tokens, items, size}, {1, 0, 2}, {tokens, items, size}, {1, 2, 0},
                                  {items, tokens, tokens}, {});
  auto plan = cuda::plan_product_calls(vit, cuda::kMaxProductCalls);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->offsets.size(), 1u);
  EXPECT_EQ(plan->call.batch, items);
  EXPECT_EQ(plan->call.stride_x, size);  // the next head of the next image: 64 floats on
  // BERT-base, batch 8 and 32, 128 tokens: [batch, tokens, 12, 64] read as [batch, 12, tokens, 64]; the batch and the
  // heads do not merge, so the smaller is a loop.
  for (int64_t batch : {1, 8, 32}) {
    auto bert = exec::product_layout({batch, 128, heads, size}, {0, 2, 1, 3}, {batch, 128, heads, size}, {0, 2, 3, 1},
                                     {batch, heads, 128, 128}, {});
    auto p = cuda::plan_product_calls(bert, cuda::kMaxProductCalls);
    ASSERT_TRUE(p) << batch;
    EXPECT_EQ(static_cast<int64_t>(p->offsets.size()), std::min(batch, heads)) << batch;
    EXPECT_EQ(p->call.batch, std::max(batch, heads)) << batch;
    auto context = exec::product_layout({batch, heads, 128, 128}, {}, {batch, 128, heads, size}, {0, 2, 1, 3},
                                        {batch, 128, heads, size}, {0, 2, 1, 3});
    EXPECT_TRUE(cuda::plan_product_calls(context, cuda::kMaxProductCalls)) << batch;
  }
  // Beyond the limit of calls: refused, so the transposes stay copies.
  auto many = exec::product_layout({100, 128, heads, size}, {0, 2, 1, 3}, {100, 128, heads, size}, {0, 2, 3, 1},
                                   {100, heads, 128, 128}, {});
  EXPECT_TRUE(cuda::plan_product_calls(many, cuda::kMaxProductCalls));  // 12 calls of 100
  auto wide = exec::product_layout({70, 80, 66, 4}, {0, 2, 1, 3}, {70, 80, 66, 4}, {0, 2, 3, 1}, {70, 66, 80, 80}, {});
  EXPECT_FALSE(cuda::plan_product_calls(wide, cuda::kMaxProductCalls));  // 66 calls of 70
}

// The GPU's optimized graph of the bundled transformers: every head transpose and scaling absorbed, and the note says
// so; in fp32 each layer's attention then becomes one node of the attention kernel (BERT's with its mask Add, GPT-2's
// with its causal Where), in tf32 and 16 bits the products stay.
TEST(CudaProductPlan, TheGpusOptimizedTransformersReadTheirHeadsInPlace) {
  for (const char* name : {"bert", "vit", "gpt2"}) {
    auto prepared = prepared_executor_model(name);
    for (auto precision : {exec::Precision::kFp32, exec::Precision::kTf32, exec::Precision::kFp16}) {
      auto optimized = cuda::gpu_optimized_graph(prepared.analysis.model, precision);
      EXPECT_EQ(optimized.views.transposes, 8) << name;
      EXPECT_EQ(optimized.views.scales, 2) << name;
      EXPECT_NE(optimized.summary().find("8 transposes and 2 scalings read or written by matrix products in place"),
                std::string::npos)
          << optimized.summary();
      bool fp32 = precision == exec::Precision::kFp32;
      EXPECT_EQ(optimized.attention.fused, fp32 ? 2 : 0) << name << " " << exec::name(precision);
      EXPECT_EQ(optimized.summary().find("2 attention blocks (scores, mask, Softmax, context) fused into one kernel "
                                         "each") != std::string::npos,
                fp32)
          << optimized.summary();
      int fused = 0, softmaxes = 0, masks = 0;
      for (const auto& node : optimized.graph.nodes) {
        softmaxes += node.op_type == "Softmax";
        if (!exec::is_fused_attention(node)) continue;
        ++fused;
        masks += node.input(3) != graph::kNoValue;
        // Every fused node's plan is one the kernel takes, from the dims shape inference bound.
        auto dims = [&](graph::ValueId id) { return graph::known_dims(optimized.graph.value(id).shape); };
        std::optional<std::vector<int64_t>> mask_dims;
        if (node.input(3) != graph::kNoValue) mask_dims = dims(node.input(3));
        EXPECT_NO_THROW(cuda::fused_attention_plan(exec::attention_pattern(
            node, dims(node.inputs[0]), dims(node.inputs[1]), dims(node.inputs[2]), mask_dims, dims(node.outputs[0]))))
            << name << " " << node.name;
      }
      EXPECT_EQ(fused, fp32 ? 2 : 0) << name;
      EXPECT_EQ(softmaxes, fp32 ? 0 : 2) << name;
      EXPECT_EQ(masks, fp32 && std::string(name) != "vit" ? 2 : 0) << name;  // ViT has no mask
    }
  }
}

}  // namespace
}  // namespace ridge::test
