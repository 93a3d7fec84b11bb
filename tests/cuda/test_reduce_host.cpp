// The GPU executor's reductions without a GPU: the axes a node reduces, the walk from each output element to its
// input elements (src/exec/cuda/reduce_plan.h) and the arithmetic (reduce_cell.h: reduce_serial, what a block of the
// kernel computes for one output), against the ONNX project's node tests of ReduceSum ... ArgMin. What only a GPU
// checks: the block's parallel combination (tests/gpu/test_cuda_gpu.cpp runs the same node tests on the GPU).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "exec/cuda/reduce_plan.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;
namespace fs = std::filesystem;

TEST(CudaReduce, TheGpusWalkAndArithmeticReproduceOnnxsNodeTests) {
  fs::path root = fs::path(onnx_testdata()) / "node";
  if (!fs::exists(root)) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0, args = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    auto name = entry.path().filename().string();
    if (name.rfind("test_reduce_", 0) != 0 && name.rfind("test_arg", 0) != 0) continue;
    analysis::Request request;
    request.model_path = (entry.path() / "model.onnx").string();
    auto data = entry.path() / "test_data_set_0";
    exec::Prepared p;
    try {
      p = exec::prepare(request, data.string());
    } catch (const Error&) {
      continue;  // inputs ridge does not read (none among these in libonnx-testdata 1.x)
    }
    const auto& node = p.analysis.model.graph.nodes.front();
    if (p.inputs.empty() || p.inputs[0].dtype != graph::DType::kFloat32) continue;  // the GPU reduces fp32
    const auto& x = p.inputs[0];
    std::vector<int64_t> axes_values;
    const std::vector<int64_t>* axes_input = nullptr;
    if (p.inputs.size() > 1) {
      axes_values = int64s(p.inputs[1]);
      axes_input = &axes_values;
    }
    auto op = cuda::reduce_op(node.op_type);
    bool noop = false;
    auto axes = cuda::reduce_axes(node, static_cast<int64_t>(x.dims.size()), axes_input, noop);
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    exec::HostTensor got{"y", cuda::reduce_is_arg(op) ? graph::DType::kInt64 : graph::DType::kFloat32, want->dims, {}};
    if (noop) {
      got.bytes = x.bytes;
    } else {
      auto plan = cuda::reduce_plan(x.dims, axes);
      plan.select_last = node.get_int("select_last_index", 0) != 0;
      const auto* in = reinterpret_cast<const float*>(x.bytes.data());
      got.bytes.resize(static_cast<size_t>(plan.outputs) * (cuda::reduce_is_arg(op) ? 8 : 4));
      for (int64_t o = 0; o < plan.outputs; ++o) {
        float v = cuda::reduce_serial(plan, op, in, o);
        if (cuda::reduce_is_arg(op)) {
          auto index = static_cast<int64_t>(v);
          std::memcpy(got.bytes.data() + o * 8, &index, 8);
        } else {
          std::memcpy(got.bytes.data() + o * 4, &v, 4);
        }
      }
    }
    EXPECT_EQ(compare_tensor(got, *want, 1e-4, 1e-6), "") << name;
    ++checked;
    args += cuda::reduce_is_arg(op);
  }
  EXPECT_GE(checked, 90);
  EXPECT_GE(args, 32);
}

// The walk merges what it can: a mean over the last dim of [2, 3, 4] is 6 outputs of 4 contiguous elements; over dims
// 0 and 2 it is 3 outputs (stride 4) of 8 elements in two dims; a scalar reduces as one element.
TEST(CudaReduce, WalksMergeNeighbouringDimsAndAxesAreChecked) {
  auto last = cuda::reduce_plan({2, 3, 4}, {2});
  EXPECT_EQ(last.outputs, 6);
  EXPECT_EQ(last.count, 4);
  EXPECT_EQ(last.kept.rank, 1);  // [2, 3] walked as 6 of stride 4
  EXPECT_EQ(last.kept.strides[0], 4);
  EXPECT_EQ(last.reduced.rank, 1);
  auto outer = cuda::reduce_plan({2, 3, 4}, {0, 2});
  EXPECT_EQ(outer.outputs, 3);
  EXPECT_EQ(outer.count, 8);
  EXPECT_EQ(outer.reduced.rank, 2);
  EXPECT_EQ(outer.reduced.strides[0], 12);
  EXPECT_EQ(outer.reduced.strides[1], 1);
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  // Output 1 of the outer walk: column 1 of each [3, 4] plane: 4..7 and 16..19, mean 11.5.
  EXPECT_FLOAT_EQ(cuda::reduce_serial(outer, cuda::ReduceOp::kMean, x.data(), 1), 11.5f);
  EXPECT_FLOAT_EQ(cuda::reduce_serial(outer, cuda::ReduceOp::kMax, x.data(), 1), 19.f);
  // The first of equal values, or the last with select_last_index; NaN wins.
  std::vector<float> ties{1.f, 3.f, 3.f, 2.f};
  auto row = cuda::reduce_plan({4}, {0});
  EXPECT_EQ(cuda::reduce_serial(row, cuda::ReduceOp::kArgMax, ties.data(), 0), 1.f);
  row.select_last = true;
  EXPECT_EQ(cuda::reduce_serial(row, cuda::ReduceOp::kArgMax, ties.data(), 0), 2.f);
  ties[3] = NAN;
  EXPECT_EQ(cuda::reduce_serial(row, cuda::ReduceOp::kArgMin, ties.data(), 0), 3.f);
  // LogSumExp of large values does not overflow: log(e^100 + e^100) = 100 + log 2.
  std::vector<float> big{100.f, 100.f};
  EXPECT_NEAR(cuda::reduce_serial(cuda::reduce_plan({2}, {0}), cuda::ReduceOp::kLogSumExp, big.data(), 0),
              100.f + std::log(2.f), 1e-4);
  ModelBuilder b;
  b.input("x", {2, 3}).output("y");
  auto& node = b.node("ReduceSum", {"x"}, {"y"}, "sum");
  set_ints(node, "axes", {1, -1});
  auto model = analyze_file(b.save("reduce_twice")).model;
  bool noop = false;
  EXPECT_THROW(cuda::reduce_axes(model.graph.nodes.front(), 2, nullptr, noop), Error);
  std::vector<int64_t> far{2};
  EXPECT_THROW(cuda::reduce_axes(model.graph.nodes.front(), 1, &far, noop), Error);
  EXPECT_THROW(cuda::reduce_op("Softmax"), Error);
}

}  // namespace
}  // namespace ridge::test
