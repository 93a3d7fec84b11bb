#pragma once
// Data movement that is one strided read (kernels.h: strided_copy), worked out on the host and tested there: Tile,
// DepthToSpace and SpaceToDepth. Each returns the input layout whose dense walk writes the output: output element i,
// row-major over the layout's dims, reads the input at the sum of its indices times the layout's strides.
#include <cstdint>
#include <vector>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// Tile: the output's dim k, of dims[k] x repeats[k], read as [repeats[k], dims[k]] with strides [0, the input's].
Layout tile_layout(const std::vector<int64_t>& dims, const std::vector<int64_t>& repeats);
// DepthToSpace of an [N, C, H, W] input with blocks of `block`: DCR reads C as [block, block, C / block^2], CRD as
// [C / block^2, block, block]; the output is [N, C / block^2, H x block, W x block].
Layout depth_to_space_layout(const std::vector<int64_t>& dims, int64_t block, bool crd);
// SpaceToDepth of [N, C, H, W]: the output [N, C x block^2, H / block, W / block], channels ordered (block row, block
// column, C).
Layout space_to_depth_layout(const std::vector<int64_t>& dims, int64_t block);

}  // namespace ridge::exec::cuda
