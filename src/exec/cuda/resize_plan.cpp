#include "exec/cuda/resize_plan.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace ridge::exec::cuda {

std::vector<int64_t> nearest_indices(int64_t in, int64_t out, double scale, const std::string& coordinate_mode,
                                     const std::string& nearest_mode) {
  std::vector<int64_t> indices;
  indices.reserve(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    double x = static_cast<double>(i);
    double original;  // the output coordinate in the input's coordinates (ONNX Resize, opset 11+)
    if (coordinate_mode == "half_pixel") {
      original = (x + 0.5) / scale - 0.5;
    } else if (coordinate_mode == "pytorch_half_pixel") {
      original = out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    } else if (coordinate_mode == "align_corners") {
      original = out > 1 ? x * static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
    } else if (coordinate_mode == "asymmetric") {
      original = x / scale;
    } else if (coordinate_mode == "tf_half_pixel_for_nn") {
      original = (x + 0.5) / scale;
    } else {
      throw Error("coordinate_transformation_mode '" + coordinate_mode + "' is not run on the GPU");
    }
    double index;
    if (nearest_mode == "round_prefer_floor")
      index = original == std::floor(original) + 0.5 ? std::floor(original) : std::round(original);
    else if (nearest_mode == "round_prefer_ceil")
      index = std::round(original);  // halves away from zero: up, for the non-negative coordinates here
    else if (nearest_mode == "floor")
      index = std::floor(original);
    else if (nearest_mode == "ceil")
      index = std::ceil(original);
    else
      throw Error("nearest_mode '" + nearest_mode + "' is not an ONNX mode");
    indices.push_back(std::clamp<int64_t>(static_cast<int64_t>(index), 0, in - 1));
  }
  return indices;
}

}  // namespace ridge::exec::cuda
