// The GPU's integer products without a GPU: the plans (src/exec/cuda/integer_plan.h) and the cells a thread computes
// (integer_cell.h), applied serially to the ONNX project's node tests of MatMulInteger, QLinearMatMul, ConvInteger and
// QLinearConv (exactly), against the CPU executor on what those tests leave out (per-row and per-column zero points
// and scales, batch broadcast, 1-D operands, int8 with uint8, groups, strides, dilations, auto_pad, 1-D and 3-D
// convolutions, a bias), a per-row zero point by hand, and the plans' one-line refusals. What only a GPU checks: the
// loads and stores (tests/gpu/test_cuda_gpu.cpp runs the node tests there).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "exec/cuda/integer_plan.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;
using graph::DType;

exec::HostTensor tensor_of(const std::string& name, DType type, const std::vector<int64_t>& dims,
                           const std::vector<double>& values) {
  exec::HostTensor t{name, type, dims,
                     std::vector<uint8_t>(static_cast<size_t>(graph::dtype_bytes(type, 1)) * values.size())};
  for (size_t i = 0; i < values.size(); ++i) {
    auto v = values[i];
    if (type == DType::kUInt8) t.bytes[i] = static_cast<uint8_t>(v);
    if (type == DType::kInt8) t.bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(v));
    if (type == DType::kInt32) {
      auto x = static_cast<int32_t>(v);
      std::memcpy(t.bytes.data() + 4 * i, &x, 4);
    }
    if (type == DType::kFloat32) {
      auto x = static_cast<float>(v);
      std::memcpy(t.bytes.data() + 4 * i, &x, 4);
    }
  }
  return t;
}

// The node's output as the GPU's threads compute it, one element after another; `in` holds its inputs by name.
exec::HostTensor run_serial(const graph::Graph& g, const graph::Node& node, const std::vector<exec::HostTensor>& in) {
  std::vector<cuda::IntegerInput> inputs(node.inputs.size());
  std::vector<const void*> data(node.inputs.size(), nullptr);
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] == graph::kNoValue) continue;
    const auto& name = g.value(node.inputs[i]).name;
    for (const auto& t : in)
      if (t.name == name) {
        inputs[i] = {true, t.dtype, t.dims};
        data[i] = t.bytes.data();
      }
    EXPECT_TRUE(inputs[i].present) << name;
  }
  auto at = [&](size_t i) { return i < data.size() ? data[i] : nullptr; };
  auto floats_at = [&](size_t i) { return static_cast<const float*>(at(i)); };
  const bool q = node.op_type.rfind("QLinear", 0) == 0;
  cuda::IntegerOperands o;
  o.a = at(0);
  o.b = at(q ? 3 : 1);
  o.a_zero = at(2);
  o.b_zero = at(q ? 5 : 3);
  if (q) o.a_scale = floats_at(1), o.b_scale = floats_at(4), o.y_scale = floats_at(6), o.y_zero = at(7);
  o.bias = static_cast<const int32_t*>(at(8));
  std::vector<int64_t> dims;
  std::vector<double> values;
  bool y_signed = false;
  if (node.op_type.find("Conv") != std::string::npos) {
    auto p = cuda::integer_conv_plan(node, inputs);
    dims = {p.batch, p.out_channels};
    for (int d = 0; d < p.spatial; ++d) dims.push_back(p.out[d]);
    for (int64_t e = 0; e < p.count(); ++e) values.push_back(cuda::integer_conv_at(p, o, e));
    y_signed = p.y_signed;
  } else {
    auto p = cuda::integer_matmul_plan(node, inputs);
    dims = cuda::integer_matmul_dims(p, inputs[0].dims, inputs[q ? 3 : 1].dims);
    for (int64_t e = 0; e < p.count(); ++e) values.push_back(cuda::integer_matmul_at(p, o, e));
    y_signed = p.y_signed;
  }
  return tensor_of("y", !q ? DType::kInt32 : (y_signed ? DType::kInt8 : DType::kUInt8), dims, values);
}

