// Shape manipulation: views (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout at inference;
// Dropout in training draws its mask), the views' and Dropout's backward,
// copies through strides (Transpose, Slice, Expand), Concat and Split as 2-D memcpys, Gather and
// constant Pad on kernels.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string>

#include "exec/cuda/backward.h"
#include "exec/cuda/movement_plan.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/training_kernels.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

int element_bytes(const GpuTensor& t) { return static_cast<int>(graph::dtype_bytes(t.dtype, 1)); }

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= dims[i];
  return n;
}

size_t axis_of(KernelContext& ctx, int64_t axis, size_t rank) {
  if (axis < 0) axis += static_cast<int64_t>(rank);
  if (axis < 0 || axis >= static_cast<int64_t>(rank)) ctx.fail(fmt::format("axis {} is out of range", axis));
  return static_cast<size_t>(axis);
}

void view(KernelContext& ctx) { ctx.alias_output(0, ctx.in(0)); }

// A scalar of a constant input (Dropout's ratio and training_mode), else `fallback`.
double constant_scalar(KernelContext& ctx, size_t i, double fallback) {
  if (!ctx.has(i)) return fallback;
  const auto* c = ctx.graph.value(ctx.node.input(i)).constant.get();
  if (!c || c->size() != 1) ctx.fail(fmt::format("input {} must be a constant scalar", i));
  return c->as_real(0);
}

struct DropoutState : NodeState {
  GpuTensor keep;  // the last training run's mask, for the backward
  float ratio = 0;
  std::shared_ptr<void> runs;  // a uint64 on the device: the runs drawn so far (training_kernels.h)
};

// Inference (or a ratio of 0): identity, with an all-true mask when asked. Training (opset 12's training_mode
// input true): each element kept with probability 1 - ratio and scaled by 1 / (1 - ratio), as ONNX and PyTorch
// define it; the draws differ per run and per node, from the run's seed.
void dropout(KernelContext& ctx) {
  bool training = ctx.opset >= 12 && constant_scalar(ctx, 2, 0) != 0;
  double ratio = ctx.opset >= 12 ? constant_scalar(ctx, 1, 0.5) : ctx.node.get_float("ratio", 0.5);
  if (training && (ratio < 0 || ratio >= 1)) ctx.fail(fmt::format("ratio {} is outside [0, 1)", ratio));
  auto& s = ctx.cached<DropoutState>();
  const auto& x = ctx.in(0);
  if (!training || ratio == 0) {
    s.ratio = 0;
    view(ctx);
    if (ctx.wants_output(1)) {
      auto& mask = ctx.allocate_output(1, graph::DType::kBool, x.dims);
      check(cudaMemsetAsync(mask.data(), 1, mask.bytes(), ctx.gpu.stream()), "an all-true Dropout mask");
    }
    return;
  }
  if (x.dtype != graph::DType::kFloat32) ctx.fail("a training Dropout on the GPU takes fp32");
  s.ratio = static_cast<float>(ratio);
  auto& y = ctx.allocate_output(0, x.dtype, x.dims);
  s.keep = ctx.wants_output(1) ? ctx.allocate_output(1, graph::DType::kBool, x.dims)
                               : ctx.scratch(graph::DType::kBool, x.dims);
  uint64_t seed =
      static_cast<uint64_t>(ctx.options.seed) * 0x9E3779B97F4A7C15ull ^ std::hash<std::string>{}(ctx.node.name);
  dropout_forward(x.as<float>(), y.as<float>(), s.keep.as<bool>(), x.numel(), s.ratio, seed, ctx.run_counter(s.runs),
                  ctx.gpu.stream());
  ctx.check_launch("Dropout");
}

// Views pass the gradient through with the input's dims.
void view_backward(BackwardContext& b) {
  if (b.wants(0)) b.set_grad(0, b.dy());
}

void dropout_backward_op(BackwardContext& b) {
  if (!b.wants(0)) return;
  auto& s = b.forward_state<DropoutState>();
  if (s.ratio == 0) return b.set_grad(0, b.dy());
  auto& dx = b.grad(0);
  dropout_backward(s.keep.as<bool>(), b.dy().as<float>(), dx.as<float>(), dx.numel(), 1.f / (1.f - s.ratio),
                   b.forward.gpu.stream());
  b.forward.check_launch("Dropout backward");
}

