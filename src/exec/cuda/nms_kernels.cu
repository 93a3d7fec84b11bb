// NonMaxSuppression: CUB's segmented radix sort orders each (batch, class)'s scores; then a block per segment walks its
// candidates in that order, its threads testing the candidate against the kept boxes together (__syncthreads_or).
#include <cub/device/device_segmented_radix_sort.cuh>

#include "exec/cuda/grid.cuh"
#include "exec/cuda/nms_kernels.h"

namespace ridge::exec::cuda {

namespace {

constexpr int kNmsThreads = 128;

__global__ void nms_prepare_kernel(int32_t* indices, int32_t* offsets, int64_t segments, int64_t boxes) {
  RIDGE_GRID_LOOP(i, segments * boxes) { indices[i] = static_cast<int32_t>(i % boxes); }
  RIDGE_GRID_LOOP(s, segments + 1) { offsets[s] = static_cast<int32_t>(s * boxes); }
}

__global__ void nms_select_kernel(NmsPlan p, const float* boxes, const float* sorted_scores, const int32_t* order,
                                  int32_t* kept, int64_t cap, int64_t* counts) {
  const int64_t s = blockIdx.x;
  const int64_t batch = s / p.classes;
  const int32_t* ranked = order + s * p.boxes;
  const float* ranked_scores = sorted_scores + s * p.boxes;
  int32_t* mine = kept + s * cap;
  const float* batch_boxes = boxes + batch * p.boxes * 4;
  __shared__ int64_t count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  for (int64_t j = 0; j < p.boxes; ++j) {
    if (count >= cap || !nms_candidate(p, ranked_scores[j])) break;  // the same for every thread: uniform exit
    const NmsBox candidate = nms_box(batch_boxes + static_cast<int64_t>(ranked[j]) * 4, p.center);
    int suppressed = 0;
    for (int64_t k = threadIdx.x; k < count; k += blockDim.x)
      suppressed |=
          nms_iou(candidate, nms_box(batch_boxes + static_cast<int64_t>(mine[k]) * 4, p.center)) > p.iou_threshold;
    suppressed = __syncthreads_or(suppressed);
    if (!suppressed && threadIdx.x == 0) {
      mine[count] = ranked[j];
      count = count + 1;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) counts[s] = count;
}

__global__ void nms_write_kernel(NmsPlan p, const int32_t* kept, int64_t cap, const int64_t* counts,
                                 const int64_t* starts, int64_t* out) {
  RIDGE_GRID_LOOP(i, p.segments() * cap) {
    const int64_t s = i / cap, k = i % cap;
    if (k >= counts[s]) continue;
    int64_t* row = out + (starts[s] + k) * 3;
    row[0] = s / p.classes;
    row[1] = s % p.classes;
    row[2] = kept[i];
  }
}

}  // namespace

size_t nms_sort_temp_bytes(const NmsPlan& plan) {
  size_t bytes = 0;
  const auto items = static_cast<int>(plan.segments() * plan.boxes);
  cub::DeviceSegmentedRadixSort::SortPairsDescending(
      nullptr, bytes, static_cast<const float*>(nullptr), static_cast<float*>(nullptr),
      static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr), items, static_cast<int>(plan.segments()),
      static_cast<const int32_t*>(nullptr), static_cast<const int32_t*>(nullptr));
  return bytes;
}

cudaError_t nms_sort(const NmsPlan& plan, const float* scores, float* sorted_scores, int32_t* indices, int32_t* order,
                     int32_t* offsets, void* temp, size_t temp_bytes, cudaStream_t stream) {
  const int64_t segments = plan.segments();
  nms_prepare_kernel<<<blocks_for(segments * plan.boxes + 1), kThreads, 0, stream>>>(indices, offsets, segments,
                                                                                     plan.boxes);
  return cub::DeviceSegmentedRadixSort::SortPairsDescending(
      temp, temp_bytes, scores, sorted_scores, indices, order, static_cast<int>(segments * plan.boxes),
      static_cast<int>(segments), offsets, offsets + 1, 0, static_cast<int>(8 * sizeof(float)), stream);
}

void nms_select(const NmsPlan& plan, const float* boxes, const float* sorted_scores, const int32_t* order,
                int32_t* kept, int64_t cap, int64_t* counts, cudaStream_t stream) {
  if (plan.segments() == 0) return;
  nms_select_kernel<<<static_cast<unsigned>(plan.segments()), kNmsThreads, 0, stream>>>(plan, boxes, sorted_scores,
                                                                                        order, kept, cap, counts);
}

void nms_write(const NmsPlan& plan, const int32_t* kept, int64_t cap, const int64_t* counts, const int64_t* starts,
               int64_t* out, cudaStream_t stream) {
  const int64_t n = plan.segments() * cap;
  if (n > 0) nms_write_kernel<<<blocks_for(n), kThreads, 0, stream>>>(plan, kept, cap, counts, starts, out);
}

}  // namespace ridge::exec::cuda
