// The GPU executor's Tile, DepthToSpace and SpaceToDepth without a GPU: the strided read each is
// (src/exec/cuda/movement_plan.h), walked here element by element as the copy kernel walks it, against the ONNX
// project's node tests.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "exec/cuda/movement_plan.h"
#include "exec/prepare.h"
#include "support/paths.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;
namespace fs = std::filesystem;

// What strided_copy writes: output element i reads the input at its offset in `in`.
exec::HostTensor copy_on_host(const exec::HostTensor& x, const cuda::Layout& in, const std::vector<int64_t>& dims) {
  exec::HostTensor y{"y", x.dtype, dims, {}};
  const size_t element = graph::dtype_bytes(x.dtype, 1);
  int64_t n = 1;
  for (int d = 0; d < in.rank; ++d) n *= in.dims[d];
  y.bytes.resize(static_cast<size_t>(n) * element);
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0, rest = i;
    for (int d = in.rank - 1; d >= 0; --d) {
      offset += (rest % in.dims[d]) * in.strides[d];
      rest /= in.dims[d];
    }
    std::memcpy(y.bytes.data() + static_cast<size_t>(i) * element,
                x.bytes.data() + static_cast<size_t>(offset) * element, element);
  }
  return y;
}

TEST(CudaMovement, TheStridedReadsReproduceOnnxsNodeTests) {
  fs::path root = fs::path(onnx_testdata()) / "node";
  if (!fs::exists(root)) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    auto name = entry.path().filename().string();
    if (name.rfind("test_tile", 0) != 0 && name.rfind("test_depthtospace", 0) != 0 &&
        name.rfind("test_spacetodepth", 0) != 0)
      continue;
    analysis::Request request;
    request.model_path = (entry.path() / "model.onnx").string();
    auto data = entry.path() / "test_data_set_0";
    auto p = exec::prepare(request, data.string());
    const auto& node = p.analysis.model.graph.nodes.front();
    const auto& x = p.inputs.at(0);
    cuda::Layout in;
    if (node.op_type == "Tile")
      in = cuda::tile_layout(x.dims, int64s(p.inputs.at(1)));
    else if (node.op_type == "DepthToSpace")
      in = cuda::depth_to_space_layout(x.dims, node.get_int("blocksize", 0), node.get_string("mode", "DCR") == "CRD");
    else
      in = cuda::space_to_depth_layout(x.dims, node.get_int("blocksize", 0));
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    EXPECT_EQ(compare_tensor(copy_on_host(x, in, want->dims), *want, 0, 0), "") << name;
    ++checked;
  }
  EXPECT_GE(checked, 6);  // tile 2, depthtospace 4, spacetodepth 2 in libonnx-testdata 1.x
}

TEST(CudaMovement, ShapesTheOpsCannotTakeAreRefusedInOneLine) {
  EXPECT_THROW(cuda::tile_layout({2, 3}, {2}), Error);
  EXPECT_THROW(cuda::tile_layout({2, 3}, {2, -1}), Error);
  EXPECT_THROW(cuda::depth_to_space_layout({1, 6, 2, 2}, 2, false), Error);  // 6 channels, blocks of 4
  EXPECT_THROW(cuda::space_to_depth_layout({1, 1, 3, 4}, 2), Error);
  EXPECT_THROW(cuda::space_to_depth_layout({1, 4, 4}, 2), Error);
  // Tile by hand: [1, 2] tiled 3 times reads 0, 1, 0, 1, 0, 1 (a repeat of stride 0 around the input).
  auto l = cuda::tile_layout({2}, {3});
  ASSERT_EQ(l.rank, 2);
  EXPECT_EQ(l.dims[0], 3);
  EXPECT_EQ(l.strides[0], 0);
  EXPECT_EQ(l.strides[1], 1);
}

}  // namespace
}  // namespace ridge::test