TEST(CudaInteger, TheCellsReproduceOnnxsNodeTestsExactly) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::map<std::string, int> checked;
  for (const auto& t : node_tests({"test_matmulinteger", "test_qlinearmatmul", "test_basic_convinteger",
                                   "test_convinteger", "test_qlinearconv"})) {
    const auto& g = t.prepared.analysis.model.graph;
    ASSERT_EQ(g.nodes.size(), 1u) << t.name;
    auto got = run_serial(g, t.node(), t.inputs());
    auto want = t.expected();
    ASSERT_TRUE(want) << t.name;
    EXPECT_EQ(compare_tensor(got, *want, 0, 0), "") << t.name;
    ++checked[t.node().op_type];
  }
  EXPECT_EQ(checked["MatMulInteger"], 1);
  EXPECT_EQ(checked["QLinearMatMul"], 2);  // 2-D and 3-D
  EXPECT_EQ(checked["ConvInteger"], 3);    // basic, with and without padding
  EXPECT_EQ(checked["QLinearConv"], 1);
}

struct Operand {
  std::string name;
  DType type;
  std::vector<int64_t> dims;
};

int32_t onnx_type(DType t) {
  switch (t) {
    case DType::kUInt8:
      return ::onnx::TensorProto::UINT8;
    case DType::kInt8:
      return ::onnx::TensorProto::INT8;
    case DType::kInt32:
      return ::onnx::TensorProto::INT32;
    default:
      return ::onnx::TensorProto::FLOAT;
  }
}

// Values of each type spread over its range (scales: small positive floats), different per operand.
std::vector<double> spread(DType type, int64_t n, int salt) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    double u = std::fmod(std::fabs(std::sin(0.7 * static_cast<double>(i + 1) * (salt + 1.3))) * 1000.0, 1.0);
    if (type == DType::kUInt8) v.push_back(std::floor(u * 256));
    if (type == DType::kInt8) v.push_back(std::floor(u * 256) - 128);
    if (type == DType::kInt32) v.push_back(std::floor(u * 20001) - 10000);
    if (type == DType::kFloat32) v.push_back(std::ldexp(0.5 + u, -4 - salt % 3));
  }
  return v;
}

struct Case {
  std::string label, op;
  std::vector<Operand> inputs;  // "" names an omitted input
  DType output;
  std::map<std::string, std::vector<int64_t>> ints;
  std::string auto_pad;
};

