// The GPU's linear quantization without a GPU: the plan (src/exec/cuda/quantize_plan.h) and the per-element arithmetic
// (quantize_cell.h: what a thread of the kernels computes), applied serially to the ONNX project's node tests of
// QuantizeLinear, DequantizeLinear (per tensor and per channel) and DynamicQuantizeLinear, exactly; rounding half to
// even and saturation by hand; the plan's one-line refusals. What only a GPU checks: the loads and stores, and
// DynamicQuantizeLinear's range by the reduction kernel (tests/gpu/test_cuda_gpu.cpp runs the node tests there).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>

#include "exec/cuda/quantize_plan.h"
#include "exec/prepare.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/paths.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

// Integer elements of a uint8, int8 or int32 tensor.
std::vector<int32_t> integers(const exec::HostTensor& t) {
  std::vector<int32_t> v;
  for (double x : host_values(t)) v.push_back(static_cast<int32_t>(x));
  return v;
}

exec::HostTensor integer_tensor(const std::string& name, graph::DType type, const std::vector<int64_t>& dims,
                                const std::vector<int32_t>& values) {
  exec::HostTensor t{name, type, dims, std::vector<uint8_t>(graph::dtype_bytes(type, 1) * values.size())};
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == graph::DType::kUInt8) t.bytes[i] = static_cast<uint8_t>(values[i]);
    if (type == graph::DType::kInt8) t.bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(values[i]));
    if (type == graph::DType::kInt32) std::memcpy(t.bytes.data() + 4 * i, &values[i], 4);
  }
  return t;
}

// The node's outputs as the GPU's threads compute them, one element after another.
std::vector<exec::HostTensor> run_serial(const graph::Node& node, const graph::Graph& g,
                                         const std::vector<exec::HostTensor>& in) {
  const auto& x = in.at(0);
  if (node.op_type == "DynamicQuantizeLinear") {
    auto values = floats(x);
    auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    auto d = cuda::dynamic_quant(*lo, *hi);
    std::vector<int32_t> y;
    for (float v : values) y.push_back(cuda::quantize_value(v, d.scale, d.zero_point, cuda::QuantType::kUInt8));
    return {integer_tensor("y", graph::DType::kUInt8, x.dims, y), float_tensor("y_scale", {}, {d.scale}),
            integer_tensor("y_zero_point", graph::DType::kUInt8, {}, {d.zero_point})};
  }
  const bool quantizing = node.op_type == "QuantizeLinear";
  const auto& scale = in.at(1);
  const exec::HostTensor* zero = in.size() > 2 ? &in[2] : nullptr;
  std::optional<std::vector<int64_t>> zero_dims;
  if (zero) zero_dims = zero->dims;
  auto integer = quantizing ? g.value(node.outputs[0]).dtype : x.dtype;
  auto plan = cuda::quantize_plan(node, x.dims, scale.dims, zero_dims, cuda::quant_type(integer, quantizing));
  auto scales = floats(scale);
  auto zeros = zero ? integers(*zero) : std::vector<int32_t>(scales.size(), 0);
  if (quantizing) {
    auto values = floats(x);
    std::vector<int32_t> y;
    for (int64_t i = 0; i < plan.count; ++i) {
      auto c = static_cast<size_t>(cuda::quant_channel(plan, i));
      y.push_back(cuda::quantize_value(values[static_cast<size_t>(i)], scales[c], zeros[c], plan.type));
    }
    return {integer_tensor("y", integer, x.dims, y)};
  }
  auto values = integers(x);
  std::vector<float> y;
  for (int64_t i = 0; i < plan.count; ++i) {
    auto c = static_cast<size_t>(cuda::quant_channel(plan, i));
    y.push_back(cuda::dequantize_value(values[static_cast<size_t>(i)], zeros[c], scales[c]));
  }
  return {float_tensor("y", x.dims, y)};
}

TEST(CudaQuantize, ThePlansAndArithmeticReproduceOnnxsNodeTestsExactly) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::map<std::string, int> checked;
  for (const auto& t : node_tests({"test_quantizelinear", "test_dequantizelinear", "test_dynamicquantizelinear"})) {
    const auto& name = t.name;
    const auto& p = t.prepared;
    const auto& data = t.data;
    const auto& g = p.analysis.model.graph;
    ASSERT_EQ(g.nodes.size(), 1u) << name;
    auto got = run_serial(g.nodes.front(), g, p.inputs);
    for (size_t o = 0; o < got.size(); ++o) {
      auto want = read_expected((data / ("output_" + std::to_string(o) + ".pb")).string());
      ASSERT_TRUE(want) << name << " output " << o;
      EXPECT_EQ(compare_tensor(got[o], *want, 0, 0), "") << name << " output " << o;
    }
    ++checked[g.nodes.front().op_type];
  }
  EXPECT_EQ(checked["QuantizeLinear"], 2);         // per tensor, and per channel along axis 1
  EXPECT_EQ(checked["DequantizeLinear"], 2);       // the same
  EXPECT_EQ(checked["DynamicQuantizeLinear"], 3);  // a range across 0, and ones above and below it
}

