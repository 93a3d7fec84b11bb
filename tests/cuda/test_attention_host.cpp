// The GPU's Attention without a GPU: the plan (src/exec/cuda/attention_plan.h) and the per-row arithmetic
// (attention_cell.h: the scores, the tiles' online softmax) applied serially, tile by tile as a kernel block walks the
// keys, against ONNX's reference semantics (tests/support/attention_reference.h) in every variant the CPU executor is
// held to, and the plan's one-line refusals. What only a GPU checks: the shared-memory staging, the warp shuffles and
// the 16-bit loads (tests/gpu/test_cuda_gpu.cpp runs the same cases on the GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "exec/attention_fusion.h"
#include "exec/cuda/attention_plan.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "exec/product_views.h"
#include "support/attention_patterns.h"
#include "support/attention_reference.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

// y as the kernel computes it: per item and row, the keys a tile at a time (scores, one raise of the maximum, the
// weights folded in), the mask read where attention_reads_mask says.
std::vector<float> run_serial(const cuda::AttentionPlan& p, const std::vector<float>& q, const std::vector<float>& k,
                              const std::vector<float>& v, const std::vector<float>& mask, size_t y_size) {
  std::vector<float> y(y_size, -12345.f);
  for (int64_t item = 0; item < p.items(); ++item) {
    const int64_t qb = cuda::attention_base(p, cuda::kAttnQ, item), kb = cuda::attention_base(p, cuda::kAttnK, item);
    const int64_t vb = cuda::attention_base(p, cuda::kAttnV, item), yb = cuda::attention_base(p, cuda::kAttnY, item);
    const int64_t mb = cuda::attention_base(p, cuda::kAttnMask, item);
    for (int64_t i = 0; i < p.rows; ++i) {
      cuda::SoftmaxRun run;
      std::vector<float> acc(static_cast<size_t>(p.value_depth), 0.f);
      for (int64_t j0 = 0; j0 < p.keys; j0 += cuda::kAttentionTile) {
        float s[cuda::kAttentionTile];
        float tile_max = -INFINITY;
        for (int jj = 0; jj < cuda::kAttentionTile; ++jj) {
          const int64_t j = j0 + jj;
          float dot = 0.f;
          for (int64_t d = 0; d < p.depth && j < p.keys; ++d)
            dot += q[static_cast<size_t>(qb + i * p.row_stride[cuda::kAttnQ] + d * p.col_stride[cuda::kAttnQ])] *
                   k[static_cast<size_t>(kb + j * p.row_stride[cuda::kAttnK] + d * p.col_stride[cuda::kAttnK])];
          float m = 0.f;
          if (cuda::attention_reads_mask(p, i, j))
            m = mask.at(
                static_cast<size_t>(mb + i * p.row_stride[cuda::kAttnMask] + j * p.col_stride[cuda::kAttnMask]));
          s[jj] = cuda::attention_score(p, dot, i, j, m);
          tile_max = std::fmax(tile_max, s[jj]);
        }
        const float factor = cuda::softmax_raise(run, tile_max);
        for (auto& a : acc) a *= factor;
        for (int jj = 0; jj < cuda::kAttentionTile; ++jj) {
          const float w = cuda::softmax_weight(run, s[jj]);
          run.sum += w;
          if (w == 0.f) continue;
          for (int64_t e = 0; e < p.value_depth; ++e)
            acc[static_cast<size_t>(e)] +=
                w *
                v[static_cast<size_t>(vb + (j0 + jj) * p.row_stride[cuda::kAttnV] + e * p.col_stride[cuda::kAttnV])];
        }
      }
      for (int64_t e = 0; e < p.value_depth; ++e)
        y.at(static_cast<size_t>(yb + i * p.row_stride[cuda::kAttnY] + e * p.col_stride[cuda::kAttnY])) =
            cuda::softmax_finish(run, acc[static_cast<size_t>(e)]);
    }
  }
  return y;
}

graph::Model prepared(const AttentionCase& c) {
  analysis::Request request;
  request.model_path = attention_model(c);
  return exec::prepare(request, "").analysis.model;
}

