#include "exec/cuda/index_check.h"

#include <fmt/format.h>

#include "sys/cuda/check.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

struct CheckedState : NodeState {
  bool checked = false;
};

}  // namespace

GpuTensor int64_indices(KernelContext& ctx, size_t i) {
  auto t = ctx.in(i);
  if (t.dtype == graph::DType::kInt64) return t;
  if (t.dtype != graph::DType::kInt32) ctx.fail("indices must be int32 or int64");
  auto wide = ctx.scratch(graph::DType::kInt64, t.dims);
  cast(t.dtype, t.data(), wide.dtype, wide.data(), t.numel(), ctx.gpu.stream());
  return wide;
}

BadIndices::BadIndices(KernelContext& ctx) : BadIndices(ctx, ctx.cached<CheckedState>().checked) {}

BadIndices::BadIndices(KernelContext& ctx, bool& checked) : ctx_(ctx), checked_(checked) {
  if (checked_) return;
  counter_ = ctx.gpu.allocator().allocate(sizeof(int));
  check(cudaMemsetAsync(counter_.get(), 0, sizeof(int), ctx.gpu.stream()), "cudaMemsetAsync");
}

void BadIndices::verify(const std::string& range) {
  if (checked_) return;
  int count = 0;
  check(cudaMemcpyAsync(&count, counter_.get(), sizeof(int), cudaMemcpyDeviceToHost, ctx_.gpu.stream()),
        "cudaMemcpyAsync");
  check(cudaStreamSynchronize(ctx_.gpu.stream()), "cudaStreamSynchronize");
  if (count > 0) ctx_.fail(fmt::format("{} index(es) outside {}", count, range));
  checked_ = true;
}

}  // namespace ridge::exec::cuda