TEST(CudaQuantize, RoundingIsHalfToEvenAndSaturates) {
  using cuda::QuantType;
  EXPECT_EQ(cuda::quantize_value(2.5f, 1.f, 0, QuantType::kUInt8), 2);
  EXPECT_EQ(cuda::quantize_value(3.5f, 1.f, 0, QuantType::kUInt8), 4);
  EXPECT_EQ(cuda::quantize_value(-2.5f, 1.f, 0, QuantType::kInt8), -2);
  EXPECT_EQ(cuda::quantize_value(1.f, 0.5f, 128, QuantType::kUInt8), 130);
  EXPECT_EQ(cuda::quantize_value(1000.f, 1.f, 0, QuantType::kUInt8), 255);
  EXPECT_EQ(cuda::quantize_value(-1000.f, 1.f, 0, QuantType::kUInt8), 0);
  EXPECT_EQ(cuda::quantize_value(-1000.f, 1.f, 0, QuantType::kInt8), -128);
  EXPECT_EQ(cuda::quantize_value(1000.f, 1.f, -5, QuantType::kInt8), 127);
  EXPECT_FLOAT_EQ(cuda::dequantize_value(-128, 127, 0.5f), -127.5f);
  // int32 extremes: the difference is exact in 64 bits.
  EXPECT_FLOAT_EQ(cuda::dequantize_value(2147483647, -2147483647 - 1, 1.f), 4294967295.f);
  // An empty range (all zeros): ONNX's scale of 1 / 255 and zero point 0.
  auto d = cuda::dynamic_quant(0.f, 0.f);
  EXPECT_FLOAT_EQ(d.scale, 1.f / 255.f);
  EXPECT_EQ(d.zero_point, 0);
  // A range of [-1, 3]: scale 4 / 255, zero point round(255 / 4) = 64.
  d = cuda::dynamic_quant(-1.f, 3.f);
  EXPECT_FLOAT_EQ(d.scale, 4.f / 255.f);
  EXPECT_EQ(d.zero_point, 64);
}

TEST(CudaQuantize, PerChannelScalesFollowTheAxisAndWhatThePlanCannotHoldIsRefused) {
  ModelBuilder b(13);
  b.input("x", {int64_t{2}, int64_t{3}, int64_t{4}}).input("s", {3}).output("y");
  set_int(b.node("QuantizeLinear", {"x", "s"}, {"y"}, "q"), "axis", -2);
  analysis::Request request;
  request.model_path = b.save("quantize_axis");
  auto model = exec::prepare(request, "").analysis.model;
  const auto& node = model.graph.nodes.front();
  auto p = cuda::quantize_plan(node, {2, 3, 4}, {3}, std::nullopt, cuda::QuantType::kUInt8);
  EXPECT_EQ(p.count, 24);
  EXPECT_EQ(p.channels, 3);
  EXPECT_EQ(p.inner, 4);
  EXPECT_EQ(cuda::quant_channel(p, 0), 0);
  EXPECT_EQ(cuda::quant_channel(p, 5), 1);
  EXPECT_EQ(cuda::quant_channel(p, 11), 2);
  EXPECT_EQ(cuda::quant_channel(p, 12), 0);  // the next batch item
  auto scalar = cuda::quantize_plan(node, {2, 3, 4}, {1}, std::vector<int64_t>{1}, cuda::QuantType::kInt8);
  EXPECT_EQ(scalar.channels, 1);

  auto refused = [](auto make, const std::string& words) { EXPECT_EQ(one_line_refusal(make, words), ""); };
  refused(
      [&] {
        cuda::quantize_plan(node, {2, 3, 4}, {4}, std::nullopt, cuda::QuantType::kUInt8);
      },
      "4 scales along axis 1 of size 3");
  refused(
      [&] {
        cuda::quantize_plan(node, {2, 3, 4}, {3, 1}, std::nullopt, cuda::QuantType::kUInt8);
      },
      "per-channel ones one dim");
  refused(
      [&] {
        cuda::quantize_plan(node, {2, 3, 4}, {3}, std::vector<int64_t>{1}, cuda::QuantType::kUInt8);
      },
      "a zero point of dims");
  refused([&] { cuda::quant_type(graph::DType::kInt16, true); }, "takes uint8 and int8");
  refused([&] { cuda::quant_type(graph::DType::kInt32, true); }, "to int32");
  EXPECT_EQ(cuda::quant_type(graph::DType::kInt32, false), cuda::QuantType::kInt32);
  graph::Node dq;  // opset 21's blocked quantization
  dq.op_type = "DequantizeLinear";
  graph::Attribute a;
  a.name = "block_size";
  a.kind = graph::Attribute::Kind::kInt;
  a.i = 2;
  dq.attributes.push_back(a);
  refused(
      [&] {
        cuda::quantize_plan(dq, {2, 4}, {2, 2}, std::nullopt, cuda::QuantType::kInt8);
      },
      "block_size 2: the GPU quantizes per tensor or per channel");
}

}  // namespace
}  // namespace ridge::test