TEST(CudaInteger, TheCellsComputeWhatTheCpuExecutorDoes) {
  const auto u8 = DType::kUInt8, s8 = DType::kInt8, f32 = DType::kFloat32, i32 = DType::kInt32;
  const std::vector<Case> cases{
      {"MatMulInteger, per-row and per-column zero points, uint8 x int8",
       "MatMulInteger",
       {{"a", u8, {5, 7}}, {"b", s8, {7, 3}}, {"az", u8, {5}}, {"bz", s8, {3}}},
       i32},
      {"MatMulInteger, batch broadcast, zero points [.., M, 1] and [.., 1, N]",
       "MatMulInteger",
       {{"a", s8, {2, 1, 4, 6}}, {"b", u8, {3, 6, 5}}, {"az", s8, {2, 1, 4, 1}}, {"bz", u8, {3, 1, 5}}},
       i32},
      {"MatMulInteger, 1-D A and no zero points", "MatMulInteger", {{"a", u8, {6}}, {"b", u8, {2, 6, 4}}}, i32},
      {"QLinearMatMul, per-row a and per-column b, int8 out",
       "QLinearMatMul",
       {{"a", u8, {4, 8}},
        {"as", f32, {4}},
        {"az", u8, {4}},
        {"b", s8, {8, 3}},
        {"bs", f32, {3}},
        {"bz", s8, {3}},
        {"ys", f32, {}},
        {"yz", s8, {}}},
       s8},
      {"QLinearMatMul, batched, per tensor, uint8 out",
       "QLinearMatMul",
       {{"a", s8, {2, 3, 5}},
        {"as", f32, {}},
        {"az", s8, {}},
        {"b", s8, {2, 5, 4}},
        {"bs", f32, {}},
        {"bz", s8, {}},
        {"ys", f32, {}},
        {"yz", u8, {}}},
       u8},
      {"ConvInteger 2-D, groups 2, stride 2, dilation 2, pads, per-channel w zero point",
       "ConvInteger",
       {{"x", u8, {2, 4, 9, 8}}, {"w", s8, {6, 2, 3, 2}}, {"xz", u8, {}}, {"wz", s8, {6}}},
       i32,
       {{"group", {2}}, {"strides", {2, 1}}, {"dilations", {2, 1}}, {"pads", {1, 0, 2, 1}}}},
      {"ConvInteger 2-D, SAME_UPPER",
       "ConvInteger",
       {{"x", s8, {1, 3, 6, 7}}, {"w", s8, {2, 3, 2, 3}}, {"xz", s8, {}}},
       i32,
       {{"strides", {2, 2}}},
       "SAME_UPPER"},
      {"ConvInteger 1-D", "ConvInteger", {{"x", u8, {2, 3, 11}}, {"w", u8, {4, 3, 4}}}, i32, {{"strides", {3}}}},
      {"ConvInteger 3-D",
       "ConvInteger",
       {{"x", u8, {1, 2, 4, 5, 4}}, {"w", s8, {3, 2, 2, 3, 2}}, {"xz", u8, {}}, {"wz", s8, {}}},
       i32,
       {{"pads", {0, 1, 1, 1, 0, 0}}}},
      {"QLinearConv, bias, per-channel w scale and zero point, int8 out",
       "QLinearConv",
       {{"x", u8, {2, 4, 7, 6}},
        {"xs", f32, {}},
        {"xz", u8, {}},
        {"w", s8, {4, 2, 3, 3}},
        {"ws", f32, {4}},
        {"wz", s8, {4}},
        {"ys", f32, {}},
        {"yz", s8, {}},
        {"bias", i32, {4}}},
       s8,
       {{"group", {2}}, {"pads", {1, 1, 1, 1}}}},
  };
  for (const auto& c : cases) {
    ModelBuilder b(13);
    std::vector<std::string> names;
    std::vector<exec::HostTensor> inputs;
    int salt = 0;
    for (const auto& in : c.inputs) {
      std::vector<DimSpec> dims(in.dims.begin(), in.dims.end());
      b.input(in.name, dims, onnx_type(in.type));
      names.push_back(in.name);
      int64_t n = 1;
      for (auto d : in.dims) n *= d;
      auto values = spread(in.type, n, ++salt);
      // y's scale and zero point such that the requantized values spread over the range, some saturating.
      if (in.name == "ys") values = {1.0};
      if (in.name == "yz") values = {in.type == u8 ? 128.0 : 0.0};
      inputs.push_back(tensor_of(in.name, in.type, in.dims, values));
    }
    b.output("y");
    auto& node = b.node(c.op, names, {"y"}, "product");
    for (const auto& [name, values] : c.ints) {
      if (name == "group")
        set_int(node, name, values[0]);
      else
        set_ints(node, name, values);
    }
    if (!c.auto_pad.empty()) set_string(node, "auto_pad", c.auto_pad);
    analysis::Request request;
    request.model_path = b.save("integer_product");
    auto model = exec::prepare(request, "").analysis.model;
    auto want = exec::load_engine().run(model, inputs, {}).outputs.at(0);
    auto got = run_serial(model.graph, model.graph.nodes.front(), inputs);
    EXPECT_EQ(got.dtype, c.output) << c.label;
    EXPECT_EQ(got.dims, want.dims) << c.label;
    EXPECT_EQ(got.dtype, want.dtype) << c.label;
    EXPECT_EQ(got.bytes, want.bytes) << c.label;
    // Not all one value: the case exercises the arithmetic.
    auto values = host_values(got);
    EXPECT_GT(std::set<double>(values.begin(), values.end()).size(), 3u) << c.label;
  }
}

