// Cost rules of pooling. A window of k elements costs k-1 comparisons (max) or k-1 additions and
// one division (average) per output element; global pools use the whole spatial extent. RoiAlign samples each region's
// bins by bilinear interpolation.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/registry.h"
#include "shape/constant_eval.h"

namespace ridge::cost {
namespace {

template <bool Average>
void windowed(CostContext& ctx) {
  int64_t k = shape::product(ctx.node().get_ints("kernel_shape"));
  int64_t out = ctx.out_elements();
  ctx.flops = (Average ? k : k - 1) * out;
  ctx.backward_flops_data = Average ? k * out : out;  // spread g/k over the window; route g to the max
  ctx.saves_output = !Average;                        // max positions
}

void lp_pool(CostContext& ctx) {
  int64_t k = shape::product(ctx.node().get_ints("kernel_shape"));
  ctx.flops = (3 * k) * ctx.out_elements();  // |x|^p, add, then the root
  ctx.backward_flops_data = 3 * k * ctx.out_elements();
  ctx.saves_inputs = true;
}

template <bool Average>
void global(CostContext& ctx) {
  int64_t out = ctx.out_elements();
  int64_t window = out > 0 ? ctx.in_elements(0) / out : 0;
  ctx.flops = (Average ? window : window - 1) * out;
  ctx.backward_flops_data = Average ? ctx.in_elements(0) : out;
  ctx.saves_output = !Average;
}

// RoiAlign: each of a region's output_height x output_width bins averages (or takes the largest of) a grid of samples,
// each a bilinear interpolation: per channel 4 products with the corners' weights and 4 sums (or maxima); per sample,
// shared by the channels, its coordinates, corners and 4 weights (12 FLOPs); an average's division per output. The
// grid is sampling_ratio^2, or with sampling_ratio 0 ceil(roi height / output_height) x ceil(roi width / output_width)
// per region: exact where the regions are known constants, else counted as one sample per bin (at least what runs)
// and marked an estimate. X is read where sampled (4 pixels a sample, at most X whole).
void roi_align(CostContext& ctx) {
  const auto& node = ctx.node();
  const int64_t height = node.get_int("output_height", 1), width = node.get_int("output_width", 1);
  const int64_t ratio = node.get_int("sampling_ratio", 0);
  const auto x = ctx.in_dims(0);
  const int64_t regions = ctx.in_dims(1).at(0), channels = x.at(1);
  int64_t samples = 0;  // over every region's bins
  if (ratio > 0) {
    samples = regions * height * width * ratio * ratio;
  } else if (const auto* rois = ctx.in_constant(1); rois && rois->size() == 4 * regions) {
    // As the operator computes a region's size: scaled, and at least 1 x 1 without the half-pixel shift.
    const double scale = node.get_float("spatial_scale", 1.0);
    const bool half_pixel = node.get_string("coordinate_transformation_mode", "half_pixel") == "half_pixel";
    for (int64_t r = 0; r < regions; ++r) {
      double w = (rois->as_real(static_cast<size_t>(4 * r + 2)) - rois->as_real(static_cast<size_t>(4 * r))) * scale;
      double h =
          (rois->as_real(static_cast<size_t>(4 * r + 3)) - rois->as_real(static_cast<size_t>(4 * r + 1))) * scale;
      if (!half_pixel) w = std::max(w, 1.0), h = std::max(h, 1.0);
      const auto grid_h = static_cast<int64_t>(std::ceil(h / static_cast<double>(height)));
      const auto grid_w = static_cast<int64_t>(std::ceil(w / static_cast<double>(width)));
      samples += height * width * std::max<int64_t>(grid_h, 0) * std::max<int64_t>(grid_w, 0);
    }
  } else {
    samples = regions * height * width;
    ctx.estimate = fmt::format(
        "sampling grid set by the regions at run time (sampling_ratio 0): counted as one sample per bin, {} in all",
        samples);
  }
  const bool average = node.get_string("mode", "avg") == "avg";
  ctx.flops = samples * (8 * channels + 12) + (average ? ctx.out_elements() : 0);
  ctx.backward_flops_data = samples * 8 * channels;  // each sample's 4 weighted gradients added into X's pixels
  ctx.saves_inputs = true;
  const int64_t pixels = ctx.in_elements(0);  // X's bytes per element under the chosen dtype
  const int64_t element = pixels > 0 ? ctx.in_bytes(0) / pixels : 0;
  ctx.override_read(0, std::min(ctx.in_bytes(0), samples * channels * 4 * element));
  ctx.mark_not_parameter(1);
}

}  // namespace

// MaxUnpool: data movement, no FLOPs: the output zeroed and each input element written at its index; its backward
// gathers the output gradient at the indices.
void max_unpool(CostContext& ctx) { ctx.backward_flops_data = 0; }

void register_pooling_costs(CostRegistry& r) {
  // One table row per op.
  // clang-format off
  r.add("pooling", {{"MaxPool", windowed<false>}, {"AveragePool", windowed<true>}, {"LpPool", lp_pool},
         {"GlobalAveragePool", global<true>}, {"GlobalMaxPool", global<false>}, {"GlobalLpPool", global<true>},
         {"MaxUnpool", max_unpool}, {"RoiAlign", roi_align}});
  // clang-format on
}

}  // namespace ridge::cost
