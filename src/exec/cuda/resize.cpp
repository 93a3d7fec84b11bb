// Resize: nearest-neighbour on the GPU through per-dim index tables (resize_plan.h), its backward a scatter-add through
// the same tables; linear and cubic interpolation are refused by name. GridSample: linear, nearest and cubic sampling
// at a grid's points (grid_sample_plan.h).
#include <fmt/format.h>

#include "exec/cuda/backward.h"
#include "exec/cuda/grid_sample_kernels.h"
#include "exec/cuda/grid_sample_plan.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/resize_plan.h"
#include "exec/cuda/training_kernels.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

struct ResizeState : NodeState {
  std::shared_ptr<void> tables;
  std::vector<int64_t> offsets;
};

std::vector<double> scales_of(KernelContext& ctx, size_t input) {
  std::vector<double> scales;
  // Upsample-7 carries its scales as an attribute, as shape inference and the CPU executor read them.
  if (const auto* attr = ctx.node.attribute("scales"); attr && !ctx.has(input)) {
    for (auto s : attr->floats) scales.push_back(s);
    return scales;
  }
  if (!ctx.has(input)) return scales;
  const auto* c = ctx.graph.value(ctx.node.input(input)).constant.get();
  if (!c) ctx.fail("scales must be a constant known before the run");
  for (int64_t i = 0; i < c->size(); ++i) scales.push_back(c->as_real(static_cast<size_t>(i)));
  return scales;
}

// Upsample (opsets 7 and 9) and Resize before opset 11 repeat elements: asymmetric coordinates, floor.
void resize_with(KernelContext& ctx, bool upsample) {
  const auto& x = ctx.in(0);
  auto mode = ctx.node.get_string("mode", "nearest");
  if (mode != "nearest") ctx.fail(fmt::format("mode '{}': the GPU executor resizes nearest-neighbour only", mode));
  if (ctx.node.has("axes") || ctx.node.get_string("keep_aspect_ratio_policy", "stretch") != "stretch")
    ctx.fail("axes and keep_aspect_ratio_policy (opset 18) are not run on the GPU");
  auto& y = ctx.allocate_output(0);
  auto& s = ctx.cached<ResizeState>();
  if (!s.tables) {
    bool legacy = upsample || ctx.opset < 11;
    auto scales = scales_of(ctx, legacy ? 1 : 2);
    auto coordinate =
        legacy ? std::string("asymmetric") : ctx.node.get_string("coordinate_transformation_mode", "half_pixel");
    auto nearest = legacy ? std::string("floor") : ctx.node.get_string("nearest_mode", "round_prefer_floor");
    std::vector<int64_t> all;
    for (size_t d = 0; d < x.dims.size(); ++d) {
      double scale = d < scales.size() ? scales[d] : static_cast<double>(y.dims[d]) / static_cast<double>(x.dims[d]);
      s.offsets.push_back(static_cast<int64_t>(all.size()));
      auto table = nearest_indices(x.dims[d], y.dims[d], scale, coordinate, nearest);
      all.insert(all.end(), table.begin(), table.end());
    }
    s.tables = ctx.gpu.allocator().allocate(all.size() * sizeof(int64_t));
    // On the executor's stream: the legacy default stream does not order against a non-blocking one.
    // Pageable memory is staged before the call returns, so `all` may go.
    check(cudaMemcpyAsync(s.tables.get(), all.data(), all.size() * sizeof(int64_t), cudaMemcpyHostToDevice,
                          ctx.gpu.stream()),
          "copying Resize's index tables");
  }
  const auto element_bytes = static_cast<int>(graph::dtype_bytes(x.dtype, 1));
  const auto* tables = static_cast<const int64_t*>(s.tables.get());
  if (x.channels_last || y.channels_last) {  // the same gather in NHWC's memory order, each dim with its own table
    auto offsets = nhwc_dims(s.offsets);
    table_gather(x.data(), dense_layout(nhwc_dims(x.dims)), tables, y.data(), dense_layout(nhwc_dims(y.dims)),
                 offsets.data(), element_bytes, ctx.gpu.stream());
  } else {
    table_gather(x.data(), dense_layout(x.dims), tables, y.data(), dense_layout(y.dims), s.offsets.data(),
                 element_bytes, ctx.gpu.stream());
  }
  ctx.check_launch("Resize");
}

void resize(KernelContext& ctx) { resize_with(ctx, false); }
void upsample(KernelContext& ctx) { resize_with(ctx, true); }

// GridSample (grid_sample_plan.h): a thread per output element; fp32 X and grid.
void grid_sample_op(KernelContext& ctx) {
  const auto& x = ctx.float_input(0);
  const auto& grid = ctx.float_input(1);
  auto plan = ctx.planned([&] { return grid_sample_plan(ctx.node, x.dims, grid.dims); });
  auto& y =
      ctx.allocate_output(0, graph::DType::kFloat32, {plan.batch, plan.channels, plan.out_height, plan.out_width});
  grid_sample(plan, x.as<float>(), grid.as<float>(), y.as<float>(), ctx.gpu.stream());
  ctx.check_launch("GridSample");
}

// Nearest Resize's (and Upsample's) gradient: each output element's added into the input element the forward's index
// tables read for it, in the forward's memory order (NHWC in a channels-last step: the tables permuted as the gather
// permutes them).
void resize_backward(BackwardContext& b) {
  if (!b.wants(0)) return;
  auto& ctx = b.forward;
  const auto& s = b.forward_state<ResizeState>();
  const auto& dy = b.dy();
  auto& dx = b.grad(0);
  check(cudaMemsetAsync(dx.data(), 0, dx.bytes(), ctx.gpu.stream()), "zeroing Resize's gradient");
  const auto* tables = static_cast<const int64_t*>(s.tables.get());
  if (dy.channels_last || dx.channels_last) {
    auto offsets = nhwc_dims(s.offsets);
    table_scatter_add(dy.as<float>(), dense_layout(nhwc_dims(dy.dims)), tables, offsets.data(), dx.as<float>(),
                      dense_layout(nhwc_dims(dx.dims)), ctx.gpu.stream());
  } else {
    table_scatter_add(dy.as<float>(), dense_layout(dy.dims), tables, s.offsets.data(), dx.as<float>(),
                      dense_layout(dx.dims), ctx.gpu.stream());
  }
  ctx.check_launch("Resize backward");
}

}  // namespace

void register_resize_backward(BackwardRegistry& registry) {
  constexpr bool kNhwc = true;
  registry.add("resize",
               {{"Resize", resize_backward, {}, nullptr, kNhwc}, {"Upsample", resize_backward, {}, nullptr, kNhwc}});
}

void register_resize_kernels(KernelRegistry& registry) {
  // Nearest-neighbour resizing moves elements of any size: a run's 16-bit activations as they are, in either layout.
  constexpr auto kX = storage_input(0);
  registry.add("resize", {{"Resize", resize, kX, kX}, {"Upsample", upsample, kX, kX}, {"GridSample", grid_sample_op}});
}

}  // namespace ridge::exec::cuda