// A per-row zero point of A ([M]) shifts each row by its own value (broadcasting it along K would shift each column):
// A = [[1, 2], [3, 4]], zero points [1, 2], B the identity: Y = [[0, 1], [1, 2]], on the CPU and in the cell.
TEST(CudaInteger, APerRowZeroPointShiftsItsRow) {
  ModelBuilder b(13);
  b.input("a", {int64_t{2}, int64_t{2}}, ::onnx::TensorProto::UINT8)
      .input("b", {int64_t{2}, int64_t{2}}, ::onnx::TensorProto::UINT8)
      .input("az", {int64_t{2}}, ::onnx::TensorProto::UINT8)
      .output("y");
  b.node("MatMulInteger", {"a", "b", "az"}, {"y"}, "product");
  analysis::Request request;
  request.model_path = b.save("integer_rows");
  auto model = exec::prepare(request, "").analysis.model;
  std::vector<exec::HostTensor> inputs{tensor_of("a", DType::kUInt8, {2, 2}, {1, 2, 3, 4}),
                                       tensor_of("b", DType::kUInt8, {2, 2}, {1, 0, 0, 1}),
                                       tensor_of("az", DType::kUInt8, {2}, {1, 2})};
  const std::vector<double> want{0, 1, 1, 2};
  EXPECT_EQ(host_values(exec::load_engine().run(model, inputs, {}).outputs.at(0)), want);
  EXPECT_EQ(host_values(run_serial(model.graph, model.graph.nodes.front(), inputs)), want);
}

TEST(CudaInteger, WhatThePlansCannotHoldIsRefusedInOneLine) {
  graph::Node matmul;
  matmul.op_type = "MatMulInteger";
  using In = cuda::IntegerInput;
  auto refused = [](auto make, const std::string& words) { EXPECT_EQ(one_line_refusal(make, words), ""); };
  refused(
      [&] {
        cuda::integer_matmul_plan(matmul, {In{true, DType::kFloat32, {2, 3}}, In{true, DType::kInt8, {3, 2}}});
      },
      "A is fp32: the GPU's integer products take int8 and uint8");
  refused(
      [&] {
        cuda::integer_matmul_plan(
            matmul, {In{true, DType::kUInt8, {2, 3}}, In{true, DType::kInt8, {3, 2}}, In{true, DType::kUInt8, {3}}});
      },
      "A's zero point has shape [3]: per tensor, per row");
  refused(
      [&] {
        cuda::integer_matmul_plan(matmul, {In{true, DType::kUInt8, {2, 3}}, In{true, DType::kInt8, {4, 2}}});
      },
      "the inner dims differ");
  refused(
      [&] {
        cuda::integer_matmul_plan(matmul,
                                  {In{true, DType::kUInt8, {2, 2, 2, 2, 2, 2, 3}}, In{true, DType::kInt8, {3, 2}}});
      },
      "5 batch dims");
  graph::Node qmatmul;
  qmatmul.op_type = "QLinearMatMul";
  std::vector<In> q{In{true, DType::kUInt8, {2, 3}}, In{true, DType::kFloat16, {}}, In{true, DType::kUInt8, {}},
                    In{true, DType::kUInt8, {3, 2}}, In{true, DType::kFloat32, {}}, In{true, DType::kUInt8, {}},
                    In{true, DType::kFloat32, {}},   In{true, DType::kUInt8, {}}};
  refused([&] { cuda::integer_matmul_plan(qmatmul, q); }, "a_scale is fp16: the GPU's integer products take fp32");
  graph::Node conv;
  conv.op_type = "ConvInteger";
  refused(
      [&] {
        cuda::integer_conv_plan(conv, {In{true, DType::kUInt8, {1, 2, 5, 5}}, In{true, DType::kInt8, {3, 2, 3, 3}},
                                       In{}, In{true, DType::kInt8, {2}}});
      },
      "w's zero point has shape [2]: one value, or one per output channel ([3])");
  refused(
      [&] {
        cuda::integer_conv_plan(conv, {In{true, DType::kUInt8, {1, 4, 5, 5}}, In{true, DType::kInt8, {3, 2, 3, 3}}});
      },
      "the channels do not match");
  refused(
      [&] {
        cuda::integer_conv_plan(
            conv, {In{true, DType::kUInt8, {1, 1, 2, 2, 2, 2}}, In{true, DType::kInt8, {1, 1, 1, 1, 1, 1}}});
      },
      "1 to 3 spatial dims");
  refused(
      [&] {
        cuda::integer_conv_plan(conv, {In{true, DType::kUInt8, {1, 1, 2, 2}}, In{true, DType::kInt8, {1, 1, 3, 3}}});
      },
      "window of extent 3 does not fit input size 2");
}

}  // namespace
}  // namespace ridge::test
