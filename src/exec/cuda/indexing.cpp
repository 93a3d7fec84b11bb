// Index-driven ops: GatherElements, ScatterElements (and opset 9's Scatter), GatherND, ScatterND, CumSum and TopK, on
// index_kernels.h with their plans worked out on the host (index_plan.h). A scatter writes into a copy of its data.
// Indices out of range are counted on a node's first run (one synchronization) and refused by name, so a bad input
// is an error, not zeros; later runs of the same inputs skip the count, as Gather does.
#include <fmt/format.h>

#include <memory>

#include "exec/cuda/index_kernels.h"
#include "exec/cuda/index_plan.h"
#include "exec/cuda/op_kernel.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

int element_bytes(const GpuTensor& t) { return static_cast<int>(graph::dtype_bytes(t.dtype, 1)); }

// A plan's ridge::Error as the node's one-line failure.
template <class Make>
auto planned(KernelContext& ctx, Make make) {
  try {
    return make();
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
}

// Input i as int64 indices (int32 ones widened on the device).
GpuTensor int64_indices(KernelContext& ctx, size_t i) {
  auto t = ctx.in(i);
  if (t.dtype == graph::DType::kInt64) return t;
  if (t.dtype != graph::DType::kInt32) ctx.fail("indices must be int32 or int64");
  auto wide = ctx.scratch(graph::DType::kInt64, t.dims);
  cast(t.dtype, t.data(), wide.dtype, wide.data(), t.numel(), ctx.gpu.stream());
  return wide;
}

struct CheckedState : NodeState {
  bool checked = false;
};

// The count of indices out of range on the node's first run.
class BadIndices {
 public:
  explicit BadIndices(KernelContext& ctx) : ctx_(ctx), state_(ctx.cached<CheckedState>()) {
    if (state_.checked) return;
    counter_ = ctx.gpu.allocator().allocate(sizeof(int));
    check(cudaMemsetAsync(counter_.get(), 0, sizeof(int), ctx.gpu.stream()), "cudaMemsetAsync");
  }
  int* counter() const { return static_cast<int*>(counter_.get()); }
  // Fails naming the count and the range where the first run found any.
  void verify(const std::string& range) {
    if (state_.checked) return;
    int count = 0;
    check(cudaMemcpyAsync(&count, counter_.get(), sizeof(int), cudaMemcpyDeviceToHost, ctx_.gpu.stream()),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(ctx_.gpu.stream()), "cudaStreamSynchronize");
    if (count > 0) ctx_.fail(fmt::format("{} index(es) outside {}", count, range));
    state_.checked = true;
  }

 private:
  KernelContext& ctx_;
  CheckedState& state_;
  std::shared_ptr<void> counter_;
};

// The output as a copy of data, for a scatter to write into.
GpuTensor& scatter_target(KernelContext& ctx, const GpuTensor& data, const GpuTensor& updates, ScatterReduce reduce) {
  if (updates.dtype != data.dtype) ctx.fail("updates and data of different types");
  if (reduce != ScatterReduce::kNone && data.dtype != graph::DType::kFloat32 && data.dtype != graph::DType::kInt64)
    ctx.fail(fmt::format("reduction '{}' of {}: the GPU combines fp32 and int64", ctx.node.get_string("reduction", ""),
                         graph::dtype_name(data.dtype)));
  auto& y = ctx.allocate_output(0, data.dtype, data.dims);
  check(cudaMemcpyAsync(y.data(), data.data(), data.bytes(), cudaMemcpyDeviceToDevice, ctx.gpu.stream()),
        "copying the scattered data");
  return y;
}

ElementType element_type_or_fp32(graph::DType dtype) {
  ElementType type = ElementType::kFloat32;
  element_type(dtype, type);
  return type;
}

void gather_elements_op(KernelContext& ctx) {
  const auto& data = ctx.in(0);
  auto indices = int64_indices(ctx, 1);
  auto plan = planned(ctx, [&] { return elements_plan(data.dims, indices.dims, ctx.node.get_int("axis", 0)); });
  auto& y = ctx.allocate_output(0, data.dtype, indices.dims);
  BadIndices bad(ctx);
  gather_elements(plan, data.data(), indices.as<int64_t>(), y.data(), element_bytes(data), bad.counter(),
                  ctx.gpu.stream());
  ctx.check_launch("GatherElements");
  bad.verify(fmt::format("[-{}, {})", plan.axis_size, plan.axis_size));
}

void scatter_elements_op(KernelContext& ctx) {
  const auto& data = ctx.in(0);
  auto indices = int64_indices(ctx, 1);
  const auto& updates = ctx.in(2);
  if (updates.dims != indices.dims) ctx.fail("updates and indices of different shapes");
  auto reduce = planned(ctx, [&] { return scatter_reduce(ctx.node); });
  auto plan = planned(ctx, [&] { return elements_plan(data.dims, indices.dims, ctx.node.get_int("axis", 0)); });
  auto& y = scatter_target(ctx, data, updates, reduce);
  BadIndices bad(ctx);
  scatter_elements(plan, indices.as<int64_t>(), updates.data(), y.data(), element_bytes(data), reduce,
                   element_type_or_fp32(data.dtype), bad.counter(), ctx.gpu.stream());
  ctx.check_launch(ctx.node.op_type);
  bad.verify(fmt::format("[-{}, {})", plan.axis_size, plan.axis_size));
}

void gather_nd_op(KernelContext& ctx) {
  const auto& data = ctx.in(0);
  auto indices = int64_indices(ctx, 1);
  auto plan = planned(ctx, [&] { return nd_plan(data.dims, indices.dims, ctx.node.get_int("batch_dims", 0)); });
  auto& y = ctx.allocate_output(0);
  if (y.numel() != plan.rows * plan.slice)
    ctx.fail(fmt::format("the output has {} elements, the gather {}", y.numel(), plan.rows * plan.slice));
  BadIndices bad(ctx);
  gather_nd(plan, data.data(), indices.as<int64_t>(), y.data(), element_bytes(data), bad.counter(), ctx.gpu.stream());
  ctx.check_launch("GatherND");
  bad.verify("the data's dims");
}

void scatter_nd_op(KernelContext& ctx) {
  const auto& data = ctx.in(0);
  auto indices = int64_indices(ctx, 1);
  const auto& updates = ctx.in(2);
  auto reduce = planned(ctx, [&] { return scatter_reduce(ctx.node); });
  auto plan = planned(ctx, [&] { return nd_plan(data.dims, indices.dims, 0); });
  if (updates.numel() != plan.rows * plan.slice)
    ctx.fail(fmt::format("updates of {} elements for {} slices of {}", updates.numel(), plan.rows, plan.slice));
  auto& y = scatter_target(ctx, data, updates, reduce);
  BadIndices bad(ctx);
  scatter_nd(plan, indices.as<int64_t>(), updates.data(), y.data(), element_bytes(data), reduce,
             element_type_or_fp32(data.dtype), bad.counter(), ctx.gpu.stream());
  ctx.check_launch("ScatterND");
  bad.verify("the data's dims");
}

void cumsum_op(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  auto axis = ctx.host_ints(1);
  if (axis.size() != 1) ctx.fail("the axis must be one value");
  auto plan = planned(ctx, [&] { return cumsum_plan(ctx.node, x.dims, axis[0]); });
  auto& y = ctx.allocate_output(0, x.dtype, x.dims);
  ElementType type = ElementType::kBool;
  if (!element_type(x.dtype, type) || !cumsum(plan, x.data(), y.data(), type, ctx.gpu.stream()))
    ctx.fail(fmt::format("CumSum of {}: the GPU sums fp32, fp64, int32 and int64", graph::dtype_name(x.dtype)));
  ctx.check_launch("CumSum");
}

void topk_op(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  int64_t k = 0;
  if (ctx.opset >= 10) {
    auto ks = ctx.host_ints(1);
    if (ks.size() != 1) ctx.fail("k must be one value");
    k = ks[0];
  } else {
    k = ctx.node.get_int("k", 0);
  }
  auto plan = planned(ctx, [&] { return topk_plan(ctx.node, x.dims, k); });
  auto dims = x.dims;  // the input's, with k along the axis (topk_plan checked it)
  int64_t axis = ctx.node.get_int("axis", -1);
  if (axis < 0) axis += static_cast<int64_t>(dims.size());
  dims[static_cast<size_t>(axis)] = k;
  auto& values = ctx.allocate_output(0, x.dtype, dims);
  auto& indices = ctx.allocate_output(1, graph::DType::kInt64, dims);
  ElementType type = ElementType::kBool;
  if (!element_type(x.dtype, type) ||
      !topk(plan, x.data(), values.data(), indices.as<int64_t>(), type, ctx.gpu.stream()))
    ctx.fail(fmt::format("TopK of {}: the GPU ranks fp32 and int64", graph::dtype_name(x.dtype)));
  ctx.check_launch("TopK");
}

}  // namespace

void register_indexing_kernels(KernelRegistry& r) {
  r.add("manipulation", {{"GatherElements", gather_elements_op},
                         {"ScatterElements", scatter_elements_op},
                         {"Scatter", scatter_elements_op},
                         {"GatherND", gather_nd_op},
                         {"ScatterND", scatter_nd_op}});
  r.add("reduction", {{"CumSum", cumsum_op}, {"TopK", topk_op}});
}

}  // namespace ridge::exec::cuda
