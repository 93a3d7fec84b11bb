// The GPU executor's elementwise ops without a GPU: which kernel and parameters a node gets (elementwise_plan.h) and
// the arithmetic the kernels apply per element (elementwise_math.h), run here over the ONNX project's node tests of
// every unary and binary op the GPU takes, broadcasting as the kernels' layouts say. What only a GPU checks: the
// launches and their fast paths (tests/gpu/test_cuda_kernels_gpu.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "exec/cuda/elementwise_math.h"
#include "exec/cuda/elementwise_plan.h"
#include "exec/cuda/op_kernel.h"
#include "exec/prepare.h"
#include "support/paths.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;
namespace fs = std::filesystem;

TEST(CudaElementwise, EveryOpOfThePlanIsAGpuKernel) {
  const auto& registry = cuda::KernelRegistry::instance();
  for (auto names : {cuda::unary_op_types(), cuda::binary_op_types()})
    for (auto name : names) {
      const auto* row = registry.find(name);
      ASSERT_NE(row, nullptr) << name;
      EXPECT_EQ(row->family, "elementwise") << name;
    }
}

int64_t offset_of(int64_t i, const cuda::Layout& out, const cuda::Layout& in) {
  int64_t offset = 0;
  for (int d = out.rank - 1; d >= 0; --d) {
    offset += (i % out.dims[d]) * in.strides[d];
    i /= out.dims[d];
  }
  return offset;
}

template <class T>
const T* as(const exec::HostTensor& t) {
  return reinterpret_cast<const T*>(t.bytes.data());
}

// out (dims `out_dims`, type of `want`) = the node applied on the host, element by element.
exec::HostTensor apply_on_host(const graph::Node& node, const std::vector<exec::HostTensor>& in, const Expected& want) {
  exec::HostTensor out{"y", graph::DType::kFloat32, want.dims, {}};
  int64_t n = 1;
  for (auto d : want.dims) n *= d;
  if (auto call = cuda::unary_call(node)) {
    out.bytes.resize(static_cast<size_t>(n) * 4);
    auto* y = reinterpret_cast<float*>(out.bytes.data());
    for (int64_t i = 0; i < n; ++i) y[i] = cuda::apply_unary(call->op, as<float>(in[0])[i], call->a, call->b);
    return out;
  }
  auto op = *cuda::binary_call(node);
  auto ol = cuda::dense_layout(want.dims);
  auto al = cuda::broadcast_layout(in[0].dims, want.dims), bl = cuda::broadcast_layout(in[1].dims, want.dims);
  const bool int64 = in[0].dtype == graph::DType::kInt64;
  if (cuda::is_logic(op)) {
    out.dtype = graph::DType::kBool;
    out.bytes.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      auto ia = offset_of(i, ol, al), ib = offset_of(i, ol, bl);
      out.bytes[static_cast<size_t>(i)] =
          cuda::apply_logic(op, in[0].bytes[static_cast<size_t>(ia)] != 0, in[1].bytes[static_cast<size_t>(ib)] != 0);
    }
    return out;
  }
  if (cuda::is_comparison(op)) {
    out.dtype = graph::DType::kBool;
    out.bytes.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      auto ia = offset_of(i, ol, al), ib = offset_of(i, ol, bl);
      out.bytes[static_cast<size_t>(i)] = int64 ? cuda::compare(op, as<int64_t>(in[0])[ia], as<int64_t>(in[1])[ib])
                                                : cuda::compare(op, as<float>(in[0])[ia], as<float>(in[1])[ib]);
    }
    return out;
  }
  out.dtype = in[0].dtype;
  out.bytes.resize(static_cast<size_t>(n) * (int64 ? 8 : 4));
  for (int64_t i = 0; i < n; ++i) {
    auto ia = offset_of(i, ol, al), ib = offset_of(i, ol, bl);
    if (int64)
      reinterpret_cast<int64_t*>(out.bytes.data())[i] =
          cuda::apply_binary(op, as<int64_t>(in[0])[ia], as<int64_t>(in[1])[ib]);
    else
      reinterpret_cast<float*>(out.bytes.data())[i] =
          cuda::apply_binary(op, as<float>(in[0])[ia], as<float>(in[1])[ib]);
  }
  return out;
}

