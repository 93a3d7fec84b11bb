#include "exec/cuda/movement_plan.h"

#include <fmt/format.h>

#include <utility>

#include "util/error.h"

namespace ridge::exec::cuda {

namespace {

// A layout of (dim, stride) pairs in output order, dims of 1 dropped (they move nothing).
Layout layout_of(const std::vector<std::pair<int64_t, int64_t>>& walk) {
  Layout l;
  for (const auto& [dim, stride] : walk) {
    if (dim == 1) continue;
    if (l.rank == kMaxRank) throw Error(fmt::format("a copy of more than {} dims", kMaxRank));
    l.dims[l.rank] = dim;
    l.strides[l.rank] = stride;
    ++l.rank;
  }
  return l;
}

std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

void check_blocks(const std::vector<int64_t>& dims, int64_t block) {
  if (dims.size() != 4) throw Error(fmt::format("an input of rank {}; the op takes [N, C, H, W]", dims.size()));
  if (block < 1) throw Error(fmt::format("blocksize {} is not positive", block));
}

}  // namespace

Layout tile_layout(const std::vector<int64_t>& dims, const std::vector<int64_t>& repeats) {
  if (repeats.size() != dims.size())
    throw Error(fmt::format("{} repeats for an input of rank {}", repeats.size(), dims.size()));
  auto strides = strides_of(dims);
  std::vector<std::pair<int64_t, int64_t>> walk;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (repeats[k] < 0) throw Error(fmt::format("repeat {} is negative", repeats[k]));
    walk.emplace_back(repeats[k], 0);
    walk.emplace_back(dims[k], strides[k]);
  }
  return layout_of(walk);
}

Layout depth_to_space_layout(const std::vector<int64_t>& dims, int64_t block, bool crd) {
  check_blocks(dims, block);
  const int64_t n = dims[0], c = dims[1], h = dims[2], w = dims[3];
  if (c % (block * block) != 0) throw Error(fmt::format("{} channels are not a multiple of {}^2", c, block));
  const int64_t depth = c / (block * block), hw = h * w;
  // The channel of (block row i, block column j, output channel d): DCR (i b + j) depth + d, CRD d b^2 + i b + j.
  const int64_t stride_i = crd ? block * hw : block * depth * hw, stride_j = crd ? hw : depth * hw;
  const int64_t stride_d = crd ? block * block * hw : hw;
  return layout_of({{n, c * hw}, {depth, stride_d}, {h, w}, {block, stride_i}, {w, 1}, {block, stride_j}});
}

Layout space_to_depth_layout(const std::vector<int64_t>& dims, int64_t block) {
  check_blocks(dims, block);
  const int64_t n = dims[0], c = dims[1], h = dims[2], w = dims[3];
  if (h % block != 0 || w % block != 0)
    throw Error(fmt::format("{}x{} is not a multiple of blocksize {}", h, w, block));
  // Output channel (i b + j) C + c reads input (c, y b + i, x b + j).
  return layout_of({{n, c * h * w}, {block, w}, {block, 1}, {c, h * w}, {h / block, block * w}, {w / block, block}});
}

}  // namespace ridge::exec::cuda