TEST(CudaAttention, ThePlanAndTheTilesOnlineSoftmaxReproduceOnnxsReference) {
  for (const auto& c : attention_cases()) {
    auto model = prepared(c);
    const auto& node = model.graph.nodes.front();
    auto in = attention_inputs(c);
    std::optional<cuda::MaskInput> mask;
    std::vector<float> mask_values;
    if (in.size() > 3) {
      mask = cuda::MaskInput{in[3].dims, c.mask_bool};
      if (c.mask_bool)
        for (auto b : in[3].bytes) mask_values.push_back(b ? 1.f : 0.f);
      else
        mask_values = floats(in[3]);
    }
    auto y_dims = attention_output_dims(c);
    cuda::check_attention_io(node);
    auto plan = cuda::onnx_attention_plan(node, c.q, c.k, c.v, mask, y_dims);
    auto want = attention_reference(c, in);
    auto got = run_serial(plan, floats(in[0]), floats(in[1]), floats(in[2]), mask_values, want.size());
    EXPECT_EQ(compare_with_nan({got.begin(), got.end()}, want, 1e-5, 1e-5), "") << c.label;
  }
}

// A mask's elements as the serial walk reads them: a bool's as 0 and 1.
std::vector<float> mask_floats(const exec::HostTensor& mask) {
  if (mask.dtype != graph::DType::kBool) return floats(mask);
  std::vector<float> out;
  for (auto b : mask.bytes) out.push_back(b ? 1.f : 0.f);
  return out;
}

// Optimized mode's fused attention (exec/attention_fusion.h) as the kernel runs it: the plan from the fused node's
// pattern, walked tile by tile, gives what the CPU executor computes for the model as exported, in every exported form
// (BERT's added mask, ViT's sequence-first heads, GPT-2's causal Where, a Where that keeps keys, 2-D).
TEST(CudaAttention, TheFusedPatternsPlanComputesWhatTheModelDid) {
  for (const auto& c : attention_pattern_cases()) {
    analysis::Request request;
    request.model_path = c.model;
    auto model = exec::prepare(request, "").analysis.model;
    auto g = model.graph;
    exec::absorb_product_views(g, model.directory, [](const exec::ProductLayout&) { return true; });
    auto fusions = exec::fuse_attention(g, model.default_opset(), model.directory,
                                        [](const exec::AttentionPattern&) { return true; });
    ASSERT_EQ(fusions.fused, 1) << c.label;
    ASSERT_EQ(g.nodes.size(), 1u) << c.label;
    const auto& node = g.nodes[0];
    auto dims = [&](graph::ValueId id) { return graph::known_dims(g.value(id).shape); };
    std::optional<std::vector<int64_t>> mask_dims;
    if (node.input(3) != graph::kNoValue) mask_dims = dims(node.input(3));
    auto plan = cuda::fused_attention_plan(exec::attention_pattern(
        node, dims(node.inputs[0]), dims(node.inputs[1]), dims(node.inputs[2]), mask_dims, dims(node.outputs[0])));
    auto want = host_values(exec::load_engine().run(model, c.inputs, {}).outputs.at(0));
    auto mask = c.inputs.size() > 3 ? mask_floats(c.inputs[3]) : std::vector<float>{};
    auto got = run_serial(plan, floats(c.inputs[0]), floats(c.inputs[1]), floats(c.inputs[2]), mask, want.size());
    EXPECT_EQ(compare_with_nan({got.begin(), got.end()}, want, 1e-5, 1e-6), "") << c.label;
  }
}