void transpose(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  size_t rank = x.dims.size();
  std::vector<int64_t> perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(rank - 1 - i);
  perm = ctx.node.get_ints("perm", perm);
  if (perm.size() != rank) ctx.fail("perm does not match the input's rank");
  auto dense = dense_layout(x.dims);
  auto& y = ctx.allocate_output(0);
  Layout in;
  in.rank = static_cast<int>(rank);
  for (size_t i = 0; i < rank; ++i) {
    auto from = axis_of(ctx, perm[i], rank);
    in.dims[i] = x.dims[from];
    in.strides[i] = dense.strides[from];
  }
  strided_copy(x.data(), in, 0, y.data(), y.numel(), element_bytes(x), ctx.gpu.stream());
  ctx.check_launch("Transpose");
}

void expand(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  auto& y = ctx.allocate_output(0);
  strided_copy(x.data(), broadcast_layout(x.dims, y.dims), 0, y.data(), y.numel(), element_bytes(x), ctx.gpu.stream());
  ctx.check_launch("Expand");
}

// ONNX Slice: starts/ends/axes/steps as constant inputs (opset 10+) or attributes, clamped per axis.
// Slice's window over an input of `dims`: per axis the first element taken and the step (0 and 1 where not sliced).
struct SliceWindow {
  std::vector<int64_t> start, step;
};

SliceWindow slice_window(KernelContext& ctx, const std::vector<int64_t>& dims) {
  size_t rank = dims.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset >= 10) {
    starts = ctx.constant_ints(1);
    ends = ctx.constant_ints(2);
    if (ctx.has(3)) axes = ctx.constant_ints(3);
    if (ctx.has(4)) steps = ctx.constant_ints(4);
  } else {
    starts = ctx.node.get_ints("starts");
    ends = ctx.node.get_ints("ends");
    axes = ctx.node.get_ints("axes");
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    ctx.fail("starts, ends, axes and steps differ in length");
  SliceWindow w{std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 1)};
  for (size_t i = 0; i < starts.size(); ++i) {
    auto d = axis_of(ctx, axes[i], rank);
    int64_t size = dims[d], step = steps[i], start = starts[i];
    if (step == 0) ctx.fail("a step of 0");
    if (start < 0) start += size;
    w.start[d] =
        step > 0 ? std::clamp<int64_t>(start, 0, size) : std::clamp<int64_t>(start, 0, std::max<int64_t>(size - 1, 0));
    w.step[d] = step;
  }
  return w;
}

void slice(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  size_t rank = x.dims.size();
  auto window = slice_window(ctx, x.dims);
  auto dense = dense_layout(x.dims);
  auto& y = ctx.allocate_output(0);
  Layout in;
  in.rank = static_cast<int>(rank);
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) {
    in.dims[d] = y.dims[d];
    in.strides[d] = dense.strides[d] * window.step[d];
    base += window.start[d] * dense.strides[d];
  }
  strided_copy(x.data(), in, base, y.data(), y.numel(), element_bytes(x), ctx.gpu.stream());
  ctx.check_launch("Slice");
}

// Copies `part` into `whole` at `offset` along an axis: `outer` rows of its inner bytes.
void copy_rows(KernelContext& ctx, void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t width,
               int64_t outer, cudaMemcpyKind kind = cudaMemcpyDeviceToDevice) {
  if (width == 0 || outer == 0) return;
  check(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, static_cast<size_t>(outer), kind, ctx.gpu.stream()),
        "cudaMemcpy2DAsync");
}

constexpr size_t kNhwcAxis[] = {0, 3, 1, 2};  // where each NCHW axis lies in NHWC's memory order

