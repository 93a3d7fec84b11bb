// Shape rules of pooling: windowed (MaxPool, AveragePool, LpPool) and global.
#include <fmt/format.h>

#include "shape/registry.h"
#include "shape/spatial.h"

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

}  // namespace

void register_pooling_shapes(ShapeRegistry& registry) {
  // One table row per op.
  // clang-format off
  registry.add("pooling", {{"MaxPool", windowed_pool}, {"AveragePool", windowed_pool}, {"LpPool", windowed_pool},
                {"GlobalAveragePool", global_pool}, {"GlobalMaxPool", global_pool}, {"GlobalLpPool", global_pool}});
  // clang-format on
}

}  // namespace ridge::shape
