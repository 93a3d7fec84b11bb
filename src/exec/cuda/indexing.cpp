// Index-driven ops: GatherElements, ScatterElements (and opset 9's Scatter), GatherND, ScatterND, CumSum, TopK, OneHot
// and Hardmax, and the selections whose sizes depend on the data (NonZero, Compress, Unique), on index_kernels.h with
// their plans worked out on the host (index_plan.h). A scatter writes into a copy of its data. Indices out of range are
// counted on a node's first run (one synchronization) and refused by name, so a bad input is an error, not zeros; later
// runs of the same inputs skip the count, as Gather does.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <utility>

#include "exec/cuda/index_check.h"
#include "exec/cuda/index_kernels.h"
#include "exec/cuda/index_plan.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/reduce_kernels.h"
#include "exec/cuda/reduce_plan.h"
#include "exec/cuda/select_kernels.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

int element_bytes(const GpuTensor& t) { return static_cast<int>(graph::dtype_bytes(t.dtype, 1)); }

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
  auto plan = ctx.planned([&] { return elements_plan(data.dims, indices.dims, ctx.node.get_int("axis", 0)); });
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
  auto reduce = ctx.planned([&] { return scatter_reduce(ctx.node); });
  auto plan = ctx.planned([&] { return elements_plan(data.dims, indices.dims, ctx.node.get_int("axis", 0)); });
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
  auto plan = ctx.planned([&] { return nd_plan(data.dims, indices.dims, ctx.node.get_int("batch_dims", 0)); });
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
  auto reduce = ctx.planned([&] { return scatter_reduce(ctx.node); });
  auto plan = ctx.planned([&] { return nd_plan(data.dims, indices.dims, 0); });
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
  auto plan = ctx.planned([&] { return cumsum_plan(ctx.node, x.dims, axis[0]); });
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
  auto plan = ctx.planned([&] { return topk_plan(ctx.node, x.dims, k); });
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

// OneHot's depth, of any numeric type (ONNX casts it to int64: truncated), a constant or read back.
int64_t one_hot_depth(KernelContext& ctx) {
  auto depth = ctx.host_reals(1);
  if (depth.size() != 1) ctx.fail("the depth must be one value");
  return static_cast<int64_t>(depth[0]);
}

// OneHot: the indices (any numeric type: cast to int64, truncating as ONNX casts) normalized on the device, then each
// output element off or on; values = [off, on] of the output's type.
void one_hot_op(KernelContext& ctx) {
  const auto& indices = ctx.in(0);
  const auto& values = ctx.in(2);
  if (values.numel() != 2) ctx.fail(fmt::format("values has {} elements: OneHot takes [off, on]", values.numel()));
  auto depth = one_hot_depth(ctx);
  auto plan = ctx.planned([&] { return one_hot_plan(ctx.node, indices.dims, depth); });
  auto selected = ctx.scratch(graph::DType::kInt64, indices.dims);
  if (indices.dtype == graph::DType::kInt64) {
    check(cudaMemcpyAsync(selected.data(), indices.data(), static_cast<size_t>(indices.bytes()),
                          cudaMemcpyDeviceToDevice, ctx.gpu.stream()),
          "copying OneHot's indices");
  } else if (!cast(indices.dtype, indices.data(), graph::DType::kInt64, selected.data(), indices.numel(),
                   ctx.gpu.stream())) {
    ctx.fail(fmt::format("indices of {}: no GPU cast to int64", graph::dtype_name(indices.dtype)));
  }
  normalize_one_hot(selected.as<int64_t>(), selected.numel(), depth, ctx.gpu.stream());
  // The output's dims from the depth this run has (shape inference knows them only where the depth is a constant).
  auto dims = indices.dims;
  auto axis = ctx.node.get_int("axis", -1);
  if (axis < 0) axis += static_cast<int64_t>(dims.size()) + 1;  // one_hot_plan checked the range
  dims.insert(dims.begin() + axis, depth);
  auto& y = ctx.allocate_output(0, values.dtype, dims);
  one_hot(plan, selected.as<int64_t>(), values.data(), y.data(), element_bytes(values), ctx.gpu.stream());
  ctx.check_launch("OneHot");
}

// Hardmax: ArgMax along the depth (the reduction kernel: the first of equal maxima, as ONNX takes), then 1 at that
// index and 0 elsewhere.
void hardmax_op(KernelContext& ctx) {
  const auto& x = ctx.float_input(0);
  auto plan = ctx.planned([&] { return hardmax_plan(ctx.node, x.dims, ctx.opset); });
  auto& y = ctx.allocate_output(0, graph::DType::kFloat32, x.dims);
  if (y.numel() == 0) return;
  auto walk = reduce_plan({plan.outer, plan.depth, plan.inner}, {1});
  auto selected = ctx.scratch(graph::DType::kInt64, {plan.outer * plan.inner});
  reduce(walk, ReduceOp::kArgMax, x.as<float>(), nullptr, selected.as<int64_t>(), ctx.gpu.stream());
  auto values = ctx.scratch(graph::DType::kFloat32, {2});
  fill(values.as<float>(), 1, 0.f, ctx.gpu.stream());
  fill(values.as<float>() + 1, 1, 1.f, ctx.gpu.stream());
  one_hot(plan, selected.as<int64_t>(), values.data(), y.data(), 4, ctx.gpu.stream());
  ctx.check_launch("Hardmax");
}

