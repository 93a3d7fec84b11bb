// NonMaxSuppression on the GPU (nms_kernels.h): per (batch, class) the scores sorted by CUB, the greedy pass a block
// per segment, then the selected rows. How many boxes a segment keeps depends on the data: the counts are read back
// (one synchronization) to size the output, so a run with NonMaxSuppression cannot be a CUDA graph, and says so.
// RoiAlign (roi_align_plan.h): a thread per output element; batch indices outside X counted on the first run and
// refused by name (index_check.h), as the CPU executor refuses them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "exec/cuda/index_check.h"
#include "exec/cuda/nms_kernels.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/roi_align_kernels.h"
#include "exec/cuda/roi_align_plan.h"
#include "sys/cuda/check.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

// An optional scalar input (a constant, or read back), `fallback` where it is omitted or empty.
double optional_scalar(KernelContext& ctx, size_t i, double fallback) {
  if (!ctx.has(i) || ctx.in(i).numel() == 0) return fallback;
  auto v = ctx.host_reals(i);
  if (v.size() != 1) ctx.fail(fmt::format("input {} must be one value", i));
  return v[0];
}

void nms_op(KernelContext& ctx) {
  const auto& boxes = ctx.float_input(0);
  const auto& scores = ctx.float_input(1);
  if (boxes.dims.size() != 3 || boxes.dims[2] != 4 || scores.dims.size() != 3 || scores.dims[0] != boxes.dims[0] ||
      scores.dims[2] != boxes.dims[1])
    ctx.fail(fmt::format("boxes of dims {} and scores of dims {}: [B, N, 4] and [B, C, N] expected",
                         fmt::join(boxes.dims, "x"), fmt::join(scores.dims, "x")));
  NmsPlan plan;
  plan.batches = boxes.dims[0], plan.boxes = boxes.dims[1], plan.classes = scores.dims[1];
  plan.max_output = static_cast<int64_t>(optional_scalar(ctx, 2, 0));
  plan.iou_threshold = static_cast<float>(optional_scalar(ctx, 3, 0));
  plan.use_score = ctx.has(4) && ctx.in(4).numel() > 0;
  plan.score_threshold = static_cast<float>(optional_scalar(ctx, 4, 0));
  plan.center = ctx.node.get_int("center_point_box", 0) != 0;
  if (plan.segments() * plan.boxes >= (int64_t{1} << 31))
    ctx.fail("more than 2^31 scores: CUB's segmented sort counts them in int");
  const int64_t cap = std::min(std::max<int64_t>(plan.max_output, 0), plan.boxes);
  if (cap == 0 || plan.segments() == 0) {
    ctx.allocate_output(0, graph::DType::kInt64, {0, 3});
    return;
  }
  auto stream = ctx.gpu.stream();
  const int64_t items = plan.segments() * plan.boxes;
  auto sorted = ctx.scratch(graph::DType::kFloat32, {items});
  auto indices = ctx.scratch(graph::DType::kInt32, {items});
  auto order = ctx.scratch(graph::DType::kInt32, {items});
  auto offsets = ctx.scratch(graph::DType::kInt32, {plan.segments() + 1});
  const size_t bytes = nms_sort_temp_bytes(plan);
  auto temp = ctx.scratch(graph::DType::kUInt8, {static_cast<int64_t>(std::max<size_t>(bytes, 1))});
  check(nms_sort(plan, scores.as<float>(), sorted.as<float>(), indices.as<int32_t>(), order.as<int32_t>(),
                 offsets.as<int32_t>(), temp.data(), bytes, stream),
        "NonMaxSuppression's sort (CUB)");
  auto kept = ctx.scratch(graph::DType::kInt32, {plan.segments() * cap});
  auto counts = ctx.scratch(graph::DType::kInt64, {plan.segments()});
  nms_select(plan, boxes.as<float>(), sorted.as<float>(), order.as<int32_t>(), kept.as<int32_t>(), cap,
             counts.as<int64_t>(), stream);
  ctx.check_launch("NonMaxSuppression");
  // Each segment's count, read back, places its rows (batch, then class, each in score order).
  std::vector<int64_t> host_counts(static_cast<size_t>(plan.segments()));
  ctx.require_eager("NonMaxSuppression's output size depends on the data");
  ctx.copy_to_host(host_counts.data(), counts.data(), host_counts.size() * sizeof(int64_t));
  std::vector<int64_t> starts(host_counts.size());
  std::exclusive_scan(host_counts.begin(), host_counts.end(), starts.begin(), int64_t{0});
  const int64_t total = starts.back() + host_counts.back();
  auto& y = ctx.allocate_output(0, graph::DType::kInt64, {total, 3});
  if (total == 0) return;
  auto device_starts = ctx.scratch(graph::DType::kInt64, {plan.segments()});
  check(cudaMemcpyAsync(device_starts.data(), starts.data(), starts.size() * sizeof(int64_t), cudaMemcpyHostToDevice,
                        stream),
        "NonMaxSuppression's row offsets");
  nms_write(plan, kept.as<int32_t>(), cap, counts.as<int64_t>(), device_starts.as<int64_t>(), y.as<int64_t>(), stream);
  check(cudaStreamSynchronize(stream), "NonMaxSuppression");  // `starts` is the host's, read by the copy above
  ctx.check_launch("NonMaxSuppression");
}

// RoiAlign: fp32 X and regions, int64 batch indices.
void roi_align_op(KernelContext& ctx) {
  const auto& x = ctx.float_input(0);
  const auto& rois = ctx.float_input(1);
  const auto& batch = ctx.in(2);
  if (batch.dtype != graph::DType::kInt64) ctx.fail("batch_indices must be int64");
  auto plan = ctx.planned([&] { return roi_align_plan(ctx.node, ctx.opset, x.dims, rois.dims, batch.dims); });
  auto& y =
      ctx.allocate_output(0, graph::DType::kFloat32, {plan.regions, plan.channels, plan.out_height, plan.out_width});
  BadIndices bad(ctx);
  roi_align(plan, x.as<float>(), rois.as<float>(), batch.as<int64_t>(), y.as<float>(), bad.counter(), ctx.gpu.stream());
  ctx.check_launch("RoiAlign");
  bad.verify(fmt::format("[0, {}), X's images (batch_indices)", plan.images));
}

}  // namespace

void register_detection_kernels(KernelRegistry& r) {
  r.add("detection", {{"NonMaxSuppression", nms_op}, {"RoiAlign", roi_align_op}});
}

}  // namespace ridge::exec::cuda
