#pragma once
// Nearest-neighbour Resize as index tables, worked out on the host (and tested there): for each output
// index of a dim, the input index ONNX's coordinate_transformation_mode and nearest_mode pick.
#include <cstdint>
#include <string>
#include <vector>

namespace ridge::exec::cuda {

// The input index of every output index of one dim of size `in` resized to `out` by `scale` (ONNX:
// output/input; from `scales`, or out / in when `sizes` gave the size). Throws ridge::Error for a mode
// ONNX does not define.
std::vector<int64_t> nearest_indices(int64_t in, int64_t out, double scale, const std::string& coordinate_mode,
                                     const std::string& nearest_mode);

}  // namespace ridge::exec::cuda