// ReverseSequence: a thread per element reads its mirrored one; lengths outside [0, time] are refused by name on the
// first run.
void reverse_sequence_op(KernelContext& ctx) {
  const auto& data = ctx.in(0);
  auto lens = int64_indices(ctx, 1);
  auto plan = ctx.planned([&] { return reverse_sequence_plan(ctx.node, data.dims, lens.dims); });
  auto& y = ctx.allocate_output(0, data.dtype, data.dims);
  BadIndices bad(ctx);
  reverse_sequence(plan, data.data(), lens.as<int64_t>(), y.data(), element_bytes(data), bad.counter(),
                   ctx.gpu.stream());
  ctx.check_launch("ReverseSequence");
  bad.verify(fmt::format("[0, {}] (sequence lengths)", plan.time));
}

// The positions of the nonzero `flags` among the first n, in order (CUB), and their count read back: the output's size
// depends on the data, so a run with it cannot be a CUDA graph.
std::pair<GpuTensor, int64_t> selected(KernelContext& ctx, const GpuTensor& flags, int64_t n) {
  auto indices = ctx.scratch(graph::DType::kInt64, {std::max<int64_t>(n, 1)});
  auto count = ctx.scratch(graph::DType::kInt64, {1});
  const size_t bytes = select_temp_bytes(n);
  auto temp = ctx.scratch(graph::DType::kUInt8, {static_cast<int64_t>(std::max<size_t>(bytes, 1))});
  check(select_flagged(static_cast<const uint8_t*>(flags.data()), n, indices.as<int64_t>(), count.as<int64_t>(),
                       temp.data(), bytes, ctx.gpu.stream()),
        "selecting (CUB)");
  ctx.check_launch("selecting");
  return {indices, ctx.read_back(count, ctx.node.op_type + "'s output size")};
}

// NonZero: [rank, count] coordinates of the nonzero elements in row-major order (floats compared as numbers).
void nonzero_op(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  if (x.dims.empty()) ctx.fail("NonZero of a scalar: the GPU takes rank 1 or more");
  ElementType known{};
  if (graph::is_floating(x.dtype) && !element_type(x.dtype, known))  // float8 and float4: not read as fp32
    ctx.fail(fmt::format("NonZero of {}: the GPU compares fp32, fp64, fp16 and bf16", graph::dtype_name(x.dtype)));
  auto flags = ctx.scratch(graph::DType::kUInt8, x.dims);
  nonzero_flags(x.data(), element_type_or_fp32(x.dtype), graph::is_floating(x.dtype), element_bytes(x), x.numel(),
                static_cast<uint8_t*>(flags.data()), ctx.gpu.stream());
  auto [indices, count] = selected(ctx, flags, x.numel());
  auto& y = ctx.allocate_output(0, graph::DType::kInt64, {static_cast<int64_t>(x.dims.size()), count});
  unravel(indices.as<int64_t>(), count, dense_layout(x.dims), y.as<int64_t>(), ctx.gpu.stream());
  ctx.check_launch("NonZero");
}

// Compress: the slices along `axis` (the flattened input without one) whose condition is true, the condition's first
// min(its length, the axis's) elements counting.
void compress_op(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  const auto& condition = ctx.in(1);
  if (condition.dtype != graph::DType::kBool || condition.dims.size() != 1)
    ctx.fail("the condition must be a 1-D bool tensor");
  auto plan = ctx.planned([&] { return compress_plan(ctx.node, x.dims, condition.numel()); });
  auto [indices, count] = selected(ctx, condition, plan.flags);
  std::vector<int64_t> dims{count};
  if (plan.axis >= 0) {
    dims = x.dims;
    dims[static_cast<size_t>(plan.axis)] = count;
  }
  auto& y = ctx.allocate_output(0, x.dtype, dims);
  if (y.numel() == 0) return;
  gather(x.data(), plan.outer, plan.length, plan.inner, indices.as<int64_t>(), count, y.data(), element_bytes(x),
         nullptr, ctx.gpu.stream());
  ctx.check_launch("Compress");
}