// The fused plan by hand for BERT's layout, and what the kernel does not hold, refused in one line.
TEST(CudaAttention, TheFusedPlanReadsKeysThroughTheTransposeAndRefusesWhatItCannotHold) {
  // Q and K stored [2, 12, 2, 16] read as Q [2, 2, 12, 16] and K^T [2, 2, 16, 12]; V the same; Y written back
  // [2, 12, 2, 16]; a [2, 1, 1, 12] mask.
  const std::vector<int64_t> d{2, 12, 2, 16};
  exec::AttentionPattern p;
  p.scores = exec::product_layout(d, {0, 2, 1, 3}, d, {0, 2, 3, 1}, {2, 2, 12, 12}, {});
  p.context = exec::product_layout({2, 2, 12, 12}, {}, d, {0, 2, 1, 3}, d, {0, 2, 1, 3});
  p.alpha = 0.25;
  p.mask = exec::ScoreMask::kAdd;
  p.mask_dims = {2, 1, 1, 12};
  auto plan = cuda::fused_attention_plan(p);
  ASSERT_EQ(plan.batch_rank, 2);
  EXPECT_EQ(plan.rows, 12);
  EXPECT_EQ(plan.keys, 12);
  EXPECT_EQ(plan.depth, 16);
  EXPECT_EQ(plan.value_depth, 16);
  // Key j's element e of head h in batch b is stored at b * 384 + j * 32 + h * 16 + e.
  EXPECT_EQ(plan.row_stride[cuda::kAttnK], 32);
  EXPECT_EQ(plan.col_stride[cuda::kAttnK], 1);
  EXPECT_EQ(plan.batch_strides[cuda::kAttnK][0], 384);
  EXPECT_EQ(plan.batch_strides[cuda::kAttnK][1], 16);
  EXPECT_EQ(plan.row_stride[cuda::kAttnY], 32);
  EXPECT_EQ(plan.batch_strides[cuda::kAttnY][1], 16);
  // The mask: batch stride 12, none across heads and rows, one per key.
  EXPECT_EQ(plan.batch_strides[cuda::kAttnMask][0], 12);
  EXPECT_EQ(plan.batch_strides[cuda::kAttnMask][1], 0);
  EXPECT_EQ(plan.row_stride[cuda::kAttnMask], 0);
  EXPECT_EQ(plan.col_stride[cuda::kAttnMask], 1);
  EXPECT_EQ(plan.mask_keys, 12);
  EXPECT_EQ(plan.mask, cuda::AttentionMask::kAdd);
  EXPECT_FLOAT_EQ(plan.scale, 0.25f);

  auto refused = [](const exec::AttentionPattern& pattern, const std::string& words) {
    EXPECT_EQ(one_line_refusal([&] { cuda::fused_attention_plan(pattern); }, words), "");
  };
  exec::AttentionPattern deep;  // five batch dims
  const std::vector<int64_t> q5{2, 2, 2, 2, 2, 4, 8}, k5{2, 2, 2, 2, 2, 8, 4};
  deep.scores = exec::product_layout(q5, {}, k5, {}, {2, 2, 2, 2, 2, 4, 4}, {});
  deep.context = exec::product_layout({2, 2, 2, 2, 2, 4, 4}, {}, q5, {}, q5, {});
  refused(deep, "at most 4");
  exec::AttentionPattern wide;  // a head size of 256
  wide.scores = exec::product_layout({3, 256}, {}, {256, 5}, {}, {3, 5}, {});
  wide.context = exec::product_layout({3, 5}, {}, {5, 8}, {}, {3, 8}, {});
  refused(wide, "at most 128");
  exec::AttentionPattern broadcast;  // values of two items over one item's probabilities
  broadcast.scores = exec::product_layout({3, 4}, {}, {4, 5}, {}, {3, 5}, {});
  broadcast.context = exec::product_layout({3, 5}, {}, {2, 5, 8}, {}, {2, 3, 8}, {});
  refused(broadcast, "broadcast the probabilities");
}