void concat(KernelContext& ctx) {
  auto& y = ctx.allocate_output(0);
  auto axis = axis_of(ctx, ctx.node.get_int("axis", 0), y.dims.size());
  auto es = static_cast<size_t>(graph::dtype_bytes(y.dtype, 1));
  // Channels-last: the same row copies over NHWC's memory order, along the axis where it lies there.
  auto held = [&](const std::vector<int64_t>& dims) { return y.channels_last ? nhwc_dims(dims) : dims; };
  if (y.channels_last) axis = kNhwcAxis[axis];
  auto y_dims = held(y.dims);
  int64_t outer = product(y_dims, 0, axis);
  size_t out_row = static_cast<size_t>(product(y_dims, axis, y_dims.size())) * es, offset = 0;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    const auto& x = ctx.in(i);
    if (x.dtype != y.dtype) ctx.fail("inputs of different types");
    if (y.channels_last != x.channels_last && layout_differs(x.dims)) ctx.fail("inputs of different layouts");
    auto x_dims = held(x.dims);
    size_t row = static_cast<size_t>(product(x_dims, axis, x_dims.size())) * es;
    copy_rows(ctx, static_cast<char*>(y.data()) + offset, out_row, x.data(), row, row, outer);
    offset += row;
  }
}

void split(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  auto axis = axis_of(ctx, ctx.node.get_int("axis", 0), x.dims.size());
  auto es = static_cast<size_t>(element_bytes(x));
  int64_t outer = product(x.dims, 0, axis);
  size_t in_row = static_cast<size_t>(product(x.dims, axis, x.dims.size())) * es, offset = 0;
  for (size_t i = 0; i < ctx.node.outputs.size(); ++i) {
    if (!ctx.wants_output(i)) ctx.fail("an omitted Split output");
    auto& y = ctx.allocate_output(i);
    size_t row = static_cast<size_t>(product(y.dims, axis, y.dims.size())) * es;
    copy_rows(ctx, y.data(), row, static_cast<const char*>(x.data()) + offset, in_row, row, outer);
    offset += row;
  }
}

struct GatherState : NodeState {
  bool checked = false;
};

void gather_op(KernelContext& ctx) {
  const auto& data = ctx.in(0);
  auto indices = ctx.in(1);
  auto axis = axis_of(ctx, ctx.node.get_int("axis", 0), data.dims.size());
  if (indices.dtype == graph::DType::kInt32) {
    auto wide = ctx.scratch(graph::DType::kInt64, indices.dims);
    cast(indices.dtype, indices.data(), wide.dtype, wide.data(), indices.numel(), ctx.gpu.stream());
    indices = wide;
  } else if (indices.dtype != graph::DType::kInt64) {
    ctx.fail("indices must be int32 or int64");
  }
  auto& y = ctx.allocate_output(0);
  auto& s = ctx.cached<GatherState>();
  // Out-of-range indices are counted on the first run (one synchronization), so a bad input is an
  // error, not zeros; later runs of the same inputs skip the count.
  std::shared_ptr<void> bad;
  if (!s.checked) {
    bad = ctx.gpu.allocator().allocate(sizeof(int));
    check(cudaMemsetAsync(bad.get(), 0, sizeof(int), ctx.gpu.stream()), "cudaMemsetAsync");
  }
  gather(data.data(), product(data.dims, 0, axis), data.dims[axis], product(data.dims, axis + 1, data.dims.size()),
         indices.as<int64_t>(), indices.numel(), y.data(), element_bytes(data), static_cast<int*>(bad.get()),
         ctx.gpu.stream());
  ctx.check_launch("Gather");
  if (!s.checked) {
    int count = 0;
    check(cudaMemcpyAsync(&count, bad.get(), sizeof(int), cudaMemcpyDeviceToHost, ctx.gpu.stream()), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(ctx.gpu.stream()), "cudaStreamSynchronize");
    if (count > 0) ctx.fail(fmt::format("{} index(es) outside [-{}, {})", count, data.dims[axis], data.dims[axis]));
    s.checked = true;
  }
}