// Unique without an axis (unique_cell.h): the distinct values, sorted or in the order they first appear, each one's
// first position, every element's index among them, and their counts. How many there are depends on the data: read back
// once, so a run with Unique cannot be a CUDA graph.
void unique_op(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  if (ctx.node.has("axis"))
    ctx.fail("Unique along an axis (distinct slices) runs on the CPU only; without one the GPU runs it");
  ElementType type{};
  if (!element_type(x.dtype, type) || !unique_takes(type))
    ctx.fail(fmt::format("Unique of {}: the GPU sorts fp32, fp64, int32 and int64", graph::dtype_name(x.dtype)));
  const bool sorted_output = ctx.node.get_int("sorted", 1) != 0;
  const int64_t n = x.numel();
  const auto stream = ctx.gpu.stream();
  if (n == 0) {
    ctx.allocate_output(0, x.dtype, {0});
    for (size_t i = 1; i < 4; ++i)
      if (ctx.wants_output(i)) ctx.allocate_output(i, graph::DType::kInt64, {0});
    return;
  }
  auto keys = ctx.scratch(x.dtype, {n});
  auto sorted = ctx.scratch(x.dtype, {n});
  auto positions = ctx.scratch(graph::DType::kInt64, {n});
  auto run_end = ctx.scratch(graph::DType::kInt64, {n});
  auto work = ctx.scratch(graph::DType::kInt64, {n});
  const size_t bytes = unique_temp_bytes(type, n);
  auto temp = ctx.scratch(graph::DType::kUInt8, {static_cast<int64_t>(std::max<size_t>(bytes, 1))});
  check(unique_runs(type, x.data(), n, keys.data(), sorted.data(), positions.as<int64_t>(), run_end.as<int64_t>(),
                    work.as<int64_t>(), temp.data(), bytes, stream),
        "Unique's sort (CUB)");
  ctx.check_launch("Unique");
  auto last = run_end;
  last.offset_bytes += static_cast<size_t>(n - 1) * sizeof(int64_t);
  last.dims = {1};
  const int64_t runs = ctx.read_back(last, "Unique's output size");
  // Outputs the node does not name are scratch: the scatter and the reorder write all four.
  auto output = [&](size_t i, graph::DType dtype, int64_t size) {
    return ctx.wants_output(i) ? ctx.allocate_output(i, dtype, {size}) : ctx.scratch(dtype, {size});
  };
  auto y = output(0, x.dtype, runs), y_first = output(1, graph::DType::kInt64, runs),
       y_inverse = output(2, graph::DType::kInt64, n), y_counts = output(3, graph::DType::kInt64, runs);
  auto start = ctx.scratch(graph::DType::kInt64, {runs});
  if (sorted_output) {
    unique_scatter(type, x.data(), positions.as<int64_t>(), run_end.as<int64_t>(), n, runs, y.data(),
                   y_first.as<int64_t>(), start.as<int64_t>(), y_counts.as<int64_t>(), y_inverse.as<int64_t>(), stream);
    ctx.check_launch("Unique");
    return;
  }
  auto values = ctx.scratch(x.dtype, {runs});
  auto first = ctx.scratch(graph::DType::kInt64, {runs});
  auto counts = ctx.scratch(graph::DType::kInt64, {runs});
  auto inverse = ctx.scratch(graph::DType::kInt64, {n});
  unique_scatter(type, x.data(), positions.as<int64_t>(), run_end.as<int64_t>(), n, runs, values.data(),
                 first.as<int64_t>(), start.as<int64_t>(), counts.as<int64_t>(), inverse.as<int64_t>(), stream);
  auto order = ctx.scratch(graph::DType::kInt64, {runs});
  auto rank = ctx.scratch(graph::DType::kInt64, {runs});
  check(unique_first_order(type, first.as<int64_t>(), values.data(), counts.as<int64_t>(), inverse.as<int64_t>(), runs,
                           n, y_first.as<int64_t>(), order.as<int64_t>(), rank.as<int64_t>(), y.data(),
                           y_counts.as<int64_t>(), y_inverse.as<int64_t>(), temp.data(), bytes, stream),
        "Unique's order (CUB)");
  ctx.check_launch("Unique");
}

}  // namespace

void register_indexing_kernels(KernelRegistry& r) {
  r.add("manipulation", {{"GatherElements", gather_elements_op},
                         {"ScatterElements", scatter_elements_op},
                         {"Scatter", scatter_elements_op},
                         {"GatherND", gather_nd_op},
                         {"ScatterND", scatter_nd_op},
                         {"OneHot", one_hot_op},
                         {"ReverseSequence", reverse_sequence_op},
                         {"NonZero", nonzero_op},
                         {"Compress", compress_op},
                         {"Unique", unique_op}});
  r.add("reduction", {{"CumSum", cumsum_op}, {"TopK", topk_op}, {"Hardmax", hardmax_op}});
}

}  // namespace ridge::exec::cuda