TEST(CudaAttention, GroupedQueryHeadsReadTheirSharedHeadThroughAStrideOfZero) {
  AttentionCase c{"3-D grouped-query", {2, 4, 48}, {2, 6, 24}, {2, 6, 24}, 6, 3};
  auto model = prepared(c);
  auto p = cuda::onnx_attention_plan(model.graph.nodes.front(), c.q, c.k, c.v, std::nullopt, {2, 4, 48});
  // Batch dims [batch, key/value heads, query heads per key head]; head size 8.
  ASSERT_EQ(p.batch_rank, 3);
  EXPECT_EQ(p.batch[0], 2);
  EXPECT_EQ(p.batch[1], 3);
  EXPECT_EQ(p.batch[2], 2);
  // Q [2, 4, 6 x 8]: token stride 48, query head h = 2 hk + g at 8 h.
  EXPECT_EQ(p.batch_strides[cuda::kAttnQ][0], 4 * 48);
  EXPECT_EQ(p.batch_strides[cuda::kAttnQ][1], 16);
  EXPECT_EQ(p.batch_strides[cuda::kAttnQ][2], 8);
  EXPECT_EQ(p.row_stride[cuda::kAttnQ], 48);
  // K [2, 6, 3 x 8]: the two query heads of a group read one key head.
  EXPECT_EQ(p.batch_strides[cuda::kAttnK][0], 6 * 24);
  EXPECT_EQ(p.batch_strides[cuda::kAttnK][1], 8);
  EXPECT_EQ(p.batch_strides[cuda::kAttnK][2], 0);
  EXPECT_EQ(p.row_stride[cuda::kAttnK], 24);
  EXPECT_FLOAT_EQ(p.scale, 1.f / std::sqrt(8.f));
}

TEST(CudaAttention, WhatTheKernelDoesNotTakeIsRefusedInOneLine) {
  AttentionCase c{"4-D", {2, 3, 4, 8}, {2, 3, 6, 8}, {2, 3, 6, 8}};
  auto model = prepared(c);
  const auto& node = model.graph.nodes.front();
  auto refused = [](auto make, const std::string& words) { EXPECT_EQ(one_line_refusal(make, words), ""); };
  const std::vector<int64_t> y{2, 3, 4, 8};
  refused(
      [&] {
        cuda::onnx_attention_plan(node, {2, 3, 4, 256}, {2, 3, 6, 256}, {2, 3, 6, 8}, std::nullopt, y);
      },
      "at most 128");
  refused(
      [&] {
        cuda::onnx_attention_plan(node, {2, 4, 4, 8}, {2, 3, 6, 8}, {2, 3, 6, 8}, std::nullopt, y);
      },
      "do not share");
  refused([&] { cuda::onnx_attention_plan(node, c.q, {2, 3, 6, 4}, c.v, std::nullopt, y); }, "head size");
  refused(
      [&] {
        cuda::onnx_attention_plan(node, c.q, c.k, c.v, cuda::MaskInput{{2, 3, 4, 7}, false}, y);
      },
      "longer than the 6 keys");
  refused(
      [&] {
        cuda::onnx_attention_plan(node, c.q, c.k, c.v, cuda::MaskInput{{3, 3, 4, 6}, false}, y);
      },
      "does not broadcast");
  refused([&] { cuda::onnx_attention_plan(node, c.q, c.k, c.v, std::nullopt, {2, 3, 4, 9}); }, "where Attention makes");
  refused([&] { cuda::onnx_attention_plan(node, {2, 4, 24}, c.k, c.v, std::nullopt, y); }, "three 3-D or three 4-D");

  // A key/value cache, and the outputs beside Y.
  ModelBuilder b(23);
  b.input("q", {int64_t{1}, int64_t{1}, int64_t{2}, int64_t{4}})
      .input("k", {int64_t{1}, int64_t{1}, int64_t{2}, int64_t{4}})
      .input("v", {int64_t{1}, int64_t{1}, int64_t{2}, int64_t{4}})
      .input("pk", {int64_t{1}, int64_t{1}, int64_t{3}, int64_t{4}})
      .input("pv", {int64_t{1}, int64_t{1}, int64_t{3}, int64_t{4}})
      .output("y");
  b.node("Attention", {"q", "k", "v", "", "pk", "pv"}, {"y"}, "cached");
  analysis::Request request;
  request.model_path = b.save("attention_cache");
  auto cached = exec::prepare(request, "").analysis.model;
  refused([&] { cuda::check_attention_io(cached.graph.nodes.front()); }, "input 4 (past_key)");
  graph::Node qk = node;
  qk.outputs = {qk.outputs[0], graph::kNoValue, graph::kNoValue, qk.outputs[0]};
  refused([&] { cuda::check_attention_io(qk); }, "output 3 (qk_matmul_output)");
}

}  // namespace
}  // namespace ridge::test