TEST(CudaElementwise, TheKernelsArithmeticReproducesOnnxsNodeTests) {
  fs::path root = fs::path(onnx_testdata()) / "node";
  if (!fs::exists(root)) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::set<std::string> ops;
  for (auto names : {cuda::unary_op_types(), cuda::binary_op_types()})
    for (auto name : names) ops.emplace(name);
  ops.erase("Not");  // bool: its own kernel
  int checked = 0;
  std::set<std::string> seen;
  for (const auto& entry : fs::directory_iterator(root)) {
    auto data = entry.path() / "test_data_set_0";
    if (!fs::exists(data / "input_0.pb")) continue;
    analysis::Request request;
    request.model_path = (entry.path() / "model.onnx").string();
    exec::Prepared p;
    try {
      p = exec::prepare(request, data.string());
    } catch (const Error&) {
      continue;
    }
    const auto& g = p.analysis.model.graph;
    if (g.nodes.size() != 1 || !ops.count(g.nodes.front().op_type)) continue;
    const auto& node = g.nodes.front();
    bool binary = cuda::binary_call(node).has_value();
    if (p.inputs.size() != (binary ? 2u : 1u)) continue;
    // The kernels' types: fp32, int64 for binary arithmetic and comparisons, bool for the logic ops.
    auto type = p.inputs[0].dtype;
    bool logic = binary && cuda::is_logic(*cuda::binary_call(node));
    if (logic != (type == graph::DType::kBool)) continue;
    if (!logic && type != graph::DType::kFloat32 && !(binary && type == graph::DType::kInt64)) continue;
    if (binary && p.inputs[1].dtype != type) continue;
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << entry.path().filename();
    auto got = apply_on_host(node, p.inputs, *want);
    EXPECT_EQ(compare_tensor(got, *want, 1e-4, 1e-6), "") << entry.path().filename();
    ++checked;
    seen.insert(node.op_type);
  }
  EXPECT_GE(checked, 95);
  // The ops with node tests in libonnx-testdata 1.x (Gelu and Mish have none there: their values by hand below).
  for (const char* op : {"Selu",        "Celu",
                         "Softsign",    "ThresholdedRelu",
                         "Sign",        "Round",
                         "Tan",         "Asin",
                         "Acos",        "Atan",
                         "Sinh",        "Cosh",
                         "Asinh",       "Acosh",
                         "Atanh",       "Shrink",
                         "PRelu",       "GreaterOrEqual",
                         "LessOrEqual", "Mod",
                         "And",         "Or",
                         "Xor"})
    EXPECT_TRUE(seen.count(op)) << op;
}

// IsNaN and IsInf (classify_kernel) against their node tests: NaN, both infinities, each infinity alone.
// A 16-bit run holds a model's constants saturated to fp16's range: an exporter's float32-min mask fill (Hugging Face's
// BERT multiplies (1 - mask) by -3.4028e38) stays finite, so 0 x fill is 0, not NaN; infinities and NaN stay.
// Integer Pow exactly, by squaring: through fp32 it was off past 2^24; a negative exponent gives the quotient's integer
// part.
TEST(CudaElementwise, IntegerPowIsExact) {
  using cuda::BinaryOp;
  EXPECT_EQ(cuda::apply_binary<int64_t>(BinaryOp::kPow, 4097, 2), int64_t{16785409});
  EXPECT_EQ(cuda::apply_binary<int64_t>(BinaryOp::kPow, 3, 20), int64_t{3486784401});
  EXPECT_EQ(cuda::apply_binary<int64_t>(BinaryOp::kPow, -2, 3), int64_t{-8});
  EXPECT_EQ(cuda::apply_binary<int64_t>(BinaryOp::kPow, 7, 0), int64_t{1});
  EXPECT_EQ(cuda::apply_binary<int64_t>(BinaryOp::kPow, 5, -1), int64_t{0});
  EXPECT_EQ(cuda::apply_binary<int64_t>(BinaryOp::kPow, -1, -3), int64_t{-1});
  EXPECT_FLOAT_EQ(cuda::apply_binary<float>(BinaryOp::kPow, 2.f, 0.5f), std::sqrt(2.f));
}

TEST(CudaElementwise, ConstantsHeldInFp16SaturateToItsRange) {
  EXPECT_EQ(cuda::fp16_saturate(-3.4028235e38f), -65504.f);
  EXPECT_EQ(cuda::fp16_saturate(1e5f), 65504.f);
  EXPECT_EQ(cuda::fp16_saturate(65504.f), 65504.f);
  EXPECT_EQ(cuda::fp16_saturate(-1234.5f), -1234.5f);
  EXPECT_EQ(cuda::fp16_saturate(0.f) * cuda::fp16_saturate(-3.4028235e38f), 0.f);
  EXPECT_EQ(cuda::fp16_saturate(-INFINITY), -INFINITY);
  EXPECT_TRUE(std::isnan(cuda::fp16_saturate(NAN)));
}

