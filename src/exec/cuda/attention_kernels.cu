// Attention in one kernel (attention_cell.h): the scores never reach device memory. Each block takes one batch item and
// a run of query rows; each row is a group of G threads (G x 16 >= the head sizes), each holding 16 of the row's query
// and output elements in registers. The block stages kAttentionTile keys and values at a time in shared memory (as
// fp32), every row scores them (a group's partial dot products summed by warp shuffles), raises its running maximum
// once per tile and folds the tile's weights into its sums. A thread reads its 16 elements of a shared row as four
// float4s: one shared load per four FMAs, where scalar loads would make shared-memory bandwidth, not the FMA units, the
// limit. Each chunk of 16 is followed by 4 floats of padding, which keeps the chunks 16-byte aligned and puts the
// chunks a quarter-warp reads at once (a float4 load is served a quarter-warp at a time) in distinct banks.
#include <cstdint>

#include "exec/cuda/attention_kernels.h"
#include "exec/cuda/convert.cuh"

namespace ridge::exec::cuda {

namespace {

constexpr int kChunk = 16;           // head elements per thread
constexpr int kStride = kChunk + 4;  // a chunk and its padding in a shared row, in floats
constexpr int kBlock = 128;          // threads per block
static_assert(kChunk % 4 == 0 && kStride % 4 == 0, "chunks are read as float4s");

// Head element d's place in a padded shared row.
__device__ __forceinline__ int padded(int d) { return (d / kChunk) * kStride + d % kChunk; }

template <class T, class M, int G>
__global__ void __launch_bounds__(kBlock)
    attention_kernel(AttentionPlan p, const T* q, const T* k, const T* v, const M* mask, T* y, int64_t row_blocks) {
  constexpr int kRows = kBlock / G;
  constexpr int kWidth = G * kStride;
  __shared__ __align__(16) float ks[kAttentionTile][kWidth];
  __shared__ __align__(16) float vs[kAttentionTile][kWidth];
  const int64_t item = blockIdx.x / row_blocks;
  const int64_t first = (blockIdx.x % row_blocks) * kRows;
  const int64_t i = first + threadIdx.x / G;
  const int g = static_cast<int>(threadIdx.x % G);
  const bool live = i < p.rows;
  const int64_t qb = attention_base(p, kAttnQ, item), kb = attention_base(p, kAttnK, item);
  const int64_t vb = attention_base(p, kAttnV, item), yb = attention_base(p, kAttnY, item);
  const int64_t mb = attention_base(p, kAttnMask, item);

  float qv[kChunk], acc[kChunk];
#pragma unroll
  for (int c = 0; c < kChunk; ++c) {
    const int64_t d = g * kChunk + c;
    qv[c] = live && d < p.depth ? to_float(q[qb + i * p.row_stride[kAttnQ] + d * p.col_stride[kAttnQ]]) : 0.f;
    acc[c] = 0.f;
  }
  SoftmaxRun run;
  // With a causal mask, keys past the block's last row's frontier take part in no row of the block.
  int64_t end = p.keys;
  if (p.causal) {
    const int64_t last = (first + kRows < p.rows ? first + kRows : p.rows) - 1;
    const int64_t frontier = last + p.causal_offset + 1;
    end = frontier < 0 ? 0 : (frontier < end ? frontier : end);
  }
  for (int64_t j0 = 0; j0 < end; j0 += kAttentionTile) {
    __syncthreads();
    for (int e = threadIdx.x; e < kAttentionTile * G * kChunk; e += kBlock) {
      const int jj = e / (G * kChunk), d = e % (G * kChunk);
      const int64_t j = j0 + jj;
      const bool key = j < p.keys;
      ks[jj][padded(d)] =
          key && d < p.depth ? to_float(k[kb + j * p.row_stride[kAttnK] + d * p.col_stride[kAttnK]]) : 0.f;
      vs[jj][padded(d)] =
          key && d < p.value_depth ? to_float(v[vb + j * p.row_stride[kAttnV] + d * p.col_stride[kAttnV]]) : 0.f;
    }
    __syncthreads();
    float s[kAttentionTile];
    float tile_max = -INFINITY;
#pragma unroll
    for (int jj = 0; jj < kAttentionTile; ++jj) {
      float dot = 0.f;
      const float4* kr = reinterpret_cast<const float4*>(&ks[jj][g * kStride]);
#pragma unroll
      for (int c = 0; c < kChunk / 4; ++c) {
        const float4 x = kr[c];
        dot = fmaf(qv[4 * c], x.x, dot);
        dot = fmaf(qv[4 * c + 1], x.y, dot);
        dot = fmaf(qv[4 * c + 2], x.z, dot);
        dot = fmaf(qv[4 * c + 3], x.w, dot);
      }
#pragma unroll
      for (int o = G / 2; o > 0; o /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, o);
      const int64_t j = j0 + jj;
      float m = 0.f;
      if (live && attention_reads_mask(p, i, j))
        m = to_float(mask[mb + i * p.row_stride[kAttnMask] + j * p.col_stride[kAttnMask]]);
      s[jj] = live ? attention_score(p, dot, i, j, m) : -INFINITY;
      tile_max = fmaxf(tile_max, s[jj]);
    }
    const float factor = softmax_raise(run, tile_max);
#pragma unroll
    for (int c = 0; c < kChunk; ++c) acc[c] *= factor;
#pragma unroll
    for (int jj = 0; jj < kAttentionTile; ++jj) {
      const float w = softmax_weight(run, s[jj]);
      run.sum += w;
      const float4* vr = reinterpret_cast<const float4*>(&vs[jj][g * kStride]);
#pragma unroll
      for (int c = 0; c < kChunk / 4; ++c) {
        const float4 x = vr[c];
        acc[4 * c] = fmaf(w, x.x, acc[4 * c]);
        acc[4 * c + 1] = fmaf(w, x.y, acc[4 * c + 1]);
        acc[4 * c + 2] = fmaf(w, x.z, acc[4 * c + 2]);
        acc[4 * c + 3] = fmaf(w, x.w, acc[4 * c + 3]);
      }
    }
  }
  if (!live) return;
#pragma unroll
  for (int c = 0; c < kChunk; ++c) {
    const int64_t d = g * kChunk + c;
    if (d < p.value_depth)
      y[yb + i * p.row_stride[kAttnY] + d * p.col_stride[kAttnY]] = from_float<T>(softmax_finish(run, acc[c]));
  }
}

template <class T, class M, int G>
bool launch(const AttentionPlan& p, const void* q, const void* k, const void* v, const void* mask, void* y,
            cudaStream_t stream) {
  constexpr int64_t kRows = kBlock / G;
  const int64_t row_blocks = (p.rows + kRows - 1) / kRows;
  const int64_t blocks = row_blocks * p.items();
  if (blocks < 1 || blocks > 0x7fffffff) return false;
  attention_kernel<T, M, G><<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(
      p, static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v), static_cast<const M*>(mask),
      static_cast<T*>(y), row_blocks);
  return true;
}

template <class T, class M>
bool launch_for_head(const AttentionPlan& p, const void* q, const void* k, const void* v, const void* mask, void* y,
                     cudaStream_t stream) {
  const int64_t head = p.depth > p.value_depth ? p.depth : p.value_depth;
  if (head <= 16) return launch<T, M, 1>(p, q, k, v, mask, y, stream);
  if (head <= 32) return launch<T, M, 2>(p, q, k, v, mask, y, stream);
  if (head <= 64) return launch<T, M, 4>(p, q, k, v, mask, y, stream);
  if (head <= 128) return launch<T, M, 8>(p, q, k, v, mask, y, stream);
  return false;
}

template <class T>
bool launch_typed(const AttentionPlan& p, const void* q, const void* k, const void* v, const void* mask, void* y,
                  cudaStream_t stream) {
  if (p.mask == AttentionMask::kKeep || p.mask == AttentionMask::kDrop)
    return launch_for_head<T, uint8_t>(p, q, k, v, mask, y, stream);
  return launch_for_head<T, T>(p, q, k, v, mask, y, stream);
}

}  // namespace

bool attention(const AttentionPlan& plan, const void* q, const void* k, const void* v, const void* mask, void* y,
               ElementType type, cudaStream_t stream) {
  static_assert(kAttentionMaxHead <= 8 * kChunk, "the widest thread group holds kAttentionMaxHead elements");
  if (type == ElementType::kFloat32) return launch_typed<float>(plan, q, k, v, mask, y, stream);
  if (type == ElementType::kFloat16) return launch_typed<__half>(plan, q, k, v, mask, y, stream);
  if (type == ElementType::kBFloat16) return launch_typed<__nv_bfloat16>(plan, q, k, v, mask, y, stream);
  return false;
}

}  // namespace ridge::exec::cuda