// Where a constant Pad puts its input, per dim of `rank`: the pads' starts, over the axes they name (all by default).
std::vector<int64_t> pad_begin(KernelContext& ctx, size_t rank) {
  if (ctx.node.get_string("mode", "constant") != "constant") ctx.fail("only constant padding runs on the GPU");
  std::vector<int64_t> pads = ctx.opset >= 11 ? ctx.constant_ints(1) : ctx.node.get_ints("pads");
  std::vector<int64_t> axes;
  if (ctx.opset >= 18 && ctx.has(3))
    for (auto a : ctx.constant_ints(3)) axes.push_back(static_cast<int64_t>(axis_of(ctx, a, rank)));
  else
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
  if (pads.size() != 2 * axes.size()) ctx.fail("pads do not match the axes");
  std::vector<int64_t> begin(rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) begin[static_cast<size_t>(axes[i])] = pads[i];
  return begin;
}

void pad(KernelContext& ctx) {
  const auto& x = ctx.activation(0);
  auto begin = pad_begin(ctx, x.dims.size());
  float value = 0.f;
  if (ctx.opset >= 11 && ctx.has(2)) {
    const auto* c = ctx.graph.value(ctx.node.input(2)).constant.get();
    if (!c || c->size() != 1) ctx.fail("constant_value must be a constant scalar");
    value = static_cast<float>(c->as_real(0));
  } else if (ctx.opset < 11) {
    value = static_cast<float>(ctx.node.get_float("value", 0.0));
  }
  auto& y = ctx.allocate_output(0);
  pad_held(x, begin, y.data(), y.dims, value, x.channels_last || y.channels_last, ctx.gpu.stream());
  ctx.check_launch("Pad");
}

void trilu_op(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  if (x.dims.size() < 2) ctx.fail("Trilu takes a tensor of rank 2 or more");
  int64_t k = ctx.has(1) ? ctx.constant_ints(1).at(0) : 0;
  int64_t rows = x.dims[x.dims.size() - 2], cols = x.dims.back();
  auto& y = ctx.allocate_output(0, x.dtype, x.dims);
  trilu(x.data(), y.data(), x.numel() / std::max<int64_t>(rows * cols, 1), rows, cols, k,
        ctx.node.get_int("upper", 1) != 0, element_bytes(x), ctx.gpu.stream());
  ctx.check_launch("Trilu");
}

// The gradient transposed back: output axis i came from input axis perm[i].
void transpose_backward(BackwardContext& b) {
  if (!b.wants(0)) return;
  auto& ctx = b.forward;
  const auto& x = ctx.in(0);
  size_t rank = x.dims.size();
  std::vector<int64_t> perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(rank - 1 - i);
  perm = ctx.node.get_ints("perm", perm);
  const auto& dy = b.dy();
  auto dy_dense = dense_layout(dy.dims);
  Layout in;
  in.rank = static_cast<int>(rank);
  for (size_t i = 0; i < rank; ++i) {
    auto to = axis_of(ctx, perm[i], rank);  // dY's axis i is x's axis `to`
    in.dims[to] = x.dims[to];
    in.strides[to] = dy_dense.strides[i];
  }
  auto& dx = b.grad(0);
  strided_copy(dy.data(), in, 0, dx.data(), dx.numel(), 4, ctx.gpu.stream());
  ctx.check_launch("Transpose backward");
}

// The gathered rows' gradients added back into a zeroed table (an embedding's gradient).
void gather_backward(BackwardContext& b) {
  if (!b.wants(0)) return;
  auto& ctx = b.forward;
  const auto& data = ctx.in(0);
  auto indices = ctx.in(1);
  if (indices.dtype == graph::DType::kInt32) {
    auto wide = ctx.scratch(graph::DType::kInt64, indices.dims);
    cast(indices.dtype, indices.data(), wide.dtype, wide.data(), indices.numel(), ctx.gpu.stream());
    indices = wide;
  }
  auto axis = axis_of(ctx, ctx.node.get_int("axis", 0), data.dims.size());
  auto& dx = b.grad(0);
  check(cudaMemsetAsync(dx.data(), 0, dx.bytes(), ctx.gpu.stream()), "zeroing Gather's gradient");
  scatter_add(b.dy().as<float>(), product(data.dims, 0, axis), data.dims[axis],
              product(data.dims, axis + 1, data.dims.size()), indices.as<int64_t>(), indices.numel(), dx.as<float>(),
              ctx.gpu.stream());
  ctx.check_launch("Gather backward");
}

}  // namespace