TEST(CudaElementwise, IsNanAndIsInfReproduceOnnxsNodeTests) {
  fs::path root = fs::path(onnx_testdata()) / "node";
  if (!fs::exists(root)) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const char* name : {"test_isnan", "test_isinf", "test_isinf_negative", "test_isinf_positive"}) {
    auto dir = root / name;
    if (!fs::exists(dir)) continue;
    analysis::Request request;
    request.model_path = (dir / "model.onnx").string();
    auto p = exec::prepare(request, (dir / "test_data_set_0").string());
    const auto& node = p.analysis.model.graph.nodes.front();
    const bool inf = node.op_type == "IsInf";
    const auto& x = p.inputs.at(0);
    ASSERT_EQ(x.dtype, graph::DType::kFloat32) << name;
    exec::HostTensor y{"y", graph::DType::kBool, x.dims, std::vector<uint8_t>(x.bytes.size() / 4)};
    for (size_t i = 0; i < y.bytes.size(); ++i)
      y.bytes[i] = cuda::is_class(as<float>(x)[i], !inf, inf && node.get_int("detect_positive", 1) != 0,
                                  inf && node.get_int("detect_negative", 1) != 0);
    auto want = read_expected((dir / "test_data_set_0" / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    EXPECT_EQ(compare_tensor(y, *want, 0, 0), "") << name;
    ++checked;
  }
  EXPECT_EQ(checked, 4);
  const auto* row = cuda::KernelRegistry::instance().find("IsInf");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->family, "elementwise");
}

TEST(CudaElementwise, ParametersComeFromTheNodesAttributesWithOnnxsDefaults) {
  graph::Node node;
  node.op_type = "Selu";
  auto selu = cuda::unary_call(node);
  ASSERT_TRUE(selu);
  EXPECT_FLOAT_EQ(selu->a, 1.6732632f);
  EXPECT_FLOAT_EQ(selu->b, 1.0507010f);
  node.op_type = "Gelu";
  EXPECT_EQ(cuda::unary_call(node)->op, cuda::UnaryOp::kGeluErf);
  node.op_type = "Mod";
  EXPECT_EQ(cuda::binary_call(node), cuda::BinaryOp::kMod);
  EXPECT_FALSE(cuda::unary_call(node));
  node.op_type = "Clip";  // its bounds are inputs
  EXPECT_FALSE(cuda::unary_call(node));
  // Python's and C's remainders: -7 mod 3 is 2 and -1; 7 mod -3 is -2 and 1.
  EXPECT_EQ(cuda::apply_binary<int64_t>(cuda::BinaryOp::kMod, -7, 3), 2);
  EXPECT_EQ(cuda::apply_binary<int64_t>(cuda::BinaryOp::kFmod, -7, 3), -1);
  EXPECT_FLOAT_EQ(cuda::apply_binary<float>(cuda::BinaryOp::kMod, 7.f, -3.f), -2.f);
  EXPECT_FLOAT_EQ(cuda::apply_binary<float>(cuda::BinaryOp::kFmod, 7.f, -3.f), 1.f);
  EXPECT_FLOAT_EQ(cuda::apply_unary(cuda::UnaryOp::kRound, 2.5f, 0, 0), 2.f);  // halves to even
  EXPECT_FLOAT_EQ(cuda::apply_unary(cuda::UnaryOp::kRound, -1.5f, 0, 0), -2.f);
  // By hand: GELU(1) = Phi(1) = 0.8413447; its tanh form 0.5 (1 + tanh(sqrt(2 / pi) 1.044715)) = 0.8411920;
  // Mish(1) = tanh(ln(1 + e)) = 0.8650984.
  EXPECT_NEAR(cuda::apply_unary(cuda::UnaryOp::kGeluErf, 1.f, 0, 0), 0.8413447f, 1e-6);
  EXPECT_NEAR(cuda::apply_unary(cuda::UnaryOp::kGeluTanh, 1.f, 0, 0), 0.8411920f, 1e-6);
  EXPECT_NEAR(cuda::apply_unary(cuda::UnaryOp::kMish, 1.f, 0, 0), 0.8650984f, 1e-6);
  // Swish(2) with alpha 0.5 = 2 sigmoid(1) = 1.4621172; far out on the negative side it is 0, not NaN.
  EXPECT_NEAR(cuda::apply_unary(cuda::UnaryOp::kSwish, 2.f, 0.5f, 0), 1.4621172f, 1e-6);
  EXPECT_EQ(cuda::apply_unary(cuda::UnaryOp::kSwish, -200.f, 1.f, 0), 0.f);
}

}  // namespace
}  // namespace ridge::test
