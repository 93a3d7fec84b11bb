// Shape rules of pooling: windowed (MaxPool, AveragePool, LpPool), global, MaxUnpool's inverse of MaxPool, and
// RoiAlign's pooling of regions.
#include <fmt/format.h>

#include "shape/registry.h"
#include "shape/spatial.h"
#include "util/error.h"

namespace ridge::shape {
namespace {

void windowed_pool(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto x = ctx.in_dims(0);
  if (x.size() < 3) ctx.fail(fmt::format("input must have rank >= 3, has {}", x.size()));
  if (!ctx.node().has("kernel_shape")) ctx.fail("kernel_shape is required");
  std::vector<int64_t> spatial(x.begin() + 2, x.end());
  auto window = read_window(ctx, spatial, ctx.node().get_ints("kernel_shape"));
  std::vector<int64_t> out{x[0], x[1]};
  for (auto d : window_output(ctx, spatial, window, ctx.node().get_int("ceil_mode", 0) != 0)) out.push_back(d);
  ctx.set_output(0, ctx.in_dtype(0), out);
  if (ctx.has_output(1)) ctx.set_output(1, graph::DType::kInt64, out);  // MaxPool indices
}

void global_pool(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto x = ctx.in_dims(0);
  if (x.size() < 2) ctx.fail("input must have rank >= 2");
  std::fill(x.begin() + 2, x.end(), 1);
  ctx.set_output(0, ctx.in_dtype(0), x);
}

// MaxUnpool: X and its MaxPool indices I [N, C, D...] -> [N, C, (D - 1) x stride + kernel - pads...], or the constant
// output_shape where given (at least that large: the unpooled values land in its leading corner).
void max_unpool(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto x = ctx.in_dims(0);
  if (ctx.in_dims(1) != x) ctx.fail("the indices I must have X's dims");
  std::vector<int64_t> out;
  try {
    out = unpooled_dims(ctx.node(), x);
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
  if (ctx.has_input(2)) {
    auto given = ctx.in_ints(2, "output_shape");
    if (given.size() != out.size()) ctx.fail(fmt::format("output_shape must have {} entries", out.size()));
    for (size_t d = 0; d < out.size(); ++d)
      if (given[d] < out[d])
        ctx.fail(fmt::format("output_shape[{}] = {} is smaller than the unpooled {}", d, given[d], out[d]));
    out = given;
  }
  ctx.set_output(0, ctx.in_dtype(0), out);
}

// RoiAlign: X [N, C, H, W], rois [R, 4], batch_indices [R] -> [R, C, output_height, output_width].
void roi_align(InferenceContext& ctx) {
  ctx.require_inputs(3);
  auto x = ctx.in_dims(0), rois = ctx.in_dims(1), batch = ctx.in_dims(2);
  if (x.size() != 4) ctx.fail(fmt::format("X must be [N, C, H, W], has rank {}", x.size()));
  if (rois.size() != 2 || rois[1] != 4) ctx.fail("rois must be [num_rois, 4]");
  if (batch.size() != 1 || batch[0] != rois[0]) ctx.fail("batch_indices must be [num_rois], one per roi");
  const auto& node = ctx.node();
  auto height = node.get_int("output_height", 1), width = node.get_int("output_width", 1);
  if (height < 1 || width < 1)
    ctx.fail(fmt::format("output_height and output_width must be >= 1, are {} and {}", height, width));
  if (node.get_int("sampling_ratio", 0) < 0) ctx.fail("sampling_ratio must be >= 0");
  auto mode = node.get_string("mode", "avg");
  if (mode != "avg" && mode != "max") ctx.fail(fmt::format("mode '{}' is not avg or max", mode));
  auto transform = node.get_string("coordinate_transformation_mode", "half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    ctx.fail(fmt::format("coordinate_transformation_mode '{}' is not half_pixel or output_half_pixel", transform));
  // Constant regions decoded (where small), so the cost's adaptive sampling grid is exact for them.
  ctx.in_const(1);
  ctx.set_output(0, ctx.in_dtype(0), {rois[0], x[1], height, width});
}

}  // namespace

void register_pooling_shapes(ShapeRegistry& registry) {
  // One table row per op.
  // clang-format off
  registry.add("pooling", {{"MaxPool", windowed_pool}, {"AveragePool", windowed_pool}, {"LpPool", windowed_pool},
                {"GlobalAveragePool", global_pool}, {"GlobalMaxPool", global_pool}, {"GlobalLpPool", global_pool},
                {"MaxUnpool", max_unpool}, {"RoiAlign", roi_align}});
  // clang-format on
}

}  // namespace ridge::shape