// The slice's gradient in a zeroed input: dY padded by the window's start (a slice of step 1 is a crop; its
// backward pads).
void slice_backward(BackwardContext& b) {
  if (!b.wants(0)) return;
  auto& ctx = b.forward;
  const auto& x = ctx.in(0);
  auto window = slice_window(ctx, x.dims);
  for (auto step : window.step)
    if (step != 1) ctx.fail("the GPU training step differentiates Slice with steps of 1 only");
  const auto& dy = b.dy();
  auto& dx = b.grad(0);
  pad_constant(dy.as<float>(), dense_layout(dy.dims), window.start.data(), dx.as<float>(), dense_layout(x.dims), 0.f,
               ctx.gpu.stream());
  ctx.check_launch("Slice backward");
}

// Each input's gradient is its rows of dY along the axis.
void concat_backward(BackwardContext& b) {
  auto& ctx = b.forward;
  const auto& dy = b.dy();
  auto axis = axis_of(ctx, ctx.node.get_int("axis", 0), dy.dims.size());
  // Channels-last: the forward's row copies over NHWC's memory order, back (concat above).
  auto held = [&](const std::vector<int64_t>& dims) { return dy.channels_last ? nhwc_dims(dims) : dims; };
  if (dy.channels_last) axis = kNhwcAxis[axis];
  auto dy_dims = held(dy.dims);
  int64_t outer = product(dy_dims, 0, axis);
  constexpr size_t kFloat = sizeof(float);
  size_t out_row = static_cast<size_t>(product(dy_dims, axis, dy_dims.size())) * kFloat, offset = 0;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    const auto& x = ctx.in(i);
    auto x_dims = held(x.dims);
    size_t row = static_cast<size_t>(product(x_dims, axis, x_dims.size())) * kFloat;
    if (b.wants(i)) {
      auto& dx = b.grad(i);
      if (dx.channels_last != dy.channels_last && layout_differs(x.dims)) ctx.fail("inputs of different layouts");
      copy_rows(ctx, dx.data(), row, static_cast<const char*>(dy.data()) + offset, out_row, row, outer);
    }
    offset += row;
  }
}

// Expand's gradient: dY summed over the dims the input was broadcast along.
void expand_backward(BackwardContext& b) {
  if (b.wants(0)) b.set_reduced_grad(0, b.dy());
}

// Split's gradient: each output's gradient in its rows of the input's along the axis; zeros where none reached an
// output (a part the model does not use).
void split_backward(BackwardContext& b) {
  if (!b.wants(0)) return;
  auto& ctx = b.forward;
  const auto& x = ctx.in(0);
  auto axis = axis_of(ctx, ctx.node.get_int("axis", 0), x.dims.size());
  auto& dx = b.grad(0);
  bool all = true;
  for (size_t i = 0; i < ctx.outputs.size(); ++i) all = all && (!ctx.wants_output(i) || b.output_grads[i].defined());
  if (!all) check(cudaMemsetAsync(dx.data(), 0, dx.bytes(), ctx.gpu.stream()), "zeroing Split's gradient");
  int64_t outer = product(x.dims, 0, axis);
  constexpr size_t kFloat = sizeof(float);
  size_t in_row = static_cast<size_t>(product(x.dims, axis, x.dims.size())) * kFloat, offset = 0;
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    if (!ctx.wants_output(i)) continue;
    const auto& y = ctx.outputs[i];
    size_t row = static_cast<size_t>(product(y.dims, axis, y.dims.size())) * kFloat;
    if (b.output_grads[i].defined())
      copy_rows(ctx, static_cast<char*>(dx.data()) + offset, in_row, b.output_grads[i].data(), row, row, outer);
    offset += row;
  }
}

// Pad's gradient (constant mode): dY cropped back to the input, at the pads' start (negative pads: a crop, whose
// gradient pads with zeros).
void pad_backward(BackwardContext& b) {
  if (!b.wants(0)) return;
  auto& ctx = b.forward;
  const auto& x = ctx.in(0);
  auto begin = pad_begin(ctx, x.dims.size());
  for (auto& d : begin) d = -d;
  const auto& dy = b.dy();
  auto& dx = b.grad(0);
  if (x.dims.size() == 4 && (dy.channels_last || dx.channels_last)) {
    // The crop over NHWC's memory order (a side whose order does not differ is the same bytes either way).
    auto held_begin = nhwc_dims(begin);
    pad_constant(dy.as<float>(), dense_layout(nhwc_dims(dy.dims)), held_begin.data(), dx.as<float>(),
                 dense_layout(nhwc_dims(x.dims)), 0.f, ctx.gpu.stream());
  } else {
    pad_constant(dy.as<float>(), dense_layout(dy.dims), begin.data(), dx.as<float>(), dense_layout(x.dims), 0.f,
                 ctx.gpu.stream());
  }
  ctx.check_launch("Pad backward");
}

void register_manipulation_backward(BackwardRegistry& registry) {
  registry.add("manipulation", {{"Reshape", view_backward},
                                {"Flatten", view_backward},
                                {"Squeeze", view_backward},
                                {"Unsqueeze", view_backward},
                                {"Identity", view_backward},
                                {"Dropout", dropout_backward_op},
                                {"Transpose", transpose_backward},
                                {"Gather", gather_backward},
                                {"Slice", slice_backward},
                                {"Concat", concat_backward, {}, nullptr, /*channels_last=*/true},
                                {"Expand", expand_backward},
                                {"Split", split_backward},
                                {"Pad", pad_backward, {}, nullptr, /*channels_last=*/true}});
}

// Tile, DepthToSpace and SpaceToDepth: one strided read each (movement_plan.h), any element type.
void copy_through(KernelContext& ctx, const Layout& in, const char* what) {
  const auto& x = ctx.in(0);
  auto& y = ctx.allocate_output(0);
  int64_t n = 1;
  for (int d = 0; d < in.rank; ++d) n *= in.dims[d];
  if (n != y.numel()) ctx.fail(fmt::format("{} reads {} elements for an output of {}", what, n, y.numel()));
  strided_copy(x.data(), in, 0, y.data(), y.numel(), element_bytes(x), ctx.gpu.stream());
  ctx.check_launch(what);
}

void tile(KernelContext& ctx) {
  if (ctx.opset < 6) ctx.fail("Tile before opset 6 (tiles and axis inputs) is not run on the GPU");
  copy_through(ctx, tile_layout(ctx.in(0).dims, ctx.host_ints(1)), "Tile");
}

void depth_to_space(KernelContext& ctx) {
  auto mode = ctx.node.get_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") ctx.fail("mode is DCR or CRD, not " + mode);
  copy_through(ctx, depth_to_space_layout(ctx.in(0).dims, ctx.node.get_int("blocksize", 0), mode == "CRD"),
               "DepthToSpace");
}

void space_to_depth(KernelContext& ctx) {
  copy_through(ctx, space_to_depth_layout(ctx.in(0).dims, ctx.node.get_int("blocksize", 0)), "SpaceToDepth");
}

void register_manipulation_kernels(KernelRegistry& registry) {
  // clang-format off
  // Every movement takes a run's 16-bit activations (storage_plan.h) as they are: it moves elements of any size.
  // Concat and Pad take channels-last ones too; the others read NCHW.
  constexpr StorageInputs kX = storage_input(0);
  registry.add("manipulation", {
      {"Reshape", view, kX}, {"Flatten", view, kX}, {"Squeeze", view, kX}, {"Unsqueeze", view, kX},
      {"Identity", view, kX}, {"Dropout", dropout, kX}, {"Transpose", transpose, kX}, {"Expand", expand, kX},
      {"Slice", slice, kX}, {"Concat", concat, kAllStorage, kAllStorage}, {"Split", split, kX}, {"Gather", gather_op, kX},
      {"Pad", pad, kX, kX}, {"Trilu", trilu_op, kX}, {"Tile", tile, kX}, {"DepthToSpace", depth_to_space, kX},
      {"SpaceToDepth", space_to_depth, kX},
  });
  // clang-format on
}

}  // namespace ridge::exec::cuda
